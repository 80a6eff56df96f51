/**
 * `zonesim check --strategies`: the scenario as written and each strategy checked (default: the
 * scenario's own), each with its overrides applied as `compare` applies them. A strategy's findings
 * carry its name; the text prints each distinct finding once, with where it was found.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { checkWithStrategies, mergeCheck, type CheckPlan, type CheckReport } from '../../src/analysis/check.js';
import { loadScenarioFile, parseScenario } from '../../src/scenario/load.js';
import { cli } from '../helpers/plugin-fixtures.js';

const load = (name: string) => loadScenarioFile(fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url)));

describe('a trap that lives only in a strategy', () => {
  it('zone-router-fallback: the strict strategy empties zoneB\'s list, the scenario as written does not', async () => {
    const r = await cli(['check', 'scenarios/zone-router-fallback.yaml', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(Object.keys(report)).toEqual(['problems', 'phases', 'warnings', 'strategies']);
    expect(report.problems.map((p: { strategy?: string; zone: string; router: string }) => [p.strategy, p.zone, p.router])).toEqual([['strict', 'zoneB', 'zone']]);
    expect(report.strategies.map((s: { name: string; phases: unknown[] }) => [s.name, s.phases.length])).toEqual([
      ['fallback', 1],
      ['strict', 1],
    ]);
  });

  it('fails --strict for it, unless the strategies are left out', async () => {
    expect((await cli(['check', 'scenarios/zone-router-fallback.yaml', '--strict'])).code).toBe(1);
    expect((await cli(['check', 'scenarios/zone-router-fallback.yaml', '--strict', '--strategies', 'fallback'])).code).toBe(0);
    const none = await cli(['check', 'scenarios/zone-router-fallback.yaml', '--strict', '--no-strategies', '--json']);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.out).strategies).toEqual([]);
  });
});

describe('which strategies', () => {
  it('checks the ones named, in that order, built-in names included', () => {
    const report = checkWithStrategies(load('zone-router-fallback.yaml'), ['strict', 'zone-router-strict']);
    expect(report.strategies.map((s) => s.name)).toEqual(['strict', 'zone-router-strict']);
    expect(report.problems.map((p) => p.strategy)).toEqual(['strict', 'zone-router-strict']);
  });

  it('refuses an unknown name with the valid ones (exit 2)', async () => {
    const r = await cli(['check', 'scenarios/zone-router-fallback.yaml', '--strategies', 'stirct']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--strategies: unknown strategy "stirct"; valid: fallback, strict, dubbo-default');
    expect(r.out).toBe('');
  });

  it('checks a scenario without strategies as written only', async () => {
    const report = JSON.parse((await cli(['check', 'scenarios/dual-zone-baseline.yaml', '--json'])).out);
    expect(report.strategies).toEqual([]);
  });
});

describe('provider overrides and pool load', () => {
  it('shared-pool-exhaustion: each strategy\'s pools as it sets them', () => {
    const report = checkWithStrategies(load('shared-pool-exhaustion.yaml'), ['shared-pool', 'static-isolation', 'executes-limit', 'retries-0']);
    const overload = report.warnings.filter((w) => w.kind === 'pool-overload').map((w) => [w.strategy, w.pool]);
    // retries 0 (1,050 threads wanted) and executes 20 per process (200 threads) keep the shared pool under 2,000.
    expect(overload).toEqual([
      [undefined, 'shared'],
      ['shared-pool', 'shared'],
      ['static-isolation', 'com.example.PaymentService'],
    ]);
  });
});

describe('findings', () => {
  it('a strategy that changes nothing has the scenario\'s findings', () => {
    const report = checkWithStrategies(load('shared-pool-exhaustion.yaml'), ['shared-pool']);
    const asWritten = report.warnings.filter((w) => w.strategy === undefined).map((w) => w.message);
    expect(asWritten).toHaveLength(1);
    expect(report.warnings.filter((w) => w.strategy === 'shared-pool').map((w) => w.message)).toEqual(asWritten);
    expect(report.strategies[0]!.phases).toEqual(report.phases);
  });

  it('keyed-rule warnings come once, from the scenario as written, which reads every strategy\'s routers', () => {
    const text = `
name: strategy-rule-key
duration: 10s
zones: { dc: { cidr: 10.0.0.0/16 } }
services: { com.example.S: { methods: { m: { serviceTime: 2ms } } } }
providers: [{ name: s, service: com.example.S, zone: dc, count: 2 }]
consumers: [{ application: web, zone: dc, rate: 10/s, calls: { com.example.S.m: 1 } }]
strategies:
  typo:
    routers: [{ type: condition, rule: { scope: service, key: com.example.T, force: true, conditions: ["=> host = 10.9.9.9"] } }]
`;
    const report = checkWithStrategies(parseScenario(text, 'strategy-rule-key.yaml'), ['typo']);
    expect(report.warnings.filter((w) => w.kind === 'rule-key-unmatched').map((w) => [w.strategy, w.rule])).toEqual([[undefined, 'strategies.typo.routers[0]']]);
  });

  it('the text prints each distinct finding once with where it was found, and only the routes a strategy changes', async () => {
    const r = await cli(['check', 'scenarios/zone-scale-in.yaml']);
    expect(r.out).toContain('check zone-scale-in: 3 phases, 2 consumer groups; as written and strategies strict, fallback');
    expect(r.out).toMatch(/strategy strict \([^)]*\): every route as the scenario as written\n/);
    expect(r.out).toContain(
      'routes that differ from the scenario as written:\n  phase 2: 30s - 60s\n    shop (zoneB) -> com.example.CartService: 4 providers\n      getCart [no attachments]: mock 4 -> tag 4 -> zone 4\n',
    );
    expect(r.out).toContain('problems (1):\n  [as written, strict] shop (zoneB) -> com.example.CartService, 30s - 60s, zone:');
  });

  it('the JSON lists a finding per checked scenario: absent strategy for the scenario as written, the name for a strategy', async () => {
    const report = JSON.parse((await cli(['check', 'scenarios/zone-scale-in.yaml', '--json'])).out);
    expect(report.problems.map((p: { strategy?: string; phase: { fromMs: number } }) => [p.strategy ?? null, p.phase.fromMs])).toEqual([
      [null, 30_000],
      ['strict', 30_000],
    ]);
    expect('strategy' in report.problems[0]).toBe(false);
  });
});

describe('mergeCheck at the size of a wide estate', () => {
  it('keeps every problem of a strategy that finds more than a call takes arguments (200,000)', () => {
    const problem = { consumer: 'w', zone: 'zoneA', service: 'S', phase: { fromMs: 0, toMs: 1 }, router: 'condition', providersBefore: 2, providersAfter: 0, message: 'm' };
    const own: CheckReport = { problems: [], phases: [], warnings: [], strategies: [] };
    const wide: CheckReport = { problems: Array.from({ length: 200_000 }, (_, i) => ({ ...problem, consumer: `w${i}` })), phases: [], warnings: [], strategies: [] };
    const plan = { jobs: [], strategies: [{ name: 'forced', description: '', job: 1 }] } as unknown as CheckPlan;
    const merged = mergeCheck(plan, [own, wide]);
    expect(merged.problems).toHaveLength(200_000);
    expect(merged.problems[199_999]).toMatchObject({ consumer: 'w199999', strategy: 'forced' });
  });
});
