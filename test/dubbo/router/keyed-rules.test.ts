/**
 * Rule `key` and `scope`: a keyed condition or tag rule applies only to the consumers whose
 * subscription key it names, as Dubbo 3.3's routers subscribe by key (branch 3.3, commit 324c625):
 * - ServiceStateRouter.java:28-29 subscribes `DynamicConfiguration.getRuleKey(url)` =
 *   `url.getColonSeparatedKey()` (DynamicConfiguration.java:212-214; URL.java:1290-1296:
 *   `interface:version:group`, empty parts kept) + `.condition-router` (ListenableStateRouter.java:54, 183-193);
 * - AppStateRouter.java:27-28 subscribes the consumer URL's application;
 * - ProviderAppStateRouter.java:42-45 is also created on the consumer application (so it holds the
 *   consumer application's rule at first), and notify (lines 48-84) subscribes the first provider's
 *   `remote.application`, taking its rule only when one exists;
 * - TagStateRouter.java:285-325 subscribes `<remote.application of the first provider>.tag-router`,
 *   keeps the rule when that application changes to one without a rule, re-parses it otherwise.
 * Rules without a key apply to every consumer, as before.
 */
import { describe, expect, it } from 'vitest';
import { RouterChain } from '../../../src/dubbo/router/chain.js';
import { buildRouter, buildRouterChain } from '../../../src/stack/build-router-chain.js';
import { KeyedConditionRule } from '../../../src/dubbo/router/condition/listenable-state-router.js';
import { namesService, serviceRuleKeys } from '../../../src/dubbo/router/rule-key.js';
import type { RouterSpec } from '../../../src/model/types.js';
import { URL } from '../../../src/dubbo/url.js';
import { TagStateRouter } from '../../../src/dubbo/router/tag/tag-state-router.js';
import { invocationOf, invokersOf } from './fixtures.js';

const USERS = 'com.example.UserService';
const consumer = (query = 'application=web') => URL.valueOf(`consumer://10.20.1.7/${USERS}?${query}`);
const providers = (app = 'users') =>
  invokersOf([
    `dubbo://10.0.2.1:20880/${USERS}?application=${app}&zone=zoneA`,
    `dubbo://10.0.2.2:20880/${USERS}?application=${app}&zone=zoneB`,
    `dubbo://10.0.2.3:20880/${USERS}?application=${app}&zone=zoneB`,
  ]);

function condition(scope: string | null, key: string | null, conditions: string[], force = false): RouterSpec {
  const lines = [scope === null ? '' : `scope: ${scope}`, key === null ? '' : `key: ${key}`, `force: ${force}`, 'conditions:'];
  return { type: 'condition', rule: [...lines.filter((l) => l !== ''), ...conditions.map((c) => `  - "${c}"`)].join('\n') };
}

function route(specs: RouterSpec[], opts: { consumer?: URL; invokers?: ReturnType<typeof providers>; method?: string } = {}) {
  const chain = buildRouterChain(specs, { service: USERS, cache: false });
  const invokers = opts.invokers ?? providers();
  chain.setInvokers(invokers);
  const result = chain.route(opts.consumer ?? consumer(), invokers, invocationOf({ methodName: opts.method ?? 'getUser' }));
  return { chain, invokers, result, zones: result.invokers.map((i) => i.getUrl().getParameter('zone')) };
}

describe('service keys (ServiceStateRouter: interface:version:group)', () => {
  it('accepts Dubbo\'s colon key, the same without empty trailing parts, and the service key', () => {
    expect(serviceRuleKeys(consumer())).toEqual([`${USERS}::`, USERS]);
    expect(serviceRuleKeys(consumer('application=web&version=1.0.0&group=g1'))).toEqual([`${USERS}:1.0.0:g1`, `g1/${USERS}:1.0.0`]);
    expect(serviceRuleKeys(consumer('application=web&version=1.0.0'))).toEqual([`${USERS}:1.0.0:`, `${USERS}:1.0.0`]);
  });

  it('does not let a key without the version name a versioned reference (Dubbo reads interface:1.0.0:)', () => {
    expect(namesService(USERS, consumer('application=web&version=1.0.0'))).toBe(false);
    expect(namesService(`${USERS}:1.0.0`, consumer('application=web&version=1.0.0'))).toBe(true);
  });
});

