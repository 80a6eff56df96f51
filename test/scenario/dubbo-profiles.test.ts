/** SPEC 2.11 `dubbo:` profiles: parsing, resolution per group (release defaults, top level, group, strategy), errors, dump. */
import { describe, expect, it } from 'vitest';
import { DUBBO_2_7, DUBBO_3_3 } from '../../src/dubbo/release.js';
import { dumpScenarioYaml } from '../../src/scenario/dump.js';
import { defaultProfile, resolveProfile } from '../../src/scenario/dubbo-profiles.js';
import { parseScenario } from '../../src/scenario/load.js';
import { applyStrategy } from '../../src/scenario/strategies.js';
import { releaseOf } from '../../src/stack/dubbo-release.js';
import { scenarioErrorOf } from '../helpers/scenario-error.js';

const BASE = `zones:
  dc: { cidr: 10.0.0.0/16 }
services:
  com.example.OrderService:
    methods:
      place: { serviceTime: 2ms }
providers:
  - { name: order-old, service: com.example.OrderService, zone: dc }
  - { name: order-new, service: com.example.OrderService, zone: dc }
consumers:
  - { application: web, zone: dc, rate: 10/s, calls: { com.example.OrderService.place: 1 } }
`;

const parse = (extra: string[]) => parseScenario(BASE, 'p.yaml', extra);

const errorOf = (extra: string[]) => scenarioErrorOf(BASE, 'p.yaml', extra);

describe('dubbo: release profiles', () => {
  it('default to 3.3 everywhere: the 3.3 registry path (5 s delay-notification, Nacos 2.x, register-mode all, APPLICATION_FIRST) and the port\'s 3.3 switches', () => {
    const s = parse([]);
    for (const g of [...s.providers, ...s.consumers]) {
      expect(g.dubbo).toEqual(defaultProfile('3.3'));
      expect(g.dubbo).toMatchObject({ version: '3.3', delayNotificationMs: 5000, nacosClient: '2.x', registerMode: 'all', migrationStep: 'APPLICATION_FIRST' });
      expect(releaseOf(g.dubbo)).toEqual(DUBBO_3_3);
    }
  });

  it("'2.7' gives 2.7.23's: no notification delay, Nacos 1.x, interface level, and the port's 2.7 switches", () => {
    const s = parse(["dubbo='2.7'"]);
    for (const g of [...s.providers, ...s.consumers]) {
      expect(g.dubbo).toMatchObject({ version: '2.7', delayNotificationMs: 0, nacosClient: '1.x', registerMode: 'interface', migrationStep: 'FORCE_INTERFACE' });
      expect(releaseOf(g.dubbo)).toEqual(DUBBO_2_7);
    }
    expect(releaseOf(s.consumers[0]!.dubbo).text).toBe('2.7.23');
  });

  it('accepts YAML\'s unquoted 2.7 (a number) and patch releases of the two modelled lines', () => {
    expect(parse(['dubbo=2.7']).consumers[0]!.dubbo.version).toBe('2.7');
    expect(parse(['dubbo=2.7.23']).consumers[0]!.dubbo.version).toBe('2.7');
    expect(parse(['dubbo=3.3.1']).consumers[0]!.dubbo.version).toBe('3.3');
  });

  it('lets a group run another release than the estate (a migration), the group winning', () => {
    const s = parse(["dubbo='3.3'", "providers[0].dubbo='2.7'", "providers[1].dubbo={ version: '3.3', registerMode: all }"]);
    expect(s.providers[0]!.dubbo.version).toBe('2.7');
    expect(s.providers[0]!.dubbo.registerMode).toBe('interface');
    expect(s.providers[1]!.dubbo.version).toBe('3.3');
    expect(s.providers[1]!.dubbo.registerMode).toBe('all');
  });

  it('takes each switch on its own: top-level switches apply to every group, a group\'s own switches win', () => {
    const s = parse(['dubbo={delayNotification: 0s, timeoutDetection: timer}', 'consumers[0].dubbo={version: "2.7", timeoutDetection: exact, shortestResponseWindow: lifetime}']);
    const web = s.consumers[0]!.dubbo;
    expect(web.version).toBe('2.7');
    expect(web.timeoutDetection).toBe('exact');
    expect(web.delayNotificationMs).toBe(0);
    expect(web.shortestResponseWindowMs).toBe(Infinity);
    // 2.7's other defaults stay.
    expect(web.reselect).toBe('all');
    const old = s.providers[0]!.dubbo;
    expect(old.version).toBe('3.3');
    expect(old.timeoutDetection).toBe('timer');
    expect(old.delayNotificationMs).toBe(0);
    expect(old.reselect).toBe('sample');
  });

  it('refuses other releases and unknown switches, naming the field', () => {
    const bad = errorOf(["dubbo='3.2'"]);
    expect(bad.path).toBe('dubbo');
    expect(bad.message).toContain("expected a Dubbo release: '3.3' or '2.7'");
    expect(bad.message).toContain('"3.2"');
    const typo = errorOf(['consumers[0].dubbo={delayNotifcation: 5s}']);
    expect(typo.path).toBe('consumers[0].dubbo.delayNotifcation');
    const value = errorOf(['providers[1].dubbo={nacosClient: "3.x"}']);
    expect(value.path).toBe('providers[1].dubbo.nacosClient');
    expect(value.message).toContain('expected 1.x or 2.x');
  });

  it('a strategy\'s dubbo applies over every group\'s own settings', () => {
    const s = parse(["providers[0].dubbo={version: '2.7', tpsLimit: returned}", 'strategies={on-2-7: {dubbo: {version: "2.7"}}, quiet: {dubbo: {delayNotification: 0s}}}']);
    const on27 = applyStrategy(s, s.strategies['on-2-7']!);
    for (const g of [...on27.providers, ...on27.consumers]) expect(g.dubbo.version).toBe('2.7');
    expect(on27.providers[0]!.dubbo.tpsLimit).toBe('returned');
    expect(on27.providers[1]!.dubbo.tpsLimit).toBe('thrown');
    const quiet = applyStrategy(s, s.strategies.quiet!);
    expect(quiet.consumers[0]!.dubbo).toEqual({ ...defaultProfile('3.3'), delayNotificationMs: 0 });
    expect(quiet.providers[0]!.dubbo.version).toBe('2.7');
  });

  it('resolves later layers over earlier ones, the last release named deciding the defaults', () => {
    expect(resolveProfile({ version: '2.7' }, undefined, { reselect: 'sample' })).toEqual({ ...defaultProfile('2.7'), reselect: 'sample' });
    expect(resolveProfile({ version: '2.7', reselect: 'sample' }, { version: '3.3' }).reselect).toBe('sample');
    expect(resolveProfile().version).toBe('3.3');
  });

  it('survives the dump round trip', () => {
    const s = parse(['dubbo={version: "2.7", shortestResponseWindow: lifetime}', "providers[1].dubbo={version: '3.3', delayNotification: 2s}", 'strategies={v33: {dubbo: "3.3"}}']);
    expect(parseScenario(dumpScenarioYaml(s), 'dumped.yaml')).toEqual(s);
  });
});
