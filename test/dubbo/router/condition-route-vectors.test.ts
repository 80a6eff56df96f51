/**
 * Every `condition-route` case of Dubbo's vectors (ConditionStateRouterTest, the v3.0 YAML
 * routers and ConditionStateRouterTestV31), run against the zonesim port.
 */
import { describe, expect, it } from 'vitest';
import { ConditionStateRouter } from '../../../src/dubbo/router/condition/condition-state-router.js';
import { parseConditionRule, type ConditionRouterScope } from '../../../src/dubbo/router/condition/condition-rule-router.js';
import { URL } from '../../../src/dubbo/url.js';
import { RandomStreams } from '../../../src/engine/random.js';
import cases from '../vectors/condition-route.json' with { type: 'json' };
import { indicesIn, invocationOf, invokersOf } from './fixtures.js';

interface ConditionCase {
  source: string;
  note: string;
  input: {
    op: 'matchWhen' | 'route' | 'routeDistribution';
    ruleFormat: 'url-rule' | 'yaml-v3.0' | 'yaml-v3.1';
    rule: string;
    force: boolean;
    enabled: boolean;
    routerScope?: string;
    consumerUrl: string;
    invocation: { methodName: string | null; arguments: unknown[] | null; attachments: Record<string, string> } | null;
    providers?: (string | null)[];
    runs?: number;
  };
  expected: { matchWhen?: boolean; providers?: (string | null)[]; indices?: number[]; count?: number; distinctResultSizes?: number[] };
}

const all = cases as unknown as ConditionCase[];

function routerFor(c: ConditionCase, seed = 1) {
  const runtime = { random: new RandomStreams(seed).stream('route') };
  if (c.input.ruleFormat === 'url-rule') {
    return new ConditionStateRouter(c.input.rule, { force: c.input.force, enabled: c.input.enabled, runtime });
  }
  return parseConditionRule(c.input.rule, { runtime, routerScope: c.input.routerScope as ConditionRouterScope | undefined });
}

const label = (c: ConditionCase, i: number) => `#${i} ${c.source.split('#')[1]}: ${c.input.rule.replaceAll('\n', ' ').slice(0, 70)}`;

describe('condition-route vectors', () => {
  it('hold every condition-route case of the shared vector file', () => {
    expect(all.length).toBe(29);
  });

  // The cases run below are picked by op; a case with another op would be skipped, not failed.
  it('give every case an op, and expected keys, that this file checks', () => {
    const checked: Record<string, string[]> = {
      matchWhen: ['matchWhen'],
      route: ['providers', 'indices', 'count'],
      routeDistribution: ['distinctResultSizes'],
    };
    for (const [name, c] of all.map((c, i) => [label(c, i), c] as const)) {
      expect(Object.keys(checked), name).toContain(c.input.op);
      expect(Object.keys(c.expected).sort(), name).toEqual([...checked[c.input.op]!].sort());
    }
  });

  const indexed = all.map((c, i) => [label(c, i), c] as const);

  it.each(indexed.filter(([, c]) => c.input.op === 'matchWhen'))('%s', (_name, c) => {
    const router = new ConditionStateRouter(c.input.rule, { force: c.input.force, enabled: c.input.enabled });
    expect(router.matchWhen(URL.valueOf(c.input.consumerUrl), invocationOf(c.input.invocation))).toBe(c.expected.matchWhen);
  });

  it.each(indexed.filter(([, c]) => c.input.op === 'route'))('%s', (_name, c) => {
    const invokers = invokersOf(c.input.providers!);
    const router = routerFor(c);
    const result = router.route(invokers, URL.valueOf(c.input.consumerUrl), invocationOf(c.input.invocation));
    expect(indicesIn(invokers, result.invokers)).toEqual(c.expected.indices);
    expect(indicesIn(invokers, result.invokers).map((i) => c.input.providers![i])).toEqual(c.expected.providers);
    expect(result.invokers.length).toBe(c.expected.count);
    expect(result.trace.before).toBe(invokers.length);
    expect(result.trace.after).toBe(c.expected.count);
  });

  it.each(indexed.filter(([, c]) => c.input.op === 'routeDistribution'))('%s', (_name, c) => {
    const invokers = invokersOf(c.input.providers!);
    const router = routerFor(c, 7);
    const consumer = URL.valueOf(c.input.consumerUrl);
    const sizes = new Set<number>();
    for (let i = 0; i < c.input.runs!; i++) sizes.add(router.route(invokers, consumer, invocationOf(c.input.invocation)).invokers.length);
    expect([...sizes].sort((a, b) => a - b)).toEqual([...c.expected.distinctResultSizes!].sort((a, b) => a - b));
  });
});