describe('condition rules with scope: service', () => {
  it('applies a rule keyed by this service', () => {
    const { zones } = route([condition('service', USERS, ['=> zone = zoneA'])]);
    expect(zones).toEqual(['zoneA']);
  });

  it('skips a rule keyed by another service, even a forced one that would empty the list', () => {
    const { result } = route([condition('service', 'com.example.OrderService', ['=> zone = nowhere'], true)]);
    expect(result.invokers).toHaveLength(3);
    const entry = result.trace.at(-1)!;
    expect(entry).toMatchObject({ router: 'condition', rule: '=> zone = nowhere', matchedWhen: false, before: 3, after: 3 });
    expect(entry.note).toBe(
      `ServiceStateRouter: skipped: scope: service, key com.example.OrderService does not name this consumer's service ${USERS} ` +
        `(Dubbo reads its rule at ${USERS}::.condition-router), nor an application whose rules it reads (web, users)`,
    );
  });

  it('says when only the version or group differ', () => {
    const { result } = route([condition('service', USERS, ['=> zone = zoneA'])], { consumer: consumer('application=web&version=2.0.0') });
    expect(result.invokers).toHaveLength(3);
    expect(result.trace.at(-1)!.note).toContain(`the version or group differ: Dubbo reads this reference's rule at ${USERS}:2.0.0:.condition-router`);
  });

  it('reads a keyed rule without scope by its key alone, as every Dubbo router does', () => {
    expect(route([condition(null, USERS, ['=> zone = zoneA'])]).zones).toEqual(['zoneA']);
    // web is the consumer application: AppStateRouter reads web.condition-router.
    expect(route([condition(null, 'web', ['=> zone = zoneA'])]).zones).toEqual(['zoneA']);
    expect(route([condition(null, 'billing', ['=> zone = zoneA'])]).zones).toHaveLength(3);
  });

  it('keeps applying rules without a key to every consumer, as before', () => {
    expect(route([condition('service', null, ['=> zone = zoneA'])]).zones).toEqual(['zoneA']);
    expect(route([{ type: 'condition', rule: '=> zone = zoneA' }]).zones).toEqual(['zoneA']);
  });

  it('lists the keyed rule as itself in getRouters and routes it inside the three listenable routers, as Dubbo always has them', () => {
    const { chain, result } = route([condition('service', USERS, ['=> zone = zoneA'])]);
    expect(chain.getRouters().map((r) => r.constructor.name)).toEqual(['MockInvokersSelector', 'TagStateRouter', 'KeyedConditionRule']);
    expect(chain.getEffectiveRouters().map((r) => [r.constructor.name, r.order])).toEqual([
      ['MockInvokersSelector', -100],
      ['TagStateRouter', 100],
      ['ServiceStateRouter', 140],
      ['ProviderAppStateRouter', 145],
      ['AppStateRouter', 150],
    ]);
    // Only the router that applies it shows a row.
    expect(result.trace.filter((e) => e.router === 'condition').map((e) => e.note?.split(',')[0])).toEqual(['ServiceStateRouter']);
  });
});

