/**
 * How the tag router follows its providers and rules (TagStateRouter.notify and process): which rule is
 * in force after rules are set, published and cleared, when a rule is initialised again for a new address
 * list, the application it follows, and the request tag and dubbo.force.tag it reads from a call.
 */
import { describe, expect, it } from 'vitest';
import { selectAddressByTagLevel, TagStateRouter } from '../../../../src/dubbo/router/tag/tag-state-router.js';
import { parseTagRule } from '../../../../src/dubbo/router/tag/tag-router-rule.js';
import { DUBBO_2_7, DUBBO_3_3 } from '../../../../src/dubbo/release.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { URL } from '../../../../src/dubbo/url.js';
import { indicesIn, invokersOf, type UrlInvoker } from '../fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.5/com.example.UserService?application=web');
const call = (attachments: Record<string, string> = {}) => new RpcInvocation({ methodName: 'getUser', attachments });
const beta = call({ 'dubbo.tag': 'beta' });

/** A provider of `app` (none: no application parameter) at 10.0.0.<n>, in env `env`. */
const provider = (n: number, app: string | null, env = 'normal') =>
  `dubbo://10.0.0.${n}:20880/com.example.UserService?env=${env}${app === null ? '' : `&application=${app}`}`;

/** The hosts' last octets of what a beta call keeps. */
function betaHosts(router: TagStateRouter, invokers: UrlInvoker[]): number[] {
  return router.route(invokers, CONSUMER, beta).invokers.map((i) => Number(i.getUrl().host.split('.')[3]));
}

// A v3.0 tag rule whose beta tag holds the providers with env=beta: its addresses depend on the list.
const matchRule = (key: string | null) =>
  `${key === null ? '' : `key: ${key}\n`}force: true\nconfigVersion: v3.0\ntags:\n  - name: beta\n    match:\n      - key: env\n        value: { exact: beta }`;
// A rule whose beta tag is one fixed address.
const addressRule = (key: string | null, n: number) =>
  `${key === null ? '' : `key: ${key}\n`}force: true\ntags:\n  - name: beta\n    addresses: ["10.0.0.${n}:20880"]`;

describe('TagStateRouter rules in force', () => {
  it('has no rule until one is set, then the rule set, and none after it is deleted', () => {
    const router = new TagStateRouter();
    expect(router.getRule()).toBeNull();
    router.setRule(addressRule(null, 1));
    expect(router.getRule()?.getTagNames()).toEqual(['beta']);
    router.setRule(null);
    expect(router.getRule()).toBeNull();
  });

  it('shows the only published rule as its rule before any provider came, and none of two', () => {
    const router = new TagStateRouter();
    router.publishRule(addressRule('users', 1));
    expect(router.getRule()?.meta.key).toBe('users');
    router.publishRule(addressRule('orders', 2));
    expect(router.getRule()).toBeNull();
    expect([...router.publishedRules().keys()]).toEqual(['users', 'orders']);
  });

  it('keeps published rules to the router they were published on', () => {
    const one = new TagStateRouter();
    one.publishRule(addressRule('users', 1));
    expect(new TagStateRouter().publishedRules().size).toBe(0);
    one.clearRules();
    one.publishRule(addressRule('orders', 1));
    expect([...one.publishedRules().keys()]).toEqual(['orders']);
    expect(new TagStateRouter().publishedRules().size).toBe(0);
  });

  it('sets a published rule without a key (or with an empty one) directly', () => {
    for (const key of [null, '""']) {
      const router = new TagStateRouter();
      router.publishRule(addressRule(key, 2));
      expect(router.publishedRules().size, String(key)).toBe(0);
      const invokers = invokersOf([provider(1, 'users'), provider(2, 'users')]);
      router.notify(invokers);
      expect(betaHosts(router, invokers), String(key)).toEqual([2]);
    }
  });

  it('applies a rule published for the application it already follows at once, and not one for another', () => {
    const router = new TagStateRouter();
    const invokers = invokersOf([provider(1, 'users'), provider(2, 'users'), provider(3, 'users')]);
    router.notify(invokers);
    expect(router.application).toBe('users');
    router.publishRule(addressRule('orders', 3));
    expect(betaHosts(router, invokers)).toEqual([1, 2, 3]);
    router.publishRule(addressRule('users', 2));
    expect(betaHosts(router, invokers)).toEqual([2]);
    // A parsed rule is published as it is.
    router.publishRule(parseTagRule(addressRule('users', 1)));
    expect(betaHosts(router, invokers)).toEqual([1]);
  });

  it('forgets every published rule and the rule in force on clearRules', () => {
    const router = new TagStateRouter();
    const invokers = invokersOf([provider(1, 'users'), provider(2, 'users')]);
    router.publishRule(addressRule('users', 2));
    router.notify(invokers);
    expect(betaHosts(router, invokers)).toEqual([2]);
    router.clearRules();
    expect(router.getRule()).toBeNull();
    expect(router.publishedRules().size).toBe(0);
    expect(betaHosts(router, invokers)).toEqual([1, 2]);
  });

  it('initialises its own copy of a parsed rule, so that routers sharing it keep their own providers', () => {
    const shared = parseTagRule(matchRule(null));
    const a = new TagStateRouter(shared);
    const b = new TagStateRouter(shared);
    const listA = invokersOf([provider(1, null, 'beta'), provider(2, null)]);
    const listB = invokersOf([provider(3, null), provider(4, null, 'beta')]);
    a.notify(listA);
    b.notify(listB);
    expect(betaHosts(a, listA)).toEqual([1]);
    expect(betaHosts(b, listB)).toEqual([4]);
    // The forced rule stays forced in the copy: a beta call finds no one on a list without beta.
    expect(betaHosts(a, listB)).toEqual([]);
    expect(shared.getTagnameToAddresses().size).toBe(0);
  });
});

