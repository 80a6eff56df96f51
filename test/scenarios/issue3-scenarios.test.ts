import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { applyStrategy } from '../../src/scenario/strategies.js';

const path = (name: string) => fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url));
const load = (name: string, overrides: string[] = []) => loadScenarioWithRaw(path(name), overrides).scenario;
const run = (scenario: ReturnType<typeof load>) => runScenario(scenario, { version: 'test' }).summary;

describe('force-rule-no-provider', () => {
  const scenario = load('force-rule-no-provider.yaml');

  it('fails every call with No provider available when the rule is force: true, and names the condition router', () => {
    const s = run(applyStrategy(scenario, scenario.strategies['force-true']!));
    expect(s.requests).toBeGreaterThan(10_000);
    expect(s.outcomes.noProvider).toBe(s.requests);
    expect(s.noProviderCauses).toEqual({ 'router:condition': s.requests });
    expect(s.providerExecutions).toBe(0);
    // Dubbo's "The route result is empty and force execute" warning, counted.
    expect(s.events['router.forceEmpty']).toBeGreaterThanOrEqual(s.requests);
  });

  it('succeeds on every call when the same rule is force: false (an empty result ignores the rule)', () => {
    const s = run(applyStrategy(scenario, scenario.strategies['force-false']!));
    expect(s.ok).toBe(s.requests);
    expect(s.noProviderRate).toBe(0);
  });
});

describe('zone-router-fallback', () => {
  const scenario = load('zone-router-fallback.yaml');

  it('leaves the zoneB consumers with No provider available under the strict router', () => {
    const s = run(applyStrategy(scenario, scenario.strategies.strict!));
    const zoneB = s.byConsumerZone.zoneB!;
    expect(zoneB.outcomes.noProvider).toBe(zoneB.requests);
    expect(zoneB.noProviderCauses).toEqual({ 'router:zone': zoneB.requests });
    expect(s.byConsumerZone.zoneA!.ok).toBe(s.byConsumerZone.zoneA!.requests);
  });

  it('sends every zoneB call across zones, successfully, when the router falls back', () => {
    const s = run(applyStrategy(scenario, scenario.strategies.fallback!));
    const zoneB = s.byConsumerZone.zoneB!;
    expect(zoneB.ok).toBe(zoneB.requests);
    expect(zoneB.crossZoneRatio).toBe(1);
    expect(s.byConsumerZone.zoneA!.crossZoneRatio).toBe(0);
  });
});

describe('canary-tag', () => {
  it('gives the canary provider the tagged share of the traffic: 5% within sampling error', () => {
    const s = run(load('canary-tag.yaml'));
    const canary = s.byProviderGroup['price-canary']!.executions;
    const stable = s.byProviderGroup['price-stable']!.executions;
    const n = canary + stable;
    const share = canary / n;
    // Binomial standard error sqrt(p(1-p)/n) ~ 0.0009 at n ~ 60000; allow 4 of them.
    expect(Math.abs(share - 0.05)).toBeLessThan(4 * Math.sqrt((0.05 * 0.95) / n));
    expect(s.ok).toBe(s.requests);
  });

  it('sends every request to the canary when every request is tagged, and none to the stable providers', () => {
    const s = run(load('canary-tag.yaml', ['consumers[0].attachments["dubbo.tag"].fraction=1', 'duration=10s']));
    expect(s.byProviderGroup['price-stable']!.executions).toBe(0);
    expect(s.byProviderGroup['price-canary']!.executions).toBeGreaterThan(9000);
    expect(s.ok).toBe(s.requests);
  });

  it('never sends untagged traffic to the canary', () => {
    const s = run(load('canary-tag.yaml', ['consumers[0].attachments["dubbo.tag"].fraction=0', 'duration=10s']));
    expect(s.byProviderGroup['price-canary']!.executions).toBe(0);
    expect(s.ok).toBe(s.requests);
  });
});
