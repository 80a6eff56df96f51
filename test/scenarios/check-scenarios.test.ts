import { describe, expect, it } from 'vitest';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkScenario } from '../../src/analysis/check.js';
import { main } from '../../src/cli/main.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { applyStrategy } from '../../src/scenario/strategies.js';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const path = (name: string) => fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url));
const load = (name: string) => loadScenarioWithRaw(path(name)).scenario;
/** `zonesim check` on one of the scenario's own strategies. */
const checkStrategy = (name: string, strategy: string) => {
  const scenario = load(name);
  return checkScenario(applyStrategy(scenario, scenario.strategies[strategy]!));
};

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s), cwd: root }, out, err };
}

describe('check on force-rule-no-provider', () => {
  it('flags the force: true rule as pushed, naming the condition router and its rule', () => {
    const { problems } = checkScenario(load('force-rule-no-provider.yaml'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      consumer: 'web',
      zone: 'dc',
      service: 'com.example.UserService',
      phase: { fromMs: 0, toMs: 30_000 },
      router: 'condition',
      providersBefore: 6,
      providersAfter: 0,
    });
    expect(problems[0]!.message).toContain('=> host = 10.0.1.*');
    expect(problems[0]!.message).toContain('force: true');
  });

  it('flags the force-true strategy the same way', () => {
    const { problems } = checkStrategy('force-rule-no-provider.yaml', 'force-true');
    expect(problems.map((p) => p.router)).toEqual(['condition']);
  });

  it('passes the force-false strategy: a rule that matches nobody is ignored', () => {
    const report = checkStrategy('force-rule-no-provider.yaml', 'force-false');
    expect(report.problems).toEqual([]);
    expect(report.phases[0]!.routes[0]!.providersAfter).toBe(6);
  });
});

describe('check on zone-scale-in', () => {
  it('flags the strict zone router for the zoneB consumers in the scale-in phase only', () => {
    const report = checkStrategy('zone-scale-in.yaml', 'strict');
    expect(report.phases.map((p) => [p.fromMs, p.toMs])).toEqual([
      [0, 30_000],
      [30_000, 60_000],
      [60_000, 90_000],
    ]);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatchObject({
      consumer: 'shop',
      zone: 'zoneB',
      service: 'com.example.CartService',
      phase: { fromMs: 30_000, toMs: 60_000 },
      router: 'zone',
      providersBefore: 4,
      providersAfter: 0,
    });
    expect(report.problems[0]!.message).toContain('no provider in zone zoneB');
  });

  it('passes the fallback variant: the zoneB consumers keep the zoneA providers', () => {
    const report = checkStrategy('zone-scale-in.yaml', 'fallback');
    expect(report.problems).toEqual([]);
    const zoneB = report.phases[1]!.routes.find((r) => r.zone === 'zoneB')!;
    expect([zoneB.providers, zoneB.providersAfter]).toEqual([4, 4]);
  });
});

describe('check on nacos-registry-partition', () => {
  it('flags the empty push of the zoneB-only service while zoneB is cut off, without empty protection', () => {
    const { problems } = checkStrategy('nacos-registry-partition.yaml', 'no-protection');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      zone: 'zoneA',
      service: 'com.example.InventoryService',
      phase: { fromMs: 30_000, toMs: 90_000 },
      router: 'registry',
    });
    expect(problems[0]!.message).toContain('forbidden');
  });

  it('passes it with empty protection: the consumers keep the old list', () => {
    expect(checkStrategy('nacos-registry-partition.yaml', 'empty-protection').problems).toEqual([]);
  });
});

describe('check on dual-zone-baseline', () => {
  it('finds no problem', () => {
    const report = checkScenario(load('dual-zone-baseline.yaml'));
    expect(report.problems).toEqual([]);
    expect(report.phases).toHaveLength(1);
  });
});

describe('zonesim check --strict exit codes', () => {
  it('exits 1 when there is a problem', async () => {
    const c = capture();
    expect(await main(['check', 'scenarios/force-rule-no-provider.yaml', '--strict'], c.io)).toBe(1);
    expect(c.out.join('')).toContain('problems (1)');
  });

  it('exits 0 when there is none', async () => {
    const c = capture();
    expect(await main(['check', 'scenarios/dual-zone-baseline.yaml', '--strict'], c.io)).toBe(0);
    expect(c.out.join('')).toContain('problems: none');
  });

  it('exits 0 with a problem when --strict is not given, and prints it as JSON with --json', async () => {
    const c = capture();
    expect(await main(['check', 'scenarios/zone-scale-in.yaml', '--json'], c.io)).toBe(0);
    const report = JSON.parse(c.out.join(''));
    // As written (strict) and its strict strategy; the fallback strategy has none.
    expect(report.problems.map((p: { strategy?: string; phase: { fromMs: number } }) => [p.strategy, p.phase.fromMs])).toEqual([
      [undefined, 30_000],
      ['strict', 30_000],
    ]);
  });

  it('exits 1 for the strict scale-in under --strict --json, still printing one JSON document', async () => {
    const c = capture();
    expect(await main(['check', 'scenarios/zone-scale-in.yaml', '--strict', '--json', '--no-strategies'], c.io)).toBe(1);
    expect(JSON.parse(c.out.join('')).problems).toHaveLength(1);
  });
});
