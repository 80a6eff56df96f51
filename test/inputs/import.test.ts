import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { importConfig, parseProperties } from '../../src/inputs/import-config.js';
import { importProviders } from '../../src/inputs/import-providers.js';
import { main } from '../../src/cli/main.js';
import { parseScenario } from '../../src/scenario/load.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', 'cli', 'fixtures', 'import');
const fixture = (name: string) => join(fixtures, name);
const read = (name: string) => readFileSync(fixture(name), 'utf8');

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: fixtures });
  return { code, out: out.join(''), err: err.join('') };
}

type Raw = Record<string, unknown>;

/** The CIDR scenario of the fixtures, with every service the imported files mention. */
function baseScenario(): Raw {
  const s = parse(read('two-zones.yaml')) as Raw;
  const services = s.services as Raw;
  for (const name of ['com.example.OrderQueryService', 'com.example.AccountService']) {
    services[name] = { methods: { searchOrders: { serviceTime: '20ms' }, getBalance: { serviceTime: '5ms' } } };
  }
  (services['com.example.UserService'] as { methods: Raw }).methods.listUsers = { serviceTime: '50ms' };
  return s;
}

/** Pastes a `providers:` fragment into the base scenario in place of its providers and loads it. */
function loadWithProviders(fragmentYaml: string) {
  const s = baseScenario();
  s.providers = (parse(fragmentYaml) as { providers: unknown[] }).providers;
  return parseScenario(stringify(s), join(fixtures, 'pasted.yaml'));
}

