/**
 * What the tag router says it did: for every branch of TagStateRouter.route (static tags, dynamic
 * addresses, force, dubbo.force.tag, fallbacks, Dubbo 2.7), the providers it keeps and the trace entry
 * (`zonesim route` and the route traces show it), including why no dynamic rule is in force.
 */
import { describe, expect, it } from 'vitest';
import { TagStateRouter } from '../../../../src/dubbo/router/tag/tag-state-router.js';
import { DUBBO_2_7 } from '../../../../src/dubbo/release.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { URL } from '../../../../src/dubbo/url.js';
import { indicesIn, invokersOf } from '../fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.5/com.example.UserService?application=web');
// 0: static gray, 1: untagged, 2: untagged, 3: static canary; all of application users.
const PROVIDERS = [
  'dubbo://10.0.0.1:20880/com.example.UserService?application=users&dubbo.tag=gray',
  'dubbo://10.0.0.2:20880/com.example.UserService?application=users',
  'dubbo://10.0.0.3:20880/com.example.UserService?application=users',
  'dubbo://10.0.0.4:20880/com.example.UserService?application=users&dubbo.tag=canary',
];
const call = (attachments: Record<string, string> = {}) => new RpcInvocation({ methodName: 'getUser', attachments });
const BLUE_RULE = 'tags:\n  - name: blue\n    addresses: ["10.0.0.2:20880"]';

/** Routes one call through a fresh router notified of PROVIDERS: the kept indexes and the trace entry. */
function routed(
  setup: string | null | ((router: TagStateRouter) => void),
  attachments: Record<string, string> = {},
  options: { consumer?: URL; release?: typeof DUBBO_2_7 } = {},
) {
  const invokers = invokersOf(PROVIDERS);
  const router = new TagStateRouter(typeof setup === 'function' ? null : setup, { release: options.release });
  if (typeof setup === 'function') setup(router);
  router.notify(invokers);
  const result = router.route(invokers, options.consumer ?? CONSUMER, call(attachments));
  return { kept: indicesIn(invokers, result.invokers), trace: result.trace };
}

describe('the tag router without a dynamic rule', () => {
  it('says so, and how many untagged providers an untagged call keeps', () => {
    expect(routed(null)).toEqual({
      kept: [1, 2],
      trace: { router: 'tag', rule: undefined, before: 4, after: 2, note: 'no dynamic tag rule; no tag requested: 2 of 4 providers carry no tag' },
    });
  });

  it('says how many providers carry the requested static tag', () => {
    expect(routed(null, { 'dubbo.tag': 'gray' })).toEqual({
      kept: [0],
      trace: { router: 'tag', rule: 'dubbo.tag=gray', before: 4, after: 1, note: 'no dynamic tag rule; tag gray: 1 of 4 providers carry it' },
    });
  });

  it('says that dubbo.force.tag=true leaves no fallback for a tag nobody carries', () => {
    expect(routed(null, { 'dubbo.tag': 'blue', 'dubbo.force.tag': 'true' })).toEqual({
      kept: [],
      trace: {
        router: 'tag',
        rule: 'dubbo.tag=blue',
        before: 4,
        after: 0,
        note: 'no dynamic tag rule; tag blue: no provider carries it and dubbo.force.tag=true, so no fallback',
      },
    });
  });

  it('says it fell back to the untagged providers', () => {
    expect(routed(null, { 'dubbo.tag': 'blue' }).trace.note).toBe('no dynamic tag rule; tag blue: no provider carries it; fell back to the 2 untagged providers');
  });

  it('says that no provider reached it when the list is empty', () => {
    const router = new TagStateRouter(BLUE_RULE);
    expect(router.route([], CONSUMER, call({ 'dubbo.tag': 'blue' }))).toEqual({
      invokers: [],
      trace: { router: 'tag', rule: 'dubbo.tag=blue', before: 0, after: 0, note: 'no provider reached the tag router' },
    });
  });

  it('names the disabled rule, and the invalid one, as the reason static tags decide', () => {
    for (const rule of [`enabled: false\n${BLUE_RULE}`, `valid: false\n${BLUE_RULE}`]) {
      expect(routed(rule, { 'dubbo.tag': 'blue' }), rule).toEqual({
        kept: [1, 2],
        trace: {
          router: 'tag',
          rule: 'dubbo.tag=blue',
          before: 4,
          after: 2,
          note: 'the dynamic tag rule is disabled; tag blue: no provider carries it; fell back to the 2 untagged providers',
        },
      });
    }
  });
});

