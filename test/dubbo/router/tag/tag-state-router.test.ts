/**
 * The tag router's rules and fallbacks (reference 3.5): static tags, dynamic address and match
 * tags, force, dubbo.force.tag, multi-level tags and re-initialisation on notify.
 */
import { describe, expect, it } from 'vitest';
import { TagStateRouter } from '../../../../src/dubbo/router/tag/tag-state-router.js';
import { parseTagRule } from '../../../../src/dubbo/router/tag/tag-router-rule.js';
import { RouterRuleError } from '../../../../src/dubbo/router/router-rule-error.js';
import { markSubList, VersionChain } from '../../../../src/dubbo/per-list.js';
import { RandomStreams } from '../../../../src/engine/random.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { ServiceAddressURL, URL } from '../../../../src/dubbo/url.js';
import { indicesIn, invokersOf, UrlInvoker } from '../fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.5/com.example.UserService?application=web');
// 0: static gray, 1: untagged, 2: untagged, 3: static canary
const PROVIDERS = [
  'dubbo://10.0.0.1:20880/com.example.UserService?dubbo.tag=gray&env=gray',
  'dubbo://10.0.0.2:20880/com.example.UserService?env=normal',
  'dubbo://10.0.0.3:20880/com.example.UserService?env=beta',
  'dubbo://10.0.0.4:20880/com.example.UserService?dubbo.tag=canary',
];
const call = (attachments: Record<string, string> = {}) => new RpcInvocation({ methodName: 'getUser', attachments });

function routeIdx(rule: string | null, attachments: Record<string, string> = {}, consumer = CONSUMER): number[] {
  const invokers = invokersOf(PROVIDERS);
  const router = new TagStateRouter(rule);
  router.notify(invokers);
  return indicesIn(invokers, router.route(invokers, consumer, call(attachments)).invokers);
}

const GRAY_RULE = 'force: false\ntags:\n  - name: blue\n    addresses: ["10.0.0.2:20880"]';

describe('TagStateRouter with static tags only', () => {
  it('keeps the providers carrying the requested tag', () => {
    expect(routeIdx(null, { 'dubbo.tag': 'gray' })).toEqual([0]);
  });

  it('never sends untagged traffic to tagged providers', () => {
    expect(routeIdx(null)).toEqual([1, 2]);
  });

  it('routes a part of a list (providers set aside by a directory) as that list alone', () => {
    const all = invokersOf(PROVIDERS);
    const router = new TagStateRouter(null);
    router.notify(all);
    for (const keep of [[0, 1, 2, 3], [1, 2, 3], [0, 2], [2], [3]]) {
      const part = keep.map((i) => all[i]!);
      markSubList(part, all);
      // An untagged call keeps the untagged providers of the part: never a tagged one.
      expect(indicesIn(all, router.route(part, CONSUMER, call()).invokers), `${keep}`).toEqual(keep.filter((i) => i === 1 || i === 2));
    }
    const untagged = [all[1]!, all[2]!];
    const fewer = [all[2]!];
    markSubList(untagged, all);
    markSubList(fewer, untagged);
    expect(router.route(fewer, CONSUMER, call()).invokers).toEqual(fewer);
  });

  it('falls back to untagged providers (not all) when no provider has the tag', () => {
    expect(routeIdx(null, { 'dubbo.tag': 'missing' })).toEqual([1, 2]);
  });

  it('returns no provider for a missing tag with dubbo.force.tag=true', () => {
    expect(routeIdx(null, { 'dubbo.tag': 'missing', 'dubbo.force.tag': 'true' })).toEqual([]);
  });

  it('takes the tag from the consumer URL when the call has none', () => {
    expect(routeIdx(null, {}, CONSUMER.addParameters({ 'dubbo.tag': 'canary' }))).toEqual([3]);
  });

  it('takes dubbo.force.tag from the consumer URL when the call has none', () => {
    expect(routeIdx(null, { 'dubbo.tag': 'missing' }, CONSUMER.addParameters({ 'dubbo.force.tag': 'true' }))).toEqual([]);
  });

  it("reads the provider's dubbo.tag even when the consumer sets its own (provider-first)", () => {
    const consumer = CONSUMER.addParameters({ 'dubbo.tag': 'gray' });
    const invokers = PROVIDERS.map((p) => new UrlInvoker(new ServiceAddressURL(URL.valueOf(p), consumer)));
    const router = new TagStateRouter();
    router.notify(invokers);
    expect(indicesIn(invokers, router.route(invokers, consumer, call()).invokers)).toEqual([0]);
  });

  it('uses static tags when the dynamic rule is disabled', () => {
    expect(routeIdx(`enabled: false\n${GRAY_RULE}`, { 'dubbo.tag': 'blue' })).toEqual([1, 2]);
  });
});