describe('condition rules with scope: application', () => {
  it('applies a rule keyed by the consumer application in AppStateRouter (150), and first in ProviderAppStateRouter (145)', () => {
    const { result, zones } = route([condition('application', 'web', ['=> zone = zoneB'])]);
    expect(zones).toEqual(['zoneB', 'zoneB']);
    const conditions = result.trace.filter((e) => e.router === 'condition');
    expect(conditions.map((e) => [e.before, e.after])).toEqual([
      [3, 2],
      [2, 2],
    ]);
    expect(conditions[0]!.note).toContain('ProviderAppStateRouter, rule keyed application web');
    expect(conditions[0]!.note).toContain("keeps the consumer application's rule (web.condition-router, subscribed when it was created)");
    expect(conditions[1]!.note).toContain('AppStateRouter, rule keyed application web');
  });

  it('applies a rule keyed by the providers\' application in ProviderAppStateRouter only', () => {
    const { result, zones } = route([condition('application', 'users', ['=> zone = zoneA'])]);
    expect(zones).toEqual(['zoneA']);
    const conditions = result.trace.filter((e) => e.router === 'condition');
    expect(conditions[0]!.note).toBe(
      "ProviderAppStateRouter, rule keyed application users: the then-part matched 1 of 3 providers (the first provider's application is users)",
    );
    // The other two routers apply nothing and skip nothing: no row.
    expect(conditions).toHaveLength(1);
  });

  it('prefers the providers\' application rule over the consumer application rule in ProviderAppStateRouter', () => {
    const { result, zones } = route([condition('application', 'web', ['=> zone = zoneB']), condition('application', 'users', ['=> host != 10.0.2.2'])]);
    expect(zones).toEqual(['zoneB']);
    const conditions = result.trace.filter((e) => e.router === 'condition');
    expect(conditions.map((e) => [e.rule, e.before, e.after])).toEqual([
      ['=> host != 10.0.2.2', 3, 2],
      ['=> zone = zoneB', 2, 1],
    ]);
  });

  it('skips a rule keyed by an application that is neither, and says which applications it saw', () => {
    const { result } = route([condition('application', 'billing', ['=> zone = nowhere'], true)]);
    expect(result.invokers).toHaveLength(3);
    expect(result.trace.at(-1)!.note).toBe(
      "AppStateRouter: skipped: scope: application, key billing names neither this consumer's application web nor the providers' application users (nor its service, com.example.UserService::)",
    );
  });

  it('follows the first provider of each new address list, keeping its rule when the new application has none', () => {
    const chain = buildRouterChain([condition('application', 'users', ['=> zone = zoneA'])], { service: USERS, cache: false });
    const users = providers('users');
    const others = providers('others');
    const zonesOf = (list: typeof users) => chain.route(consumer(), list, invocationOf({ methodName: 'm' })).invokers.map((i) => i.getUrl().getParameter('zone'));
    chain.setInvokers(others);
    expect(zonesOf(others)).toHaveLength(3);
    chain.setInvokers(users);
    expect(zonesOf(users)).toEqual(['zoneA']);
    // ProviderAppStateRouter.notify: another application without a rule leaves routerRule as it was.
    chain.setInvokers(others);
    expect(zonesOf(others)).toEqual(['zoneA']);
  });

  it('drops its rule when a key it listens to is deleted at run time, as a DELETED event does', () => {
    const chain = buildRouterChain([], { service: USERS, cache: false });
    const users = providers('users');
    chain.setInvokers(users);
    const rule = buildRouter(condition('application', 'users', ['=> zone = zoneA']), { service: USERS })!;
    expect(rule).toBeInstanceOf(KeyedConditionRule);
    chain.addRouter(rule);
    expect(chain.route(consumer(), users, invocationOf(null)).invokers).toHaveLength(1);
    chain.removeRouter(rule);
    expect(chain.route(consumer(), users, invocationOf(null)).invokers).toHaveLength(3);
  });
});

describe('scope decides nothing: no router reads it (3.3 AbstractRouterRule.java:81-82 only stores scope and key)', () => {
  it('applies scope: service with key = the consumer application in AppStateRouter (150), after ProviderAppStateRouter (145) holds it too', () => {
    const { result, zones } = route([condition('service', 'web', ['=> zone = zoneB'])]);
    expect(zones).toEqual(['zoneB', 'zoneB']);
    const notes = result.trace.filter((e) => e.router === 'condition').map((e) => e.note ?? '');
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/^ProviderAppStateRouter, rule keyed service web: /);
    expect(notes[1]).toMatch(/^AppStateRouter, rule keyed service web: /);
  });

  it("applies scope: application with key = the service's interface:version:group in ServiceStateRouter (140)", () => {
    const { result, zones } = route([condition('application', `"${USERS}::"`, ['=> zone = zoneA'])]);
    expect(zones).toEqual(['zoneA']);
    const notes = result.trace.filter((e) => e.router === 'condition').map((e) => e.note ?? '');
    expect(notes).toEqual([expect.stringMatching(/^ServiceStateRouter, rule keyed application com\.example\.UserService::: /)]);
  });

  it("applies a rule keyed by the providers' application whatever its scope (ProviderAppStateRouter)", () => {
    expect(route([condition('service', 'users', ['=> zone = zoneA'])]).zones).toEqual(['zoneA']);
    expect(route([condition('global', 'users', ['=> zone = zoneA'])]).zones).toEqual(['zoneA']);
  });
});