describe('TagStateRouter.notify', () => {
  it('initialises a rule set before any provider came with the first list', () => {
    const router = new TagStateRouter(matchRule(null));
    const invokers = invokersOf([provider(1, 'users'), provider(2, 'users', 'beta')]);
    router.notify(invokers);
    expect(betaHosts(router, invokers)).toEqual([2]);
  });

  it('follows the first provider application, and keeps the last one known when a list has none', () => {
    const router = new TagStateRouter(matchRule(null));
    router.notify(invokersOf([provider(1, 'users')]));
    expect(router.application).toBe('users');
    const anonymous = invokersOf([provider(2, null, 'beta'), provider(3, 'orders', 'beta')]);
    router.notify(anonymous);
    expect(router.application).toBe('users');
    // The rule set directly is initialised for every list all the same.
    expect(betaHosts(router, anonymous)).toEqual([2, 3]);
    router.notify([]);
    expect(router.application).toBe('users');
    router.notify(invokersOf([provider(4, 'orders')]));
    expect(router.application).toBe('orders');
  });

  it('initialises the published rule again for each list of the same application', () => {
    const router = new TagStateRouter();
    router.publishRule(matchRule('users'));
    const first = invokersOf([provider(1, 'users', 'beta'), provider(2, 'users')]);
    router.notify(first);
    expect(betaHosts(router, first)).toEqual([1]);
    const second = invokersOf([provider(1, 'users'), provider(2, 'users', 'beta')]);
    router.notify(second);
    expect(betaHosts(router, second)).toEqual([2]);
  });

  it('changes nothing, with published rules, for a list whose first provider has no application (Dubbo logs it)', () => {
    const router = new TagStateRouter();
    router.publishRule(matchRule('users'));
    const first = invokersOf([provider(1, 'users', 'beta'), provider(2, 'users')]);
    router.notify(first);
    // The rule is not initialised for this list: its beta tag still holds 10.0.0.1 only.
    const anonymous = invokersOf([provider(2, null, 'beta'), provider(1, 'users', 'beta')]);
    router.notify(anonymous);
    expect(router.application).toBe('users');
    expect(betaHosts(router, anonymous)).toEqual([1]);
  });

  it('takes an empty address list with published rules, keeping the application and its rule', () => {
    const router = new TagStateRouter();
    router.publishRule(addressRule('users', 1));
    const users = invokersOf([provider(1, 'users'), provider(2, 'users')]);
    router.notify(users);
    router.notify([]);
    expect(router.application).toBe('users');
    router.notify(users);
    expect(betaHosts(router, users)).toEqual([1]);
  });

  it("initialises the previous application's kept rule for the next lists of the new application", () => {
    const router = new TagStateRouter();
    router.publishRule(matchRule('users'));
    router.notify(invokersOf([provider(1, 'users', 'beta'), provider(2, 'users')]));
    router.notify(invokersOf([provider(1, 'others'), provider(2, 'others')]));
    const later = invokersOf([provider(1, 'others'), provider(2, 'others', 'beta')]);
    router.notify(later);
    expect(betaHosts(router, later)).toEqual([2]);
  });

  it('switches to the rule of the new application, and back', () => {
    const router = new TagStateRouter();
    router.publishRule(addressRule('users', 1));
    router.publishRule(addressRule('orders', 2));
    const users = invokersOf([provider(1, 'users'), provider(2, 'users')]);
    const orders = invokersOf([provider(1, 'orders'), provider(2, 'orders')]);
    router.notify(users);
    expect(betaHosts(router, users)).toEqual([1]);
    router.notify(orders);
    expect(betaHosts(router, orders)).toEqual([2]);
    router.notify(users);
    expect(betaHosts(router, users)).toEqual([1]);
  });

  it('initialises a rule set directly for an application without a published rule', () => {
    const router = new TagStateRouter();
    router.publishRule(addressRule('orders', 2));
    router.setRule(matchRule(null));
    const users = invokersOf([provider(1, 'users'), provider(2, 'users', 'beta')]);
    router.notify(users);
    expect(betaHosts(router, users)).toEqual([2]);
  });

  it("does not initialise the previous application's rule again for an application without one (Dubbo keeps it as it was)", () => {
    const router = new TagStateRouter();
    router.publishRule(matchRule('users'));
    const users = invokersOf([provider(1, 'users', 'beta'), provider(2, 'users')]);
    router.notify(users);
    const others = invokersOf([provider(1, 'others'), provider(2, 'others', 'beta')]);
    router.notify(others);
    // Still the addresses of the users list: 10.0.0.1.
    expect(betaHosts(router, others)).toEqual([1]);
  });
});

