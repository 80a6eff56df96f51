import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from '../../src/scenario/load.js';

/** A valid file; each test changes one line of it. */
const BASE = `zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
services:
  com.example.UserService:
    methods:
      getUserById: { serviceTime: 20ms }
providers:
  - { service: com.example.UserService, zone: zoneA, count: 2 }
  - { service: com.example.UserService, zone: zoneB, count: 1 }
consumers:
  - application: web
    zone: zoneA
    rate: 100/s
    calls: { com.example.UserService.getUserById: 1 }
    reference:
      com.example.UserService:
        timeout: 500ms
        loadbalance: random
`;

/** BASE with line `n` (1-based) replaced. */
const withLine = (n: number, text: string) => {
  const lines = BASE.split('\n');
  lines[n - 1] = text;
  return lines.join('\n');
};

function errorOf(text: string): ScenarioError {
  try {
    parseScenario(text, 'bad.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('expected a ScenarioError');
}

const formatted = (text: string) => errorOf(text).format();

describe('scenario errors', () => {
  it('the base file is valid', () => {
    expect(parseScenario(BASE, 'ok.yaml').providers).toHaveLength(2);
  });

  it('points at a typo in a reference attribute and suggests the right one', () => {
    expect(formatted(withLine(18, '        tmeout: 500ms'))).toBe(
      'bad.yaml:18:9: consumers[0].reference["com.example.UserService"].tmeout: unknown field "tmeout"; did you mean "timeout"?',
    );
  });

  it('lists the valid fields when an unknown key is not close to any', () => {
    expect(formatted(withLine(2, '  zoneA: { cidr: 10.10.0.0/16, color: red }'))).toBe(
      'bad.yaml:2:32: zones.zoneA.color: unknown field "color"; valid fields: cidr',
    );
  });

  it('rejects a negative count', () => {
    expect(formatted(withLine(10, '  - { service: com.example.UserService, zone: zoneB, count: -3 }'))).toBe(
      'bad.yaml:10:61: providers[1].count: expected an integer >= 0, found -3',
    );
  });

  it('rejects a fractional count', () => {
    expect(formatted(withLine(10, '  - { service: com.example.UserService, zone: zoneB, count: 1.5 }'))).toBe(
      'bad.yaml:10:61: providers[1].count: expected an integer >= 0, found 1.5',
    );
  });

  it('rejects an unknown zone and names the declared ones', () => {
    expect(formatted(withLine(13, '    zone: zoneC'))).toBe(
      'bad.yaml:13:11: consumers[0].zone: expected a zone declared under zones (zoneA, zoneB), found "zoneC"; did you mean "zoneA"?',
    );
  });

  it('rejects an unknown service in a provider group', () => {
    expect(formatted(withLine(10, '  - { service: com.example.OrderService, zone: zoneB, count: 1 }'))).toBe(
      'bad.yaml:10:16: providers[1].service: expected a service declared under services (com.example.UserService), found "com.example.OrderService"; did you mean "com.example.UserService"?',
    );
  });

  it('rejects an unknown service in a consumer calls key, pointing at the key', () => {
    expect(formatted(withLine(15, '    calls: { com.example.UserServic.getUserById: 1 }'))).toBe(
      'bad.yaml:15:14: consumers[0].calls["com.example.UserServic.getUserById"]: expected a service declared under services (com.example.UserService), found "com.example.UserServic" in "com.example.UserServic.getUserById"; did you mean "com.example.UserService"?',
    );
  });

  it('rejects an unknown method in a consumer calls key', () => {
    expect(formatted(withLine(15, '    calls: { com.example.UserService.getUser: 1 }'))).toBe(
      'bad.yaml:15:14: consumers[0].calls["com.example.UserService.getUser"]: expected a method of com.example.UserService (getUserById), found "getUser"; did you mean "getUserById"?',
    );
  });

  it('rejects a calls weight that is not positive', () => {
    expect(formatted(withLine(15, '    calls: { com.example.UserService.getUserById: 0 }'))).toBe(
      'bad.yaml:15:51: consumers[0].calls["com.example.UserService.getUserById"]: expected a weight > 0, found 0',
    );
  });

  it('rejects a malformed duration', () => {
    expect(formatted(withLine(18, '        timeout: 5 seconds'))).toBe(
      'bad.yaml:18:18: consumers[0].reference["com.example.UserService"].timeout: expected a duration such as 450ms, 1.5s, 2m or a number of milliseconds, found "5 seconds"',
    );
  });

  it('rejects a malformed rate', () => {
    expect(formatted(withLine(14, '    rate: fast'))).toBe(
      'bad.yaml:14:11: consumers[0].rate: expected a rate such as 2000/s or 120/m, or a number per second, found "fast"',
    );
  });

  it('rejects an unknown load balancer and lists the valid names', () => {
    const e = errorOf(withLine(19, '        loadbalance: randon'));
    expect(e.issues).toHaveLength(1);
    expect([e.file, e.line, e.col, e.path]).toEqual(['bad.yaml', 19, 22, 'consumers[0].reference["com.example.UserService"].loadbalance']);
    expect(e.message).toMatch(/^expected a loadbalance name \(random, roundrobin, leastactive, .*\) or a plugin module path such as \.\/my-loadbalance\.js, found "randon"; did you mean "random"\?$/);
  });

  it('accepts a plugin module path in place of a load balancer name', () => {
    expect(parseScenario(withLine(19, '        loadbalance: ./my-lb.js'), 'ok.yaml').consumers[0]!.reference['com.example.UserService']!.loadbalance).toBe('./my-lb.js');
  });

  it('rejects an unknown cluster', () => {
    expect(formatted(withLine(19, '        cluster: failfest'))).toMatch(
      /^bad\.yaml:19:18: consumers\[0\]\.reference\["com\.example\.UserService"\]\.cluster: expected a cluster name \(failover, failfast, .*\) or a plugin module path such as \.\/my-cluster\.js, found "failfest"; did you mean "failfast"\?$/,
    );
  });

  it('suggests a name of the attribute’s own kind first: a load balancer under loadbalance, a cluster under cluster', () => {
    expect(errorOf(withLine(19, '        loadbalance: zoneaware')).message).toMatch(/found "zoneaware"; did you mean "zoneAware"\?$/);
    expect(errorOf(withLine(19, '        cluster: zoneaware')).message).toMatch(
      /found "zoneaware"; did you mean "zone-aware"\? \("zoneAware" is a loadbalance name: write loadbalance: zoneAware\)$/,
    );
    expect(errorOf(withLine(19, '        cluster: roundrobin')).message).toMatch(/; "roundrobin" is a loadbalance name, not a cluster name: write loadbalance: roundrobin$/);
  });

  it('reports two errors at once, sorted by position', () => {
    const text = withLine(14, '    rate: fast').replace('count: 2', 'count: -1');
    expect(formatted(text)).toBe(
      [
        'bad.yaml:9:61: providers[0].count: expected an integer >= 0, found -1',
        'bad.yaml:14:11: consumers[0].rate: expected a rate such as 2000/s or 120/m, or a number per second, found "fast"',
      ].join('\n'),
    );
  });

  it('reports a missing required field at its parent', () => {
    expect(formatted(withLine(13, '    instances: 2'))).toBe(
      'bad.yaml:12:5: consumers[0].zone: expected a zone name, found nothing (the field is required)',
    );
  });

  it('rejects a CIDR with a bad syntax', () => {
    expect(formatted(withLine(2, '  zoneA: { cidr: 10.10.0/16 }'))).toBe(
      'bad.yaml:2:18: zones.zoneA.cidr: expected an IPv4 CIDR such as 10.10.0.0/16, found "10.10.0/16"',
    );
  });

  it('rejects a zone CIDR too small for its instances', () => {
    expect(formatted(withLine(2, '  zoneA: { cidr: 10.10.0.0/31 }'))).toBe(
      'bad.yaml:2:18: zones.zoneA.cidr: 10.10.0.0/31 has 2 usable addresses, fewer than the 3 provider and consumer instances placed in zoneA',
    );
  });

  it('rejects a lognormal whose p99 is below its p50, at p99', () => {
    expect(formatted(withLine(7, '      getUserById: { serviceTime: { dist: lognormal, p50: 20ms, p99: 10ms } }'))).toBe(
      'bad.yaml:7:70: services["com.example.UserService"].methods.getUserById.serviceTime.p99: p99 (10ms) must be at least p50 (20ms)',
    );
  });

  it('names the valid distributions for an unknown dist', () => {
    expect(formatted(withLine(7, '      getUserById: { serviceTime: { dist: gamma, k: 2 } }'))).toBe(
      'bad.yaml:7:43: services["com.example.UserService"].methods.getUserById.serviceTime.dist: expected dist to be one of constant, uniform, exponential, normal, lognormal, pareto, empirical, samples, histogram, mixture, found "gamma"',
    );
  });

  it('rejects a fault with two actions', () => {
    expect(formatted(`${BASE}faults:\n  - { at: 10s, zoneDown: zoneA, zoneUp: zoneB }\n`)).toBe(
      'bad.yaml:21:5: faults[0]: expected exactly one action (zoneDown, zoneUp, crash, restart, slowdown, partition, heal, registryPartition, registryDown, rtt, scale, rule, pushSwitch, rollingRestart, traffic, roomDown, roomUp, sentinel), found zoneDown and zoneUp',
    );
  });

  it('rejects an unknown zone in a fault', () => {
    expect(formatted(`${BASE}faults:\n  - { at: 10s, partition: [zoneA, zoneX] }\n`)).toBe(
      'bad.yaml:21:35: faults[0].partition[1]: expected a zone declared under zones (zoneA, zoneB), found "zoneX"; did you mean "zoneA"?',
    );
  });

  it('rejects an unknown zoneDown mode', () => {
    expect(formatted(`${BASE}faults:\n  - { at: 10s, zoneDown: zoneA, mode: crsh }\n`)).toBe(
      'bad.yaml:21:39: faults[0].mode: expected blackhole or crash, found "crsh"',
    );
  });

  it('rejects an unknown method in a call graph', () => {
    const text = withLine(7, '      getUserById: { serviceTime: 20ms, calls: [{ service: com.example.UserService, method: nope }] }');
    expect(formatted(text)).toBe(
      'bad.yaml:7:93: services["com.example.UserService"].methods.getUserById.calls[0].method: expected a method of com.example.UserService (getUserById), found "nope"',
    );
  });

  it('rejects a call graph cycle', () => {
    const text = withLine(7, '      getUserById: { serviceTime: 20ms, calls: [{ service: com.example.UserService, method: getUserById }] }');
    expect(formatted(text)).toBe(
      'bad.yaml:7:49: services["com.example.UserService"].methods.getUserById.calls[0]: call graph cycle: com.example.UserService.getUserById -> com.example.UserService.getUserById; a request would never end',
    );
  });

  it('rejects an unknown router type', () => {
    expect(formatted(`${BASE}routers:\n  - { type: zones }\n`)).toBe(
      'bad.yaml:21:13: routers[0].type: expected type to be one of condition, tag, zone, plugin, found "zones"',
    );
  });

  it('rejects a strategy reference key that is neither an attribute nor a service', () => {
    expect(formatted(`${BASE}strategies:\n  s: { reference: { retires: 0 } }\n`)).toBe(
      'bad.yaml:21:21: strategies.s.reference.retires: unknown field "retires": neither a reference attribute (timeout, retries, loadbalance, cluster, forks, sticky, actives, tag, mock, parameters, methods) nor a service; did you mean "retries"?',
    );
  });

  it('reports YAML syntax errors with their position', () => {
    expect(formatted('zones: { zoneA: {}\nservices: {}\n')).toMatch(/^bad\.yaml:\d+:\d+: YAML: /);
  });

  it('reports an empty file', () => {
    expect(formatted('# nothing here\n')).toBe(
      'bad.yaml:1:1: the file is empty; expected a scenario map with zones, services, providers and consumers',
    );
  });

  it('rejects a warmup as long as the duration', () => {
    expect(formatted(`duration: 10s\nwarmup: 10s\n${BASE}`)).toBe(
      'bad.yaml:2:9: warmup: warmup (10000 ms) must be shorter than duration (10000 ms), or nothing is measured',
    );
  });

  it('carries file, line, col, path and message on the error object', () => {
    const e = errorOf(withLine(14, '    rate: fast'));
    expect({ file: e.file, line: e.line, col: e.col, path: e.path, name: e.name }).toEqual({
      file: 'bad.yaml', line: 14, col: 11, path: 'consumers[0].rate', name: 'ScenarioError',
    });
    expect(e.message).toBe('expected a rate such as 2000/s or 120/m, or a number per second, found "fast"');
  });
});

describe('hints', () => {
  it('points unknown reference attributes to parameters', () => {
    expect(formatted(withLine(18, '        connections: 2'))).toBe(
      [
        'bad.yaml:18:9: consumers[0].reference["com.example.UserService"].connections: unknown field "connections"; valid fields: timeout, retries, loadbalance, cluster, forks, sticky, actives, tag, mock, parameters, methods',
        '  hint: other Dubbo URL parameters go under parameters: { connections: ... }',
      ].join('\n'),
    );
  });
});