describe('tag rules with a key (TagStateRouter: <provider application>.tag-router)', () => {
  const tagRule = (key: string | null) =>
    `${key === null ? '' : `key: ${key}\n`}force: true\ntags:\n  - name: gray\n    addresses: ["10.0.2.1:20880"]`;
  const gray = invocationOf({ methodName: 'm', attachments: { 'dubbo.tag': 'gray' } });

  function tagRoute(specs: RouterSpec[], invokers = providers()) {
    const chain = buildRouterChain(specs, { service: USERS, cache: false });
    chain.setInvokers(invokers);
    return chain.route(consumer(), invokers, gray);
  }

  it('applies a tag rule keyed by the providers\' application', () => {
    const result = tagRoute([{ type: 'tag', rule: tagRule('users') }]);
    expect(result.invokers.map((i) => i.getUrl().host)).toEqual(['10.0.2.1']);
    expect(result.trace[1]!.note).toContain("(tag rule keyed users, the providers' application)");
  });

  it('skips a tag rule keyed by another application: static tags only', () => {
    const result = tagRoute([{ type: 'tag', rule: tagRule('orders') }]);
    expect(result.invokers).toHaveLength(3);
    expect(result.trace[1]!.note).toBe(
      "no dynamic tag rule for the providers' application users (Dubbo reads users.tag-router; the tag rules are keyed orders, so they are skipped); " +
        'tag gray: no provider carries it; fell back to the 3 untagged providers',
    );
  });

  it('holds tag rules of several provider applications in the one tag router', () => {
    const specs: RouterSpec[] = [
      { type: 'tag', rule: tagRule('orders') },
      { type: 'tag', rule: tagRule('users') },
    ];
    expect(tagRoute(specs).invokers).toHaveLength(1);
    expect(tagRoute(specs, providers('orders')).invokers).toHaveLength(1);
    expect(tagRoute(specs, providers('billing')).invokers).toHaveLength(3);
  });

  it('refuses two tag rules that could apply at once', () => {
    const twice = (a: string | null, b: string | null) => () =>
      buildRouterChain([{ type: 'tag', rule: tagRule(a) }, { type: 'tag', rule: tagRule(b) }], { service: USERS });
    expect(twice(null, null)).toThrow(/two tag rules/);
    expect(twice(null, 'users')).toThrow(/give each tag rule the key of its provider application/);
    expect(twice('users', 'users')).toThrow(/two are keyed users/);
  });

  it('keeps the previous application\'s rule when the first provider\'s application changes to one without a rule', () => {
    const chain = buildRouterChain([{ type: 'tag', rule: tagRule('users') }], { service: USERS, cache: false });
    chain.setInvokers(providers('users'));
    const others = providers('others');
    chain.setInvokers(others);
    const result = chain.route(consumer(), others, gray);
    expect(result.invokers.map((i) => i.getUrl().host)).toEqual(['10.0.2.1']);
    expect(result.trace[1]!.note).toContain('kept after the first provider\'s application became others');
  });

  it('applies a keyed rule given straight to the router whatever its key, as process() does', () => {
    const router = new TagStateRouter(tagRule('someone-else'));
    const invokers = providers();
    router.notify(invokers);
    expect(router.route(invokers, consumer(), gray).invokers).toHaveLength(1);
  });

  it('publishes a keyed tag rule pushed at run time under its key', () => {
    const chain = new RouterChain([new TagStateRouter()], { cache: false });
    const invokers = providers();
    chain.setInvokers(invokers);
    chain.setTagRule(tagRule('orders'));
    expect(chain.route(consumer(), invokers, gray).invokers).toHaveLength(3);
    chain.setTagRule(tagRule('users'));
    expect(chain.route(consumer(), invokers, gray).invokers).toHaveLength(1);
    chain.setTagRule(null);
    expect(chain.route(consumer(), invokers, gray).invokers).toHaveLength(3);
  });
});

describe('route cache with keyed rules', () => {
  it('gives the same results and traces as uncached routing', () => {
    const specs: RouterSpec[] = [
      condition('service', USERS, ['method = getUser => zone = zoneA']),
      condition('service', 'com.example.OrderService', ['=> zone = nowhere'], true),
      condition('application', 'web', ['attachments[lane] = blue => zone = zoneB']),
      { type: 'tag', rule: 'key: users\ntags:\n  - name: gray\n    addresses: ["10.0.2.3:20880"]' },
    ];
    const cached = buildRouterChain(specs, { service: USERS });
    const uncached = buildRouterChain(specs, { service: USERS, cache: false });
    const invokers = providers();
    const url = consumer();
    cached.setInvokers(invokers);
    uncached.setInvokers(invokers);
    for (const method of ['getUser', 'list']) {
      const variants: Record<string, string>[] = [{}, { lane: 'blue' }, { lane: 'red' }, { 'dubbo.tag': 'gray' }];
      for (const attachments of variants) {
        const inv = invocationOf({ methodName: method, attachments });
        for (let i = 0; i < 2; i++) {
          const a = cached.route(url, invokers, inv);
          const b = uncached.route(url, invokers, inv);
          expect(a.invokers).toEqual(b.invokers);
          expect(a.trace).toEqual(b.trace);
        }
      }
    }
    expect(cached.cacheStats().hits).toBeGreaterThan(0);
  });
});