describe('TagStateRouter with a dynamic rule', () => {
  it('routes a tagged call to the rule addresses', () => {
    expect(routeIdx(GRAY_RULE, { 'dubbo.tag': 'blue' })).toEqual([1]);
  });

  it('returns the empty address match when the rule has force: true', () => {
    const rule = 'force: true\ntags:\n  - name: blue\n    addresses: ["10.9.9.9:20880"]';
    expect(routeIdx(rule, { 'dubbo.tag': 'blue' })).toEqual([]);
  });

  it('falls back to providers in no dynamic tag and with no static tag when the addresses match nobody', () => {
    const rule = 'tags:\n  - name: blue\n    addresses: ["10.9.9.9:20880"]\n  - name: red\n    addresses: ["10.0.0.2:20880"]';
    expect(routeIdx(rule, { 'dubbo.tag': 'blue' })).toEqual([2]);
  });

  it('uses the static dubbo.tag for a tag the rule does not name', () => {
    expect(routeIdx(GRAY_RULE, { 'dubbo.tag': 'canary' })).toEqual([3]);
  });

  it('keeps an untagged call away from dynamic and static tagged providers', () => {
    expect(routeIdx(GRAY_RULE)).toEqual([2]);
  });

  it('returns no provider for an untagged call when every provider is in a dynamic tag, even without force', () => {
    const rule = 'tags:\n  - name: all\n    addresses: ["10.0.0.0/24"]';
    expect(routeIdx(rule)).toEqual([]);
  });

  it('matches addresses with IP expressions and 0.0.0.0:port', () => {
    expect(routeIdx('tags:\n  - name: t\n    addresses: ["10.0.0.2-3:20880"]', { 'dubbo.tag': 't' })).toEqual([1, 2]);
    expect(routeIdx('tags:\n  - name: t\n    addresses: ["0.0.0.0:20880"]', { 'dubbo.tag': 't' })).toEqual([0, 1, 2, 3]);
  });

  it('skips a malformed address pattern and keeps checking the others', () => {
    expect(routeIdx('tags:\n  - name: t\n    addresses: ["not-an-ip", "10.0.0.3"]', { 'dubbo.tag': 't' })).toEqual([2]);
  });

  it('selects the longest non-empty prefix of a multi-level tag', () => {
    const rule = 'tags:\n  - name: beta\n    addresses: ["10.0.0.2:20880"]\n  - name: beta|team1\n    addresses: ["10.0.0.3:20880"]';
    expect(routeIdx(rule, { 'dubbo.tag': 'beta|team1|p1' })).toEqual([2]);
    expect(routeIdx(rule, { 'dubbo.tag': 'beta|team2' })).toEqual([1]);
  });

  it('looks a multi-level tag up exactly when dubbo.force.tag=true', () => {
    const rule = 'tags:\n  - name: beta\n    addresses: ["10.0.0.2:20880"]';
    expect(routeIdx(rule, { 'dubbo.tag': 'beta|team2', 'dubbo.force.tag': 'true' })).toEqual([]);
  });

  it('builds v3.0 match tags from the providers original parameters', () => {
    const rule = 'configVersion: v3.0\ntags:\n  - name: beta\n    match:\n      - key: env\n        value: { prefix: be }';
    expect(routeIdx(rule, { 'dubbo.tag': 'beta' })).toEqual([2]);
  });

  it('ignores match tags in rules without configVersion v3.0', () => {
    const rule = 'tags:\n  - name: beta\n    match:\n      - key: env\n        value: { exact: beta }';
    expect(routeIdx(rule, { 'dubbo.tag': 'beta' })).toEqual([1, 2]);
  });

  it('recomputes match tags when the address list changes', () => {
    const rule = 'configVersion: v3.0\ntags:\n  - name: beta\n    match:\n      - key: env\n        value: { exact: beta }';
    const router = new TagStateRouter(rule);
    const first = invokersOf(PROVIDERS.slice(0, 2));
    router.notify(first);
    expect(router.route(first, CONSUMER, call({ 'dubbo.tag': 'beta' })).invokers).toEqual([first[1]]);
    const second = invokersOf(PROVIDERS);
    router.notify(second);
    expect(indicesIn(second, router.route(second, CONSUMER, call({ 'dubbo.tag': 'beta' })).invokers)).toEqual([2]);
  });

  it('explains the fallback in its trace', () => {
    const invokers = invokersOf(PROVIDERS);
    const router = new TagStateRouter();
    router.notify(invokers);
    const trace = router.route(invokers, CONSUMER, call({ 'dubbo.tag': 'missing' })).trace;
    expect(trace).toMatchObject({ router: 'tag', rule: 'dubbo.tag=missing', before: 4, after: 2 });
    expect(trace.note).toContain('fell back to the 2 untagged providers');
  });
});