describe('zonesim import providers', () => {
  it('turns a zkCli `ls` session into groups by zone and distinguishing parameters, with counts', async () => {
    const r = await run(['import', 'providers', 'zkcli-ls-user-service.txt', '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json).toEqual({
      providers: [
        { service: 'com.example.UserService', zone: 'zoneA', count: 6, params: { application: 'user-service', timeout: '3000', version: '1.0.0' } },
        { service: 'com.example.UserService', zone: 'zoneA', count: 1, params: { application: 'user-service', 'dubbo.tag': 'gray', timeout: '3000', version: '1.0.0' } },
        { service: 'com.example.UserService', zone: 'zoneB', count: 3, params: { application: 'user-service', timeout: '3000', version: '1.0.0' } },
        { service: 'com.example.UserService', zone: 'zoneB', count: 1, params: { application: 'user-service', timeout: '3000', version: '1.0.0', weight: '50' } },
      ],
      skipped: [
        { line: 11, reason: 'element 1: a consumer URL (from a consumers/ node), not a provider' },
        { line: 11, reason: 'element 2: a consumer URL (from a consumers/ node), not a provider' },
      ],
    });
  });

  it('prints a providers: fragment that loads when pasted into a scenario', async () => {
    const r = await run(['import', 'providers', 'zkcli-ls-user-service.txt']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^# zonesim import providers zkcli-ls-user-service\.txt: 11 providers of 1 service in 4 groups; 2 skipped/);
    expect(r.out).toContain('#   line 11: element 1: a consumer URL');
    const s = loadWithProviders(r.out);
    expect(s.providers.map((p) => [p.zone, p.count, p.weight, p.application, p.params])).toEqual([
      ['zoneA', 6, 100, 'user-service', { timeout: '3000', version: '1.0.0' }],
      ['zoneA', 1, 100, 'user-service', { 'dubbo.tag': 'gray', timeout: '3000', version: '1.0.0' }],
      ['zoneB', 3, 100, 'user-service', { timeout: '3000', version: '1.0.0' }],
      ['zoneB', 1, 50, 'user-service', { timeout: '3000', version: '1.0.0' }],
    ]);
  });

  it('reads one URL per line, raw or URL-encoded, and lists what it cannot read', async () => {
    const r = await run(['import', 'providers', 'order-service-providers.txt']);
    expect(r.code).toBe(0);
    const s = loadWithProviders(r.out);
    expect(s.providers.map((p) => [p.zone, p.count, p.params.group, p.warmupMs, p.exports['com.example.OrderService']?.executes])).toEqual([
      ['zoneA', 2, 'gold', 600_000, 200],
      ['zoneA', 1, 'silver', 120_000, undefined],
      ['zoneB', 1, 'gold', 600_000, 200],
    ]);
    expect(s.providers[0]!.exports['com.example.OrderService']!.methods).toEqual({ createOrder: { executes: 20 } });
    const json = JSON.parse((await run(['import', 'providers', 'order-service-providers.txt', '--json'])).out);
    expect(json.skipped).toEqual([
      { line: 7, reason: 'not a provider URL (expected dubbo://IP:PORT/Service?...): 10.10.2.32:20880' },
      { line: 8, reason: expect.stringMatching(/^looks URL-encoded but does not decode \(a broken %XX escape\?\): dubbo%3A%2F%2F10\.10\.2\.11/) },
    ]);
  });

  it('reads a Nacos instance list, leaving out unhealthy instances, with zones from the scenario\'s CIDRs', async () => {
    const r = await run(['import', 'providers', 'nacos-order-service.json', '--zone-from', 'cidr', '--scenario', 'two-zones.yaml', '--json']);
    expect(r.code).toBe(0);
    const params = { application: 'order-service', executes: '200', group: 'gold', revision: '2.0.0', version: '2.0.0' };
    expect(JSON.parse(r.out)).toEqual({
      providers: [
        { service: 'com.example.OrderService', zone: 'zoneA', count: 2, params },
        { service: 'com.example.OrderService', zone: 'zoneB', count: 2, params },
      ],
      skipped: [{ line: 83, reason: 'instance 10.10.2.13:20880 is unhealthy (healthy: false): left out, as it stopped beating (Dubbo would still list it until Nacos deletes it)' }],
    });
    const s = loadWithProviders((await run(['import', 'providers', 'nacos-order-service.json', '--zone-from', 'cidr', '--scenario', 'two-zones.yaml'])).out);
    expect(s.providers.map((p) => [p.zone, p.count, p.exports['com.example.OrderService']?.executes])).toEqual([['zoneA', 2, 200], ['zoneB', 2, 200]]);
  });

  it('says which providers have no zone when neither a zone parameter nor --zone-from cidr tells it', async () => {
    const r = await run(['import', 'providers', 'nacos-order-service.json']);
    expect(r.out).toContain('# 4 providers have no zone (zone: unknown): give them a zone parameter, or use --zone-from cidr --scenario S');
    expect(JSON.parse((await run(['import', 'providers', 'nacos-order-service.json', '--json'])).out).providers[0].zone).toBeNull();
  });

  it('keeps a zone parameter that disagrees with the CIDR (it is what the registered URL says)', () => {
    const zones = { zoneA: { cidr: '10.10.0.0/16' }, zoneB: { cidr: '10.20.0.0/16' } };
    const r = importProviders('dubbo://10.10.1.5:20880/S?zone=zoneB\ndubbo://10.10.1.6:20880/S?zone=zoneA\n', zones);
    expect(r.providers).toEqual([
      { service: 'S', zone: 'zoneA', count: 1, params: { zone: 'zoneB' } },
      { service: 'S', zone: 'zoneA', count: 1, params: {} },
    ]);
  });

  it('names a port that is not a number when it skips a line, and tells a missing port apart', () => {
    const r = importProviders('dubbo://10.0.0.1:abc/S?zone=z\ndubbo://10.0.0.2/S?zone=z\ndubbo://10.0.0.3:20880/S?zone=z\n');
    expect(r.providers).toEqual([{ service: 'S', zone: 'z', count: 1, params: {} }]);
    expect(r.skipped).toEqual([
      { line: 1, reason: 'expected a port from 0 to 65535 after the host, found "abc" in "dubbo://10.0.0.1:abc/S?zone=z"' },
      { line: 2, reason: 'no port in dubbo://10.0.0.2/S?zone=z' },
    ]);
  });

  it('reads the Nacos console list and the v2 API, and skips application-level instances', () => {
    const host = (ip: string, metadata: Record<string, string>, serviceName: string) => ({ ip, port: 20880, healthy: true, enabled: true, serviceName, metadata });
    const console = JSON.stringify({ list: [host('10.10.1.5', { interface: 'S', zone: 'zoneA' }, 'DEFAULT_GROUP@@providers:S::')], count: 1 });
    expect(importProviders(console).providers).toEqual([{ service: 'S', zone: 'zoneA', count: 1, params: {} }]);
    const v2 = JSON.stringify({ code: 0, message: 'success', data: { name: 'DEFAULT_GROUP@@providers:S:1.0:', hosts: [host('10.10.1.5', { side: 'provider' }, 'DEFAULT_GROUP@@providers:S:1.0:'), host('10.10.1.6', { 'dubbo.metadata.revision': 'abc' }, 'DEFAULT_GROUP@@user-service')] } }, null, 2);
    const r = importProviders(v2);
    expect(r.providers).toEqual([{ service: 'S', zone: null, count: 1, params: { version: '1.0' } }]);
    expect(r.skipped).toEqual([{ line: 17, reason: expect.stringMatching(/^instance 10\.10\.1\.6:20880 is an application-level instance/) }]);
  });

  it('counts an IP:port listed twice once', () => {
    expect(importProviders('dubbo://10.10.1.5:20880/S?zone=a\ndubbo://10.10.1.5:20880/S?zone=a\n').providers[0]!.count).toBe(1);
  });

  it('exits 2 when the file holds no provider, or --zone-from cidr has no scenario', async () => {
    const none = await run(['import', 'providers', 'application.yml']);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^zonesim: no provider in application\.yml/);
    const noScenario = await run(['import', 'providers', 'nacos-order-service.json', '--zone-from', 'cidr']);
    expect(noScenario.code).toBe(2);
    expect(noScenario.err).toContain('--zone-from cidr needs --scenario S');
    expect((await run(['import', 'providers', 'missing.txt'])).code).toBe(2);
  });
});

