/**
 * Every `tag-route` case of Dubbo's vectors (TagStateRouterTest): static-tag routing,
 * selectAddressByTagLevel and rule parsing, run against the zonesim port.
 */
import { describe, expect, it } from 'vitest';
import { parseTagRule } from '../../../src/dubbo/router/tag/tag-router-rule.js';
import { selectAddressByTagLevel, TagStateRouter } from '../../../src/dubbo/router/tag/tag-state-router.js';
import { URL } from '../../../src/dubbo/url.js';
import cases from '../vectors/tag-route.json' with { type: 'json' };
import { indicesIn, invocationOf, invokersOf } from './fixtures.js';

interface TagCase {
  source: string;
  note: string;
  input: Record<string, unknown> & { op: 'route' | 'selectAddressByTagLevel' | 'parseRule' };
  expected: Record<string, unknown>;
}

const all = cases as unknown as TagCase[];
const indexed = all.map((c, i) => [`#${i} ${c.input.op}: ${c.note.slice(0, 60)}`, c] as const);

describe('tag-route vectors', () => {
  it('hold every tag-route case of the shared vector file', () => {
    expect(all.length).toBe(7);
  });

  // The cases run below are picked by op; a case with another op would be skipped, not failed.
  it('give every case an op, and expected keys, that this file checks', () => {
    const checked: Record<string, string[]> = {
      route: ['providers', 'indices', 'count'],
      selectAddressByTagLevel: ['addresses'],
      parseRule: ['key', 'priority', 'tagNames', 'tagnameToAddresses', 'allAddresses'],
    };
    for (const [name, c] of indexed) {
      expect(Object.keys(checked), name).toContain(c.input.op);
      expect(Object.keys(c.expected).sort(), name).toEqual([...checked[c.input.op]!].sort());
    }
  });

  it.each(indexed.filter(([, c]) => c.input.op === 'route'))('%s', (_name, c) => {
    const input = c.input as unknown as { dynamicRule: string | null; consumerUrl: string; invocation: { attachments: Record<string, string> }; providers: (string | null)[] };
    const invokers = invokersOf(input.providers);
    const router = new TagStateRouter(input.dynamicRule);
    router.notify(invokers);
    const result = router.route(invokers, URL.valueOf(input.consumerUrl), invocationOf(input.invocation));
    expect(indicesIn(invokers, result.invokers)).toEqual(c.expected.indices);
    expect(indicesIn(invokers, result.invokers).map((i) => input.providers[i])).toEqual(c.expected.providers);
    expect(result.invokers.length).toBe(c.expected.count);
  });

  it.each(indexed.filter(([, c]) => c.input.op === 'selectAddressByTagLevel'))('%s', (_name, c) => {
    const input = c.input as unknown as { tagnameToAddresses: Record<string, string[]>; tagSelector: string; isForce: boolean };
    const map = new Map(Object.entries(input.tagnameToAddresses).map(([k, v]) => [k, new Set(v)]));
    const addresses = selectAddressByTagLevel(map, input.tagSelector, input.isForce);
    const expected = c.expected.addresses as string[] | null;
    expect(addresses === null ? null : [...addresses].sort()).toEqual(expected === null ? null : [...expected].sort());
  });

  it.each(indexed.filter(([, c]) => c.input.op === 'parseRule'))('%s', (_name, c) => {
    const input = c.input as unknown as { rule: string; providers: string[] };
    const rule = parseTagRule(input.rule);
    rule.init(invokersOf(input.providers));
    const e = c.expected as { key: string; priority: number; tagNames: string[]; tagnameToAddresses: Record<string, string[] | null>; allAddresses: string[] };
    expect(rule.meta.key).toBe(e.key);
    expect(rule.meta.priority).toBe(e.priority);
    expect(rule.getTagNames()).toEqual(e.tagNames);
    const map = rule.getTagnameToAddresses();
    // A tag expected with null addresses has no entry; the map holds exactly the others.
    const listed = Object.entries(e.tagnameToAddresses).filter(([, a]) => a !== null).map(([name]) => name);
    expect(listed).not.toEqual([]);
    expect([...map.keys()].sort()).toEqual(listed.sort());
    for (const [name, addresses] of Object.entries(e.tagnameToAddresses)) {
      const got = map.get(name);
      expect(got === undefined ? null : [...got].sort()).toEqual(addresses === null ? null : [...addresses].sort());
    }
    expect([...rule.getAddresses()].sort()).toEqual([...e.allAddresses].sort());
  });
});