describe('the tag router with a dynamic rule', () => {
  it("says how many providers are in the rule's addresses", () => {
    expect(routed(BLUE_RULE, { 'dubbo.tag': 'blue' })).toEqual({
      kept: [1],
      trace: { router: 'tag', rule: 'dubbo.tag=blue', before: 4, after: 1, note: "tag blue: 1 of 4 providers in the rule's addresses" },
    });
  });

  it('says that a forced rule whose addresses match nobody leaves no provider', () => {
    const rule = 'force: true\ntags:\n  - name: blue\n    addresses: ["10.9.9.9:20880"]';
    expect(routed(rule, { 'dubbo.tag': 'blue' })).toEqual({
      kept: [],
      trace: { router: 'tag', rule: 'dubbo.tag=blue', before: 4, after: 0, note: "tag blue: none of 4 providers is in the rule's addresses, and the rule has force: true" },
    });
  });

  it('says when a tag the rule does not name is carried as a static tag', () => {
    expect(routed(BLUE_RULE, { 'dubbo.tag': 'canary' }).trace.note).toBe('tag canary is not in the rule: 1 of 4 providers carry it as a static dubbo.tag');
  });

  it('says that dubbo.force.tag=true leaves no fallback, for a tag in the rule and for one outside it', () => {
    const rule = 'tags:\n  - name: blue\n    addresses: ["10.9.9.9:20880"]';
    for (const tag of ['blue', 'violet']) {
      expect(routed(rule, { 'dubbo.tag': tag, 'dubbo.force.tag': 'true' }), tag).toEqual({
        kept: [],
        trace: { router: 'tag', rule: `dubbo.tag=${tag}`, before: 4, after: 0, note: `tag ${tag}: no provider carries it and dubbo.force.tag=true, so no fallback` },
      });
    }
  });

  it('falls back to the providers in no dynamic tag and with no static tag, and says how many', () => {
    expect(routed(BLUE_RULE, { 'dubbo.tag': 'violet' })).toEqual({
      kept: [2],
      trace: { router: 'tag', rule: 'dubbo.tag=violet', before: 4, after: 1, note: 'tag violet: no provider carries it; fell back to the 1 providers without any tag' },
    });
  });

  it('says how many providers an untagged call keeps', () => {
    expect(routed(BLUE_RULE)).toEqual({
      kept: [2],
      trace: { router: 'tag', rule: undefined, before: 4, after: 1, note: 'no tag requested: 1 of 4 providers carry no tag' },
    });
  });

  it('says that an untagged call finds every provider in a dynamic tag', () => {
    expect(routed('tags:\n  - name: all\n    addresses: ["10.0.0.0/24"]').trace.note).toBe(
      'no tag requested and every one of 4 providers is in a dynamic tag, so none is left (even without force)',
    );
  });

  it('keeps, for an untagged call, the untagged providers when the rule has only match tags nobody meets', () => {
    const rule = 'configVersion: v3.0\ntags:\n  - name: beta\n    match:\n      - key: env\n        value: { exact: beta }';
    expect(routed(rule).kept).toEqual([1, 2]);
  });

  it('says, under Dubbo 2.7, how many providers carry no tag the rule names', () => {
    const rule = 'tags:\n  - name: gray\n    addresses: ["10.0.0.2:20880"]';
    expect(routed(rule, {}, { release: DUBBO_2_7 })).toEqual({
      kept: [2, 3],
      trace: { router: 'tag', rule: undefined, before: 4, after: 2, note: 'no tag requested: 2 of 4 providers carry no tag the rule names (Dubbo 2.7)' },
    });
  });
});

describe('the tag router with published (keyed) rules', () => {
  const keyed = (key: string) => `key: ${key}\n${BLUE_RULE}`;

  it('says which keyed rule is in force: the one of the providers application', () => {
    expect(routed((r) => r.publishRule(keyed('users')), { 'dubbo.tag': 'blue' }).trace.note).toBe(
      "tag blue: 1 of 4 providers in the rule's addresses (tag rule keyed users, the providers' application)",
    );
  });

  it('lists the keys of the rules it skipped, for the providers application', () => {
    const setup = (r: TagStateRouter) => {
      r.publishRule(keyed('orders'));
      r.publishRule(keyed('billing'));
    };
    expect(routed(setup, { 'dubbo.tag': 'blue' }).trace.note).toBe(
      "no dynamic tag rule for the providers' application users (Dubbo reads users.tag-router; the tag rules are keyed orders, billing, so they are skipped); " +
        'tag blue: no provider carries it; fell back to the 2 untagged providers',
    );
  });

  it('says when no provider application is known yet', () => {
    const router = new TagStateRouter();
    router.publishRule(keyed('orders'));
    const invokers = invokersOf(PROVIDERS);
    expect(router.route(invokers, CONSUMER, call()).trace.note).toBe(
      'no dynamic tag rule: the tag rules are keyed orders, and no provider application is known yet; no tag requested: 2 of 4 providers carry no tag',
    );
  });

  it("says that it kept the previous application's rule", () => {
    const router = new TagStateRouter();
    router.publishRule(keyed('users'));
    router.notify(invokersOf(PROVIDERS));
    const others = invokersOf(PROVIDERS.map((p) => p.replace('application=users', 'application=others')));
    router.notify(others);
    expect(router.route(others, CONSUMER, call({ 'dubbo.tag': 'blue' })).trace.note).toBe(
      "tag blue: 1 of 4 providers in the rule's addresses (tag rule keyed users, kept after the first provider's application became others, which has no tag rule, as Dubbo keeps it)",
    );
  });

  it('adds no keyed note for a rule set directly, though rules are published', () => {
    const setup = (r: TagStateRouter) => {
      r.publishRule(keyed('orders'));
      r.setRule(BLUE_RULE);
    };
    expect(routed(setup, { 'dubbo.tag': 'blue' }).trace.note).toBe("tag blue: 1 of 4 providers in the rule's addresses");
  });
});