describe("TagStateRouter's reading of the call", () => {
  const providers = invokersOf([
    'dubbo://10.0.0.1:20880/com.example.UserService?dubbo.tag=gray',
    'dubbo://10.0.0.2:20880/com.example.UserService',
  ]);
  const kept = (attachments: Record<string, string>, consumer = CONSUMER, release = DUBBO_3_3) => {
    const router = new TagStateRouter(null, { release });
    router.notify(providers);
    return indicesIn(providers, router.route(providers, consumer, call(attachments)).invokers);
  };

  it("takes the consumer's dubbo.tag when the call's is empty", () => {
    expect(kept({ 'dubbo.tag': '' }, CONSUMER.addParameters({ 'dubbo.tag': 'gray' }))).toEqual([0]);
  });

  it("reads dubbo.force.tag in any case, and the consumer's beside an empty attachment", () => {
    expect(kept({ 'dubbo.tag': 'blue', 'dubbo.force.tag': 'True' })).toEqual([]);
    expect(kept({ 'dubbo.tag': 'blue', 'dubbo.force.tag': 'TRUE' }, CONSUMER, DUBBO_2_7)).toEqual([]);
    expect(kept({ 'dubbo.tag': 'blue', 'dubbo.force.tag': '' }, CONSUMER.addParameters({ 'dubbo.force.tag': 'TRUE' }))).toEqual([]);
    expect(kept({ 'dubbo.tag': 'blue', 'dubbo.force.tag': 'false' }, CONSUMER.addParameters({ 'dubbo.force.tag': 'true' }))).toEqual([1]);
    expect(kept({ 'dubbo.tag': 'blue', 'dubbo.force.tag': 'false' }, CONSUMER.addParameters({ 'dubbo.force.tag': 'true' }), DUBBO_2_7)).toEqual([1]);
  });

  it('gives calls that route differently different route keys, and an untagged call the empty key', () => {
    for (const release of [DUBBO_3_3, DUBBO_2_7]) {
      const router = new TagStateRouter(null, { release });
      const keys = [
        router.routeKey(CONSUMER, call({ 'dubbo.tag': 'gray' })),
        router.routeKey(CONSUMER, call({ 'dubbo.tag': 'gray', 'dubbo.force.tag': 'true' })),
        router.routeKey(CONSUMER, call({ 'dubbo.tag': 'blue' })),
        router.routeKey(CONSUMER, call({ 'dubbo.tag': 'blue', 'dubbo.force.tag': 'true' })),
      ];
      expect(new Set(keys).size, release.version).toBe(4);
      // Not even a tag that begins like another call's key part collides with it.
      const forced = (tag: string) => router.routeKey(CONSUMER, call({ 'dubbo.tag': tag, 'dubbo.force.tag': 'true' }));
      const unforced = (tag: string) => router.routeKey(CONSUMER, call({ 'dubbo.tag': tag }));
      expect(forced('=gray'), release.version).not.toBe(unforced('gray'));
      expect(unforced('!gray'), release.version).not.toBe(forced('gray'));
      expect(router.routeKey(CONSUMER, call()), release.version).toBe('');
      expect(router.routeKey(CONSUMER, call({ 'dubbo.force.tag': 'true' })), release.version).toBe('');
      // The same call, the same key.
      expect(router.routeKey(CONSUMER, call({ 'dubbo.tag': 'gray' }))).toBe(keys[0]);
      expect(router.routeKeyOf).toBe(new TagStateRouter(null, { release }).routeKeyOf);
    }
  });

  it('gives a 2.7 and a 3.3 router different keys for a call they route differently', () => {
    // Consumer-side dubbo.force.tag=true without the attachment: 3.3 forces, 2.7 does not.
    const forcing = CONSUMER.addParameters({ 'dubbo.force.tag': 'true' });
    const blue = call({ 'dubbo.tag': 'blue' });
    expect(kept({ 'dubbo.tag': 'blue' }, forcing)).toEqual([]);
    expect(kept({ 'dubbo.tag': 'blue' }, forcing, DUBBO_2_7)).toEqual([1]);
    expect(new TagStateRouter(null, { release: DUBBO_2_7 }).routeKey(forcing, blue)).not.toBe(new TagStateRouter(null).routeKey(forcing, blue));
    expect(new TagStateRouter(null, { release: DUBBO_2_7 }).routeKey(CONSUMER, blue)).not.toBe(new TagStateRouter(null).routeKey(CONSUMER, blue));
  });
});

describe('selectAddressByTagLevel', () => {
  const set = (...a: string[]) => new Set(a);

  it('skips a level whose address set is empty', () => {
    const map = new Map([
      ['beta', set('10.0.0.1:20880')],
      ['beta|team1', set()],
    ]);
    expect(selectAddressByTagLevel(map, 'beta|team1', false)).toEqual(set('10.0.0.1:20880'));
  });

  it('finds no level for a selector whose first level is unknown, not even an empty-named one', () => {
    const map = new Map([['', set('10.0.0.1:20880')]]);
    expect(selectAddressByTagLevel(map, 'beta|team1', false)).toBeNull();
    expect(selectAddressByTagLevel(map, 'beta', false)).toBeNull();
  });

  it('looks a forced selector up exactly, and answers null for an unknown one', () => {
    const map = new Map([['beta', set('10.0.0.1:20880')]]);
    expect(selectAddressByTagLevel(map, 'beta|team1', true)).toBeNull();
    expect(selectAddressByTagLevel(map, 'beta', true)).toEqual(set('10.0.0.1:20880'));
    expect(selectAddressByTagLevel(map, 'gamma', true)).toBeNull();
  });
});