describe('zonesim import config', () => {
  /** Merges the consumer and provider fragments into the base scenario's first groups and loads it. */
  function loadWithConfig(fragmentYaml: string) {
    const f = parse(fragmentYaml) as { registry?: Raw; consumers?: Raw[]; providers?: Raw[] };
    const s = baseScenario();
    const consumers = s.consumers as Raw[];
    if (f.consumers) consumers[0] = { ...consumers[0], ...f.consumers[0] };
    if (f.providers) (s.providers as Raw[]).push({ zone: 'zoneA', count: 2, ...f.providers[0] });
    if (f.registry) s.registry = { ...f.registry };
    return parseScenario(stringify(s), join(fixtures, 'merged.yaml'));
  }

  it('maps a Spring Boot application.yml onto consumer defaults, references, provider pools and the registry', async () => {
    const r = await run(['import', 'config', 'application.yml']);
    expect(r.code).toBe(0);
    const s = loadWithConfig(r.out);
    const c = s.consumers[0]!;
    expect(c.application).toBe('order-web');
    expect(c.consumerDefaults).toEqual({ timeoutMs: 3000, retries: 1, loadbalance: 'leastactive', parameters: { check: 'false' } });
    expect(c.reference['com.example.UserService']).toEqual({
      timeoutMs: 800, retries: 2, parameters: {}, methods: { getUserById: { timeoutMs: 300, parameters: {} } },
    });
    expect(c.reference['com.example.OrderService']).toEqual({
      cluster: 'failfast',
      parameters: { version: '2.0.0', group: 'gold' },
      methods: { createOrder: { retries: 0, timeoutMs: 2000, parameters: {} }, getOrder: { loadbalance: 'roundrobin', parameters: {} } },
    });
    const p = s.providers[s.providers.length - 1]!;
    expect([p.application, p.service, p.threads, p.params]).toEqual(['order-web', 'com.example.OrderQueryService', 400, { timeout: '5000' }]);
    expect(p.exports['com.example.OrderQueryService']).toMatchObject({ executes: 100, tps: 2000, methods: { searchOrders: { executes: 10 } } });
    expect([s.registry.type, s.registry.registration]).toEqual(['nacos', 'application']);
    expect(r.out).toContain('#   line 28: dubbo.protocol.port=-1: zonesim gives every instance port 20880');
  });

  it('maps a dubbo.properties, method-level settings and the ZooKeeper session included, and lists what it ignored', async () => {
    const r = await run(['import', 'config', 'dubbo.properties', '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json.ignored.map((i: { line: number; key: string }) => [i.line, i.key])).toEqual([
      [3, 'dubbo.application.owner'],
      [7, 'dubbo.protocol.name'],
      [8, 'dubbo.protocol.port'],
      [29, 'dubbo.reference.com.example.AccountService.async'],
      [30, 'dubbo.consumer.loadbalance'],
    ]);
    expect(json.ignored[4].reason).toMatch(/^load balancer "p2c" is not one of zonesim's \(random, roundrobin, leastactive/);
    const s = loadWithConfig((await run(['import', 'config', 'dubbo.properties'])).out);
    expect(s.consumers[0]!.reference['com.example.AccountService']).toEqual({
      retries: 0, sticky: true, loadbalance: 'consistenthash', parameters: {}, methods: { getBalance: { timeoutMs: 200, parameters: {} } },
    });
    expect(s.consumers[0]!.consumerDefaults).toMatchObject({ timeoutMs: 1000, cluster: 'failover' });
    const p = s.providers[s.providers.length - 1]!;
    expect([p.threads, p.queues, p.weight, p.warmupMs, p.params]).toEqual([300, 0, 100, 600_000, { timeout: '3000', retries: '0' }]);
    expect(p.exports['com.example.UserService']).toEqual({
      executes: 50, tps: 5000, tpsIntervalMs: 1000, params: { 'updateUser.timeout': '1000' }, methods: { updateUser: { executes: 10 } },
    });
    expect([s.registry.type, s.registry.sessionTimeoutMs, s.registry.zone]).toEqual(['zookeeper', 40_000, 'zoneA']);
  });

  it('resolves Spring placeholders from the file or their defaults, and reports the unresolved ones', () => {
    const r = importConfig('dubbo:\n  consumer:\n    timeout: ${RPC_TIMEOUT:1500}\n    retries: ${RETRIES}\n', 'application.yml');
    expect(r.consumers).toEqual([{ consumerDefaults: { timeout: 1500 } }]);
    expect(r.ignored).toEqual([{ line: 4, key: 'dubbo.consumer.retries', value: '${RETRIES}', reason: 'unresolved placeholder ${RETRIES} (no default, not in this file)' }]);
  });

  it('reads properties as Java does: separators, continuations, escapes and comments', () => {
    const text = '! comment\n# comment\ndubbo.consumer.timeout : 2000\ndubbo.consumer.retries 3\nkey\\ with\\ space=a\\\n   b\nunicode=\\u0041\n';
    expect(parseProperties(text)).toEqual([
      { key: 'dubbo.consumer.timeout', value: '2000', line: 3 },
      { key: 'dubbo.consumer.retries', value: '3', line: 4 },
      { key: 'key with space', value: 'ab', line: 5 },
      { key: 'unicode', value: 'A', line: 7 },
    ]);
  });

  it('writes the ZooKeeper session a default server grants, [4 s, 40 s], and warns when it clamps the one asked for', async () => {
    const zk = (session: string, id = '') =>
      importConfig(
        id === ''
          ? `dubbo.registry.address=zookeeper://10.10.0.11:2181\ndubbo.registry.session=${session}\n`
          : `dubbo.registries.${id}.address=zookeeper://10.10.0.11:2181\ndubbo.registries.${id}.session=${session}\n`,
        'dubbo.properties',
      );
    const long = zk('60000');
    expect(long.registry).toEqual({ type: 'zookeeper', sessionTimeout: 40_000 });
    expect(long.warnings).toEqual([expect.stringMatching(/^line 2: dubbo\.registry\.session=60000: .*grants session timeouts from 4000 to 40000 ms and clamps 60000 to 40000; written as registry\.sessionTimeout: 40000/)]);
    expect(zk('1000').registry).toEqual({ type: 'zookeeper', sessionTimeout: 4000 });
    expect(zk('90000', 'beijing').registries).toEqual({ beijing: { type: 'zookeeper', sessionTimeout: 40_000 } });
    expect(zk('90000', 'beijing').warnings[0]).toContain('written as registries.beijing.sessionTimeout: 40000');
    // Inside the range: as asked, no warning.
    for (const ms of ['4000', '30000', '40000']) {
      expect([zk(ms).registry?.sessionTimeout, zk(ms).warnings]).toEqual([Number(ms), []]);
    }
    // The command says it on stderr and in the fragment's header.
    const r = await run(['import', 'config', 'zk-session-60s.properties']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^zonesim: warning: zk-session-60s\.properties: line 3: dubbo\.registry\.session=60000: .* clamps 60000 to 40000/);
    expect(r.out).toMatch(/^# warning: line 3: dubbo\.registry\.session=60000/m);
    expect(parse(r.out).registry).toEqual({ type: 'zookeeper', sessionTimeout: 40_000 });
  });

  it('ignores a session on a Nacos registry: only ZooKeeper has one', () => {
    const r = importConfig('dubbo.registry.address=nacos://10.10.0.20:8848\ndubbo.registry.session=60000\n', 'dubbo.properties');
    expect(r.registry).toEqual({ type: 'nacos' });
    expect(r.ignored).toEqual([{ line: 2, key: 'dubbo.registry.session', value: '60000', reason: "the session timeout is ZooKeeper's: a nacos registry has none" }]);
  });

  it('maps several registries with their zones and preference', () => {
    const r = importConfig(
      'dubbo.registries.shanghai.address=nacos://10.10.0.20:8848\ndubbo.registries.shanghai.zone=zoneA\ndubbo.registries.shanghai.preferred=true\ndubbo.registries.beijing.address=zookeeper://10.20.0.11:2181\ndubbo.registries.beijing.zone=zoneB\n',
      'dubbo.properties',
    );
    expect(r.registries).toEqual({ shanghai: { type: 'nacos', zone: 'zoneA', preferred: true }, beijing: { type: 'zookeeper', zone: 'zoneB' } });
  });

  it('maps threadpool=eager (the protocol\'s over the provider\'s, as threads) and treats the other pools as fixed (issue 39)', () => {
    const r = importConfig('dubbo.provider.threadpool=fixed\ndubbo.protocol.threadpool=eager\ndubbo.protocol.threads=500\n', 'dubbo.properties');
    expect(r.providers?.[0]).toMatchObject({ threadpool: 'eager', threads: 500 });
    const cached = importConfig('dubbo.protocol.threadpool=cached\n', 'dubbo.properties');
    expect(cached.providers).toBeUndefined();
    expect(cached.ignored[0]!.reason).toBe(`zonesim models Dubbo's fixed and eager pools (threads, queues); "cached" is treated as fixed`);
  });

  it('keeps mock on consumer defaults, references and methods (MockClusterInvoker reads it from the consumer URL)', () => {
    const r = importConfig(
      'dubbo.consumer.mock=fail:return null\ndubbo.reference.com.example.AccountService.mock=force:return 0\ndubbo.reference.com.example.AccountService.getBalance.mock=true\n',
      'dubbo.properties',
    );
    expect(r.ignored).toEqual([]);
    expect(r.consumers?.[0]).toMatchObject({
      consumerDefaults: { mock: 'fail:return null' },
      reference: { 'com.example.AccountService': { mock: 'force:return 0', methods: { getBalance: { mock: 'true' } } } },
    });
  });
});