describe('tag rule parsing', () => {
  it('reports a rule without tags', () => {
    expect(() => parseTagRule('force: true')).toThrow(/tags: expected a non-empty list/);
  });

  it('reports a tag without a name', () => {
    expect(() => parseTagRule('tags:\n  - addresses: ["1.1.1.1"]')).toThrow(RouterRuleError);
  });

  it('reports invalid YAML', () => {
    expect(() => parseTagRule('tags: [')).toThrow(/tag rule: invalid YAML/);
  });

  it('reports an invalid match regex', () => {
    expect(() => parseTagRule('configVersion: v3.0\ntags:\n  - name: a\n    match:\n      - key: k\n        value: { regex: "(" }')).toThrow(
      /not a valid regular expression/,
    );
  });
});

describe('TagStateRouter over list versions (static tags read only for providers new to a list)', () => {
  it('keeps exactly the untagged providers of each version, as filtering it from scratch does', () => {
    const rng = new RandomStreams(8).stream('test-choices');
    // Mostly untagged providers; now and then a tagged one comes into the list.
    const pool = invokersOf(
      Array.from({ length: 200 }, (_, i) => `dubbo://10.0.${i >> 8}.${i & 255}:20880/com.example.UserService${i % 23 === 0 ? '?dubbo.tag=gray' : ''}`),
    );
    const untagged = pool.filter((inv) => inv.getUrl().getParameter('dubbo.tag') === undefined);
    const chain = new VersionChain();
    let current = untagged.slice(0, 60);
    let routedWithTag = 0;
    for (let step = 0; step < 600; step++) {
      const next = current.filter(() => rng.nextInt(30) > 0);
      for (let k = rng.nextInt(3); k > 0; k--) {
        const from = rng.nextInt(6) === 0 ? pool : untagged;
        const inv = from[rng.nextInt(from.length)]!;
        if (!next.includes(inv)) next.splice(rng.nextInt(next.length + 1), 0, inv);
      }
      if (next.length === 0) continue;
      current = next;
      chain.add(current);
      const router = new TagStateRouter(null);
      router.notify(current);
      const routed = router.route(current, CONSUMER, call()).invokers;
      const plain = current.filter((inv) => inv.getUrl().getParameter('dubbo.tag') === undefined);
      expect(routed, `step ${step}`).toEqual(plain);
      // The same list object when nothing is left out, as Dubbo's filter hands back the list itself.
      if (plain.length === current.length) expect(routed).toBe(current);
      else routedWithTag++;
    }
    expect(routedWithTag).toBeGreaterThan(50);
  });
});
