/**
 * The router chain: Dubbo order, AND composition in directory order, fail-fast, notify, run-time
 * mutations, the route cache (same answers as uncached routing), and buildRouterChain.
 */
import { describe, expect, it } from 'vitest';
import { RouterChain } from '../../../src/dubbo/router/chain.js';
import { SharedRouteCache } from '../../../src/dubbo/router/route-cache.js';
import { buildRouter, buildRouterChain } from '../../../src/stack/build-router-chain.js';
import type { RouterResult, RoutingInputs, StateRouter } from '../../../src/dubbo/router/router.js';
import { TagStateRouter } from '../../../src/dubbo/router/tag/tag-state-router.js';
import { RpcInvocation, type Invoker } from '../../../src/dubbo/rpc.js';
import { URL } from '../../../src/dubbo/url.js';
import { RandomStreams } from '../../../src/engine/random.js';
import type { RouterSpec } from '../../../src/model/types.js';
import { indicesIn, invokersOf } from './fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.10.1.5/com.example.UserService?application=web&zone=zoneA');
const call = (methodName = 'getUser', attachments: Record<string, string> = {}, args: unknown[] = []) =>
  new RpcInvocation({ methodName, attachments, arguments: args });

/** Twelve providers over two zones, some tagged, some in a `region`. */
function providers(extra = ''): Invoker[] {
  const urls: string[] = [];
  for (let i = 0; i < 12; i++) {
    const zone = i % 3 === 0 ? 'zoneB' : 'zoneA';
    const tag = i === 4 ? '&dubbo.tag=gray' : i === 7 ? '&dubbo.tag=canary' : '';
    urls.push(`dubbo://10.${zone === 'zoneA' ? 10 : 20}.0.${i + 1}:20880/com.example.UserService?zone=${zone}&region=r${i % 4}${tag}${extra}`);
  }
  return invokersOf(urls);
}

/** A router that keeps what `keep` says, logs its calls and notifications. */
class FakeRouter implements StateRouter {
  readonly calls: string[];
  notified: Invoker[] | null = null;
  constructor(
    readonly name: string,
    readonly order: number,
    readonly keep: (inv: Invoker, i: number) => boolean,
    calls: string[] = [],
    readonly inputs: RoutingInputs | undefined = { method: false, attachments: [], arguments: [], random: false },
  ) {
    this.calls = calls;
  }
  routingInputs?(): RoutingInputs {
    return this.inputs!;
  }
  notify(invokers: Invoker[]): void {
    this.notified = invokers;
  }
  route(invokers: Invoker[]): RouterResult {
    this.calls.push(this.name);
    const out = invokers.filter(this.keep);
    return { invokers: out, trace: { router: this.name, before: invokers.length, after: out.length } };
  }
}

/** A router keyed on one attachment (its `routeKey`), keeping what `keep` says; its key throws on a `boom` attachment when asked to. */
class AttachmentRouter implements StateRouter {
  constructor(
    readonly name: string,
    readonly order: number,
    readonly attachment: string,
    readonly keep: (value: string | undefined, i: number) => boolean,
    readonly throwsOnBoom = false,
  ) {}
  routingInputs(): RoutingInputs {
    return { method: false, attachments: [this.attachment], arguments: [], random: false };
  }
  routeKey(_consumerUrl: URL, invocation: RpcInvocation): string {
    if (this.throwsOnBoom && invocation.getAttachment('boom') !== undefined) throw new Error('boom');
    return invocation.getAttachment(this.attachment) ?? '';
  }
  route(invokers: Invoker[], _consumerUrl: URL, invocation: RpcInvocation): RouterResult {
    const value = invocation.getAttachment(this.attachment);
    const out = invokers.filter((_inv, i) => this.keep(value, i));
    return { invokers: out, trace: { router: this.name, before: invokers.length, after: out.length } };
  }
}

describe('RouterChain', () => {
  it('runs routers in ascending order, stable for equal orders', () => {
    const calls: string[] = [];
    const chain = new RouterChain([
      new FakeRouter('c', 150, () => true, calls),
      new FakeRouter('a', 100, () => true, calls),
      new FakeRouter('b1', 140, () => true, calls),
      new FakeRouter('b2', 140, () => true, calls),
    ]);
    chain.setInvokers(providers());
    chain.route(CONSUMER, providers(), call());
    expect(calls).toEqual(['a', 'b1', 'b2', 'c']);
  });

  it("feeds each router's output to the next (AND)", () => {
    const list = providers();
    const chain = new RouterChain([new FakeRouter('even', 1, (_inv, i) => i % 2 === 0), new FakeRouter('first3', 2, (_inv, i) => i < 3)]);
    chain.setInvokers(list);
    const result = chain.route(CONSUMER, list, call());
    expect(indicesIn(list, result.invokers)).toEqual([0, 2, 4]);
    expect(result.trace.map((t) => [t.router, t.before, t.after])).toEqual([
      ['even', 12, 6],
      ['first3', 6, 3],
    ]);
  });

  it('stops at the first empty result and names that router', () => {
    const calls: string[] = [];
    const list = providers();
    const chain = new RouterChain([
      new FakeRouter('none', 1, () => false, calls),
      new FakeRouter('later', 2, () => true, calls),
    ]);
    chain.setInvokers(list);
    const result = chain.route(CONSUMER, list, call());
    expect(result.invokers).toEqual([]);
    expect(calls).toEqual(['none']);
    expect(result.emptiedBy).toEqual({ router: 'none', before: 12, after: 0 });
  });

  it('keeps directory order even when a router reorders its output', () => {
    const list = providers();
    const reverser: StateRouter = {
      name: 'reverse',
      order: 1,
      route: (invokers) => ({ invokers: [...invokers].reverse().slice(0, 3), trace: { router: 'reverse', before: invokers.length, after: 3 } }),
    };
    const chain = new RouterChain([reverser]);
    chain.setInvokers(list);
    expect(indicesIn(list, chain.route(CONSUMER, list, call()).invokers)).toEqual([9, 10, 11]);
  });

  it('drops invokers a router returns that were not in its input', () => {
    const list = providers();
    const stranger = invokersOf(['dubbo://9.9.9.9:1/x'])[0]!;
    const adder: StateRouter = {
      name: 'adder',
      order: 1,
      route: (invokers) => ({ invokers: [invokers[0]!, stranger], trace: { router: 'adder', before: invokers.length, after: 2 } }),
    };
    const chain = new RouterChain([adder]);
    chain.setInvokers(list);
    const result = chain.route(CONSUMER, list, call());
    expect(result.invokers).toEqual([list[0]]);
    expect(result.trace[0]!.after).toBe(1);
  });

  it('notifies every router of a new address list', () => {
    const a = new FakeRouter('a', 1, () => true);
    const b = new FakeRouter('b', 2, () => true);
    const chain = new RouterChain([a, b]);
    const list = providers();
    chain.setInvokers(list);
    expect([a.notified, b.notified]).toEqual([list, list]);
  });

  it('adds a router at its order and notifies it with the current list', () => {
    const calls: string[] = [];
    const chain = new RouterChain([new FakeRouter('a', 100, () => true, calls), new FakeRouter('c', 150, () => true, calls)]);
    const list = providers();
    chain.setInvokers(list);
    const b = new FakeRouter('b', 140, () => true, calls);
    chain.addRouter(b);
    expect(b.notified).toBe(list);
    chain.route(CONSUMER, list, call());
    expect(calls).toEqual(['a', 'b', 'c']);
  });

  it('removes and replaces routers', () => {
    const list = providers();
    const none = new FakeRouter('none', 1, () => false);
    const chain = new RouterChain([none]);
    chain.setInvokers(list);
    expect(chain.route(CONSUMER, list, call()).invokers).toEqual([]);
    expect(chain.removeRouter(none)).toBe(true);
    expect(chain.removeRouter(none)).toBe(false);
    expect(chain.route(CONSUMER, list, call()).invokers).toBe(list);
    chain.replaceRouters([new FakeRouter('first', 1, (_i, n) => n === 0)]);
    expect(chain.route(CONSUMER, list, call()).invokers).toEqual([list[0]]);
  });

  it('returns an empty list untouched without running routers', () => {
    const calls: string[] = [];
    const chain = new RouterChain([new FakeRouter('a', 1, () => true, calls)]);
    expect(chain.route(CONSUMER, [], call())).toEqual({ invokers: [], trace: [] });
    expect(calls).toEqual([]);
  });
});

describe('RouterChain route cache', () => {
  const SPECS: RouterSpec[] = [
    { type: 'condition', rule: 'method = updateUser => region = r1' },
    { type: 'condition', rule: 'attachments[uid] = 0~40 => zone = zoneB', force: true },
    { type: 'condition', rule: 'scope: application\nconditions:\n  - arguments[0] = vip* => region = r0,r2\n  - host = 10.10.1.5 => host != 10.20.0.10' },
    { type: 'tag', rule: 'tags:\n  - name: blue\n    addresses: ["10.10.0.2:20880", "10.10.0.3:20880"]' },
    { type: 'zone', fallback: false, zoneFrom: 'attachment' },
  ];

  function randomCall(rng: { nextInt(n: number): number }): RpcInvocation {
    const attachments: Record<string, string> = {};
    const tag = ['', 'blue', 'gray', 'canary', 'missing'][rng.nextInt(5)]!;
    if (tag) attachments['dubbo.tag'] = tag;
    if (rng.nextInt(2) === 0) attachments.uid = String(rng.nextInt(100));
    const zone = ['', 'zoneA', 'zoneB', 'zoneC'][rng.nextInt(4)]!;
    if (zone) attachments.zone = zone;
    if (rng.nextInt(10) === 0) attachments['dubbo.force.tag'] = 'true';
    const args = rng.nextInt(3) === 0 ? [] : [['vip1', 'vip2', 'plain', 7][rng.nextInt(4)]];
    return call(['getUser', 'updateUser', 'listUsers'][rng.nextInt(3)]!, attachments, args);
  }

  it('returns the same results and traces as uncached routing over random calls and list changes', () => {
    const rng = new RandomStreams(42).stream('calls');
    const cached = buildRouterChain(SPECS, { service: 'com.example.UserService' });
    const uncached = buildRouterChain(SPECS, { service: 'com.example.UserService', cache: false });
    let all = providers();
    let valid = all;
    cached.setInvokers(all);
    uncached.setInvokers(all);
    for (let i = 0; i < 3000; i++) {
      if (i % 500 === 499) {
        // A registry push: a new list (a provider leaves).
        all = all.slice(0, all.length - 1);
        valid = all;
        cached.setInvokers(all);
        uncached.setInvokers(all);
      } else if (i % 250 === 0) {
        // Connectivity validation sets a provider aside: a new valid list, no notify.
        valid = all.filter((_inv, n) => n !== i % all.length);
      }
      const inv = randomCall(rng);
      const a = cached.route(CONSUMER, valid, inv);
      const b = uncached.route(CONSUMER, valid, inv);
      expect(indicesIn(all, a.invokers)).toEqual(indicesIn(all, b.invokers));
      expect(a.trace).toEqual(b.trace);
      expect(a.emptiedBy).toEqual(b.emptiedBy);
    }
    const stats = cached.cacheStats();
    expect(stats.cacheable).toBe(true);
    expect(stats.hits).toBeGreaterThan(stats.misses);
  });

  it('routes each call by its own key when only one router\'s part of the key changes from the call before', () => {
    // Mock selector, tag router and a condition rule on an attachment: three key parts. Each call below
    // changes one part only (the mock decision, the tag, then the attachment), then goes back.
    const specs: RouterSpec[] = [{ type: 'condition', rule: 'attachments[uid] = 1 => zone = zoneB' }];
    const cached = buildRouterChain(specs, { service: 'com.example.UserService' });
    const uncached = buildRouterChain(specs, { service: 'com.example.UserService', cache: false });
    const all = providers().concat(invokersOf(['mock://10.10.0.99:20880/com.example.UserService']));
    cached.setInvokers(all);
    uncached.setInvokers(all);
    const attachments: Record<string, string>[] = [
      {},
      { 'invocation.need.mock': 'true' },
      {},
      { 'dubbo.tag': 'gray' },
      {},
      { uid: '1' },
      { uid: '2' },
      { uid: '1' },
      { uid: '1', 'invocation.need.mock': 'true' },
      { uid: '1' },
    ];
    const calls = attachments.map((a) => call('getUser', a));
    const routed = calls.map((inv) => indicesIn(all, cached.route(CONSUMER, all, inv).invokers));
    expect(routed).toEqual(calls.map((inv) => indicesIn(all, uncached.route(CONSUMER, all, inv).invokers)));
    // The calls do route differently (else this would check nothing).
    expect(new Set(routed.map((r) => r.join(','))).size).toBeGreaterThanOrEqual(3);
  });

  it('reads every key part again after one threw, so a half-read call leaves no stale key behind', () => {
    const parity = new AttachmentRouter('parity', 1, 'r1', (v, i) => i % 2 === Number(v ?? '0'));
    const second = new AttachmentRouter('second', 2, 'r2', () => true, true);
    const chain = new RouterChain([parity, second]);
    const all = providers();
    chain.setInvokers(all);
    const even = indicesIn(all, chain.route(CONSUMER, all, call('getUser', { r1: '0' })).invokers);
    // The first part (r1 = 1) is read, the second throws.
    expect(() => chain.route(CONSUMER, all, call('getUser', { r1: '1', boom: 'x' }))).toThrow('boom');
    const odd = indicesIn(all, chain.route(CONSUMER, all, call('getUser', { r1: '1' })).invokers);
    expect(even).toEqual([0, 2, 4, 6, 8, 10]);
    expect(odd).toEqual([1, 3, 5, 7, 9, 11]);
  });

  it('gives each chain its own key when chains share one key function and one call threw half-way', () => {
    // Routers whose key reads only the call (`routeKeyOf`): every chain built from them shares one key function.
    const parityKey = (_u: URL, inv: RpcInvocation) => inv.getAttachment('r1') ?? '';
    const secondKey = (_u: URL, inv: RpcInvocation) => {
      if (inv.getAttachment('boom') !== undefined) throw new Error('boom');
      return inv.getAttachment('r2') ?? '';
    };
    const sharedKey = (router: AttachmentRouter, key: (u: URL, inv: RpcInvocation) => string) =>
      Object.assign(router, { routeKeyOf: key, routeKey: key });
    const build = () =>
      new RouterChain([
        sharedKey(new AttachmentRouter('parity', 1, 'r1', (v, i) => i % 2 === Number(v ?? '0')), parityKey),
        sharedKey(new AttachmentRouter('second', 2, 'r2', () => true), secondKey),
      ]);
    const [a, b] = [build(), build()];
    const all = providers();
    a.setInvokers(all);
    b.setInvokers(all);
    expect(indicesIn(all, a.route(CONSUMER, all, call('getUser', { r1: '0' })).invokers)).toEqual([0, 2, 4, 6, 8, 10]);
    // On the other chain, the first part (r1 = 1) is read, the second throws.
    expect(() => b.route(CONSUMER, all, call('getUser', { r1: '1', boom: 'x' }))).toThrow('boom');
    expect(indicesIn(all, a.route(CONSUMER, all, call('getUser', { r1: '1' })).invokers)).toEqual([1, 3, 5, 7, 9, 11]);
    expect(indicesIn(all, b.route(CONSUMER, all, call('getUser', { r1: '0' })).invokers)).toEqual([0, 2, 4, 6, 8, 10]);
  });

  it("keys the mock selector and the tag router by one function per class, equal to each router's routeKey", () => {
    const chain = buildRouterChain([], { service: 'com.example.UserService' });
    const routers = chain.getEffectiveRouters();
    expect(routers.map((r) => r.name)).toEqual(['mock', 'tag']);
    const other = buildRouterChain([], { service: 'com.example.UserService' }).getEffectiveRouters();
    const consumers = [CONSUMER, URL.valueOf('consumer://10.10.1.6/com.example.UserService?application=web&dubbo.tag=gray')];
    const attachments: Record<string, string>[] = [{}, { 'invocation.need.mock': 'true' }, { 'invocation.need.mock': 'FALSE' }, { 'dubbo.tag': 'blue' }, { 'dubbo.tag': 'blue', 'dubbo.force.tag': 'true' }];
    routers.forEach((router, k) => {
      expect(typeof router.routeKeyOf).toBe('function');
      expect(router.routeKeyOf).toBe(other[k]!.routeKeyOf);
      for (const u of consumers) for (const a of attachments) expect(router.routeKeyOf!(u, call('getUser', a))).toBe(router.routeKey!(u, call('getUser', a)));
    });
    // Those calls do lead to different keys (else this would check nothing).
    const keys = new Set(consumers.flatMap((u) => attachments.map((a) => routers.map((r) => r.routeKey!(u, call('getUser', a))).join('|'))));
    expect(keys.size).toBeGreaterThanOrEqual(4);
  });

  describe('shared by the chains of many consumer instances', () => {
    const SERVICE = 'com.example.UserService';
    // Instances differ by host; the last two are in another zone (another `zone` parameter).
    const CONSUMERS = ['10.10.1.5', '10.10.1.6', '10.10.1.7', '10.20.1.5', '10.20.1.6'].map((host) =>
      URL.valueOf(`consumer://${host}/${SERVICE}?application=web&zone=${host.startsWith('10.10') ? 'zoneA' : 'zoneB'}`),
    );
    const PARAMETER_ROUTERS: RouterSpec[] = [
      { type: 'tag', rule: 'tags:\n  - name: blue\n    addresses: ["10.10.0.2:20880", "10.10.0.3:20880"]' },
      { type: 'zone', fallback: true, zoneFrom: 'attachment' },
    ];

    // Each instance gets each new list version at its own time (push lag), as the registry shares one array per version.
    function drive(specs: RouterSpec[], sharedCache: SharedRouteCache | undefined, seed: number, make: (n: number) => Invoker[] = () => providers()) {
      const rng = new RandomStreams(seed).stream('calls');
      const chains = CONSUMERS.map(() => buildRouterChain(specs, { service: SERVICE, sharedCache }));
      const references = CONSUMERS.map(() => buildRouterChain(specs, { service: SERVICE, cache: false }));
      const versions = [make(0)];
      const held = CONSUMERS.map(() => 0);
      chains.forEach((c, i) => c.setInvokers(versions[0]!));
      references.forEach((c) => c.setInvokers(versions[0]!));
      for (let i = 0; i < 4000; i++) {
        if (i % 400 === 399) {
          const last = versions.at(-1)!;
          versions.push(last.length > 6 ? last.slice(1) : make(versions.length));
        }
        const n = rng.nextInt(CONSUMERS.length);
        if (held[n]! < versions.length - 1 && rng.nextInt(20) === 0) {
          held[n]!++;
          chains[n]!.setInvokers(versions[held[n]!]!);
          references[n]!.setInvokers(versions[held[n]!]!);
        }
        const list = versions[held[n]!]!;
        const inv = randomCall(rng);
        const a = chains[n]!.route(CONSUMERS[n]!, list, inv);
        const b = references[n]!.route(CONSUMERS[n]!, list, inv);
        expect(a.invokers.map((x) => list.indexOf(x))).toEqual(b.invokers.map((x) => list.indexOf(x)));
        expect(a.trace).toEqual(b.trace);
        expect(a.emptiedBy).toEqual(b.emptiedBy);
      }
      return chains.map((c) => c.cacheStats());
    }

    // The same calls with one shared store and with private caches (`drive` checks both against uncached
    // chains): every chain of the first shares, none of the second. The misses of the first over the second's.
    function sharedMissRatio(specs: RouterSpec[], seed: number, make?: (n: number) => Invoker[]): number {
      const shared = drive(specs, new SharedRouteCache(), seed, make);
      const own = drive(specs, undefined, seed, make);
      expect(shared.every((s) => s.shared)).toBe(true);
      expect(own.some((s) => s.shared)).toBe(false);
      const misses = (stats: { misses: number }[]) => stats.reduce((n, s) => n + s.misses, 0);
      return misses(shared) / misses(own);
    }

    it('gives every instance the answers of its own uncached chain, computing each list version once for all', () => {
      // The same calls: sharing can only turn misses into hits.
      expect(sharedMissRatio(PARAMETER_ROUTERS, 7)).toBeLessThan(0.6);
    });

    it('shares the answers of condition rules that read only the consumer\'s parameters and the call', () => {
      const byParameters: RouterSpec[] = [
        { type: 'condition', rule: 'zone = zoneA => zone = $zone', force: false },
        { type: 'condition', rule: 'method = updateUser & application = web => region = r1' },
        { type: 'condition', rule: 'attachments[uid] = 0~40 => zone = zoneB', force: true },
        ...PARAMETER_ROUTERS,
      ];
      // More keys per list (when-part decisions) than above, so fewer shared hits, but still far fewer misses.
      expect(sharedMissRatio(byParameters, 13)).toBeLessThan(0.7);
    });

    it.each(['=> host = $host', '=> region != $port', 'host = 10.10.1.5 => address != $host'])(
      'keeps a private cache for a condition rule whose then-part reads the consumer\'s address: %s',
      (rule) => {
        const chain = buildRouterChain([{ type: 'condition', rule, force: false }], { service: SERVICE, sharedCache: new SharedRouteCache() });
        chain.setInvokers(providers());
        expect(chain.cacheStats()).toMatchObject({ cacheable: true, shared: false });
      },
    );

    it('shares the answers of condition rules whose when-part reads the consumer\'s address (only the decision is kept)', () => {
      // Dubbo's classic consumer blocklist / allowlist: the host decides whether the rule applies.
      const byHostWhen: RouterSpec[] = [
        { type: 'condition', rule: 'host = 10.10.1.5,10.20.1.6 => region = r1', force: false },
        { type: 'condition', rule: 'host != 10.10.1.* & method = updateUser => zone = zoneB' },
        { type: 'condition', rule: 'address = 10.20.1.5 => region = r2', force: true },
        { type: 'condition', rule: 'port != 1 => region = r1' },
        ...PARAMETER_ROUTERS,
      ];
      // Instances with the same decisions share: here few of the five decide alike, so the saving is small.
      expect(sharedMissRatio(byHostWhen, 17)).toBeLessThan(0.9);
    });

    it("shares the answers of keyed condition rules (service and application scope), with the providers' application changing", () => {
      // Each new list comes from another provider application (or none): ProviderAppStateRouter follows
      // it, so instances at different list versions hold different rules and must not share their answers.
      const apps = ['users', 'orders', ''];
      const fromApp = (n: number) => providers(apps[n % 3] ? `&application=${apps[n % 3]}` : '');
      const keyed: RouterSpec[] = [
        { type: 'condition', rule: `scope: service\nkey: ${SERVICE}\nconditions:\n  - "method = updateUser => zone = zoneA"\n  - "host != 10.20.* => region != r3"` },
        { type: 'condition', rule: 'scope: application\nkey: users\nconditions: ["=> region = r1,r2"]' },
        { type: 'condition', rule: 'scope: application\nkey: web\nconditions: ["zone = zoneA => zone = $zone"]' },
        { type: 'condition', rule: 'scope: service\nkey: com.example.OtherService\nconditions: ["=> region = r0"]' },
        ...PARAMETER_ROUTERS,
      ];
      expect(sharedMissRatio(keyed, 19, fromApp)).toBeLessThan(0.8);
    });

    it('keeps apart chains whose provider-app router follows different applications on the same list', () => {
      const keyed: RouterSpec[] = [
        { type: 'condition', rule: 'scope: application\nkey: users\nconditions: ["=> region = r1"]' },
        { type: 'condition', rule: 'scope: application\nkey: web\nconditions: ["=> region = r2"]' },
      ];
      const store = new SharedRouteCache();
      const [a, b] = [0, 1].map(() => buildRouterChain(keyed, { service: SERVICE, sharedCache: store }));
      const [refA, refB] = [0, 1].map(() => buildRouterChain(keyed, { service: SERVICE, cache: false }));
      const fromUsers = providers('&application=users');
      const noApp = providers();
      // a saw the users application's list first and keeps following it; b never saw an application.
      for (const chain of [a!, refA!]) {
        chain.setInvokers(fromUsers);
        chain.setInvokers(noApp);
      }
      for (const chain of [b!, refB!]) chain.setInvokers(noApp);
      const getUser = call('getUser');
      const viaA = a!.route(CONSUMERS[0]!, noApp, getUser);
      const viaB = b!.route(CONSUMERS[1]!, noApp, getUser);
      expect([a!.cacheStats().shared, b!.cacheStats().shared]).toEqual([true, true]);
      expect(indicesIn(noApp, viaA.invokers)).toEqual(indicesIn(noApp, refA!.route(CONSUMERS[0]!, noApp, getUser).invokers));
      expect(indicesIn(noApp, viaB.invokers)).toEqual(indicesIn(noApp, refB!.route(CONSUMERS[1]!, noApp, getUser).invokers));
      // users' rule (region r1) for a, and both rules (r1 then r2: nothing left) for b, which keeps the consumer application's rule.
      expect(indicesIn(noApp, viaA.invokers)).not.toEqual(indicesIn(noApp, viaB.invokers));
    });

    it('keeps a private cache for a keyed rule whose then-part reads the consumer\'s address', () => {
      const keyed: RouterSpec[] = [{ type: 'condition', rule: `scope: service\nkey: ${SERVICE}\nconditions: ["=> host != $host"]` }];
      const chain = buildRouterChain(keyed, { service: SERVICE, sharedCache: new SharedRouteCache() });
      chain.setInvokers(providers());
      expect(chain.cacheStats()).toMatchObject({ cacheable: true, shared: false });
    });

    it('keeps a private cache when a router reads more of the consumer than its parameters', () => {
      // The second rule routes by the consumer's own host: instances must not share their answers.
      const byHost: RouterSpec[] = [
        { type: 'condition', rule: 'host = 10.10.1.5 => region = r1' },
        { type: 'condition', rule: '=> host = $host', force: false },
        ...PARAMETER_ROUTERS,
      ];
      const stats = drive(byHost, new SharedRouteCache(), 11);
      expect(stats.some((s) => s.shared)).toBe(false);
      expect(stats.every((s) => s.cacheable)).toBe(true);
    });

    it('keeps a private cache when the tag router holds keyed rules (its rule depends on the applications it saw)', () => {
      const keyed: RouterSpec[] = [{ type: 'tag', rule: 'key: users\ntags:\n  - name: blue\n    addresses: ["10.10.0.2:20880"]' }];
      const chain = buildRouterChain(keyed, { service: SERVICE, sharedCache: new SharedRouteCache() });
      chain.setInvokers(providers());
      expect(chain.cacheStats()).toMatchObject({ cacheable: true, shared: false });
      expect(buildRouterChain(PARAMETER_ROUTERS, { service: SERVICE, sharedCache: new SharedRouteCache() }).cacheStats().shared).toBe(true);
    });

    it('keeps sharing among chains that make the same rule changes (a rule fault), apart from the others', () => {
      const store = new SharedRouteCache();
      const [a, b, c] = [0, 1, 2].map(() => buildRouterChain(PARAMETER_ROUTERS, { service: SERVICE, sharedCache: store }));
      const list = providers();
      for (const chain of [a!, b!, c!]) chain.setInvokers(list);
      const getUser = call('getUser');
      // The same rule reaches a and b (each builds its own router from the spec); c gets another one.
      const rule: RouterSpec = { type: 'condition', rule: '=> region = r1', force: false };
      const other: RouterSpec = { type: 'condition', rule: '=> region != r1', force: false };
      const added = [a!, b!].map((chain) => {
        const router = buildRouter(rule, { service: SERVICE })!;
        chain.addRouter(router);
        return router;
      });
      c!.addRouter(buildRouter(other, { service: SERVICE })!);
      // What each should answer: uncached chains with either rule.
      const withRule = buildRouterChain([...PARAMETER_ROUTERS, rule], { service: SERVICE, cache: false });
      const without = buildRouterChain([...PARAMETER_ROUTERS, other], { service: SERVICE, cache: false });
      withRule.setInvokers(list);
      without.setInvokers(list);
      const expected = indicesIn(list, withRule.route(CONSUMERS[0]!, list, getUser).invokers);
      const unchanged = indicesIn(list, without.route(CONSUMERS[0]!, list, getUser).invokers);
      expect(expected).not.toEqual(unchanged);
      expect([a!, b!, c!].map((chain) => chain.cacheStats().shared)).toEqual([true, true, true]);
      const viaA = a!.route(CONSUMERS[0]!, list, getUser);
      expect(b!.route(CONSUMERS[1]!, list, getUser)).toBe(viaA);
      expect(indicesIn(list, viaA.invokers)).toEqual(expected);
      // c got another rule (the same key layout): it must not be handed a's answer.
      expect(indicesIn(list, c!.route(CONSUMERS[2]!, list, getUser).invokers)).toEqual(unchanged);
      // Undone on a only: a answers as it did before, b keeps the rule.
      const before = a!.route(CONSUMERS[0]!, list, getUser);
      a!.removeRouter(added[0]!);
      expect(a!.route(CONSUMERS[0]!, list, getUser)).not.toBe(before);
      expect(indicesIn(list, b!.route(CONSUMERS[1]!, list, getUser).invokers)).toEqual(expected);
    });

    it('shares a changed tag rule only with chains given the same rule, leaving the others their answers', () => {
      const store = new SharedRouteCache();
      const [a, b, c, d] = [0, 1, 2, 3].map(() => buildRouterChain(PARAMETER_ROUTERS, { service: SERVICE, sharedCache: store }));
      const list = providers();
      for (const chain of [a!, b!, c!, d!]) chain.setInvokers(list);
      const blue = call('getUser', { 'dubbo.tag': 'blue' });
      expect(a!.route(CONSUMERS[0]!, list, blue)).toBe(b!.route(CONSUMERS[1]!, list, blue));
      const moved = 'tags:\n  - name: blue\n    addresses: ["10.10.0.5:20880"]';
      a!.setTagRule(moved);
      c!.setTagRule(moved);
      d!.setTagRule('tags:\n  - name: blue\n    addresses: ["10.10.0.6:20880"]');
      expect([a!, b!, c!, d!].map((chain) => chain.cacheStats().shared)).toEqual([true, true, true, true]);
      const viaA = a!.route(CONSUMERS[0]!, list, blue);
      expect(indicesIn(list, viaA.invokers)).toEqual([4]);
      expect(c!.route(CONSUMERS[2]!, list, blue)).toBe(viaA);
      expect(indicesIn(list, b!.route(CONSUMERS[1]!, list, blue).invokers)).toEqual([1, 2]);
      // d is in zoneA too (the same consumer parameters as a): only its rule tells it apart.
      expect(indicesIn(list, d!.route(CONSUMERS[1]!, list, blue).invokers)).toEqual([5]);
    });

    it('stops sharing on a chain whose rule change it cannot describe, leaving the others their shared answers', () => {
      const store = new SharedRouteCache();
      const [a, b] = [0, 1].map(() => buildRouterChain(PARAMETER_ROUTERS, { service: SERVICE, sharedCache: store }));
      const list = providers();
      a!.setInvokers(list);
      b!.setInvokers(list);
      const blue = call('getUser', { 'dubbo.tag': 'blue' });
      expect(a!.route(CONSUMERS[0]!, list, blue)).toBe(b!.route(CONSUMERS[1]!, list, blue));
      // A router of its own (a plugin's): nothing tells another chain's copy apart from it.
      a!.addRouter(new FakeRouter('plugin', 50, () => true));
      expect(a!.cacheStats().shared).toBe(false);
      expect(b!.cacheStats().shared).toBe(true);
      expect(indicesIn(list, b!.route(CONSUMERS[1]!, list, blue).invokers)).toEqual([1, 2]);
    });
  });

  it('keys only on the inputs routers declare', () => {
    const chain = buildRouterChain([{ type: 'condition', rule: 'host = 10.10.* => region = r1' }], { service: 'com.example.UserService' });
    const list = providers();
    chain.setInvokers(list);
    chain.route(CONSUMER, list, call('a', { uid: '1' }, [1]));
    chain.route(CONSUMER, list, call('b', { uid: '2' }, [2]));
    // mock and tag read their attachments; the host-only rule reads nothing from the call.
    expect(chain.cacheStats()).toMatchObject({ hits: 1, misses: 1, entries: 1 });
  });

  it('does not cache a chain with a router that draws random numbers', () => {
    const spec: RouterSpec = {
      type: 'condition',
      rule: 'configVersion: v3.1\nconditions:\n  - to: [{ match: region=r1 }, { match: region=r2 }]',
    };
    const chain = buildRouterChain([spec], { service: 'com.example.UserService', runtime: { random: new RandomStreams(1).stream('r') } });
    const list = providers();
    chain.setInvokers(list);
    const sizes = new Set<string>();
    for (let i = 0; i < 50; i++) sizes.add(indicesIn(list, chain.route(CONSUMER, list, call()).invokers).join(','));
    expect(chain.cacheStats().cacheable).toBe(false);
    expect(sizes.size).toBe(2);
  });

  it('does not cache a router that declares no inputs', () => {
    const undeclared: StateRouter = { name: 'plain', order: 1, route: (invokers) => ({ invokers, trace: { router: 'plain', before: 0, after: 0 } }) };
    expect(new RouterChain([undeclared]).cacheStats().cacheable).toBe(false);
  });

  it('keeps the cache bounded', () => {
    const chain = buildRouterChain([{ type: 'condition', rule: 'method = m3 => region = r1' }], {
      service: 'com.example.UserService',
      cacheMaxEntries: 4,
    });
    const list = providers();
    chain.setInvokers(list);
    for (let i = 0; i < 10; i++) chain.route(CONSUMER, list, call(`m${i}`));
    expect(chain.cacheStats().entries).toBeLessThanOrEqual(4);
  });

  it('drops cached results when the address list changes', () => {
    const chain = buildRouterChain([], { service: 'com.example.UserService' });
    const first = providers();
    chain.setInvokers(first);
    expect(chain.route(CONSUMER, first, call()).invokers.length).toBe(10);
    const second = first.slice(0, 5);
    chain.setInvokers(second);
    expect(chain.route(CONSUMER, second, call()).invokers.length).toBe(4);
  });

  it('applies a tag rule pushed at run time', () => {
    const chain = buildRouterChain([], { service: 'com.example.UserService' });
    const list = providers();
    chain.setInvokers(list);
    const blue = call('getUser', { 'dubbo.tag': 'blue' });
    expect(chain.route(CONSUMER, list, blue).invokers.length).toBe(10);
    chain.setTagRule('tags:\n  - name: blue\n    addresses: ["10.10.0.2:20880"]');
    expect(indicesIn(list, chain.route(CONSUMER, list, blue).invokers)).toEqual([1]);
    chain.setTagRule(null);
    expect(chain.route(CONSUMER, list, blue).invokers.length).toBe(10);
  });
});

describe('buildRouterChain', () => {
  it("adds Dubbo's mock selector and tag router and orders everything", () => {
    const chain = buildRouterChain(
      [
        { type: 'zone', fallback: true, zoneFrom: 'local' },
        { type: 'condition', rule: 'scope: application\nconditions: ["=> region = r1"]' },
        { type: 'condition', rule: '=> region = r2' },
      ],
      { service: 'com.example.UserService' },
    );
    expect(chain.getRouters().map((r) => [r.name, r.order])).toEqual([
      ['mock', -100],
      ['tag', 100],
      ['condition', 140],
      ['condition', 150],
      ['zone', 160],
    ]);
  });

  it('leaves out the defaults when asked', () => {
    const chain = buildRouterChain([{ type: 'zone', fallback: true, zoneFrom: 'local' }], { service: 's', defaults: false });
    expect(chain.getRouters().map((r) => r.name)).toEqual(['zone']);
  });

  it('applies a spec with a service only to that service', () => {
    const specs: RouterSpec[] = [{ type: 'condition', rule: '=> region = r1', service: 'com.example.OrderService' }];
    expect(buildRouterChain(specs, { service: 'com.example.UserService' }).getRouters().map((r) => r.name)).toEqual(['mock', 'tag']);
    expect(buildRouterChain(specs, { service: 'com.example.OrderService' }).getRouters().map((r) => r.name)).toContain('condition');
  });

  it('gives the scenario tag rule (text or object) to the one tag router', () => {
    const chain = buildRouterChain([{ type: 'tag', rule: { tags: [{ name: 'blue', addresses: ['10.10.0.2:20880'] }] } }], { service: 's' });
    const tags = chain.getRouters().filter((r) => r instanceof TagStateRouter) as TagStateRouter[];
    expect(tags).toHaveLength(1);
    expect(tags[0]!.getRule()?.getTagNames()).toEqual(['blue']);
  });

  it('refuses two tag rules for one service', () => {
    const rule = 'tags:\n  - name: a\n    addresses: ["1.1.1.1"]';
    expect(() => buildRouterChain([{ type: 'tag', rule }, { type: 'tag', rule }], { service: 's' })).toThrow(/two tag rules/);
  });

  it('builds plugin routers from the loaded factories', () => {
    const factory = (options: Record<string, unknown>) => new FakeRouter('plugin', Number(options.order), (_i, n) => n < 2);
    const chain = buildRouterChain([{ type: 'plugin', module: './my-router.js', options: { order: 120 } }], {
      service: 's',
      pluginRouters: { './my-router.js': { default: factory } },
    });
    const list = providers();
    chain.setInvokers(list);
    expect(chain.getRouters().map((r) => r.name)).toEqual(['mock', 'tag', 'plugin']);
    expect(indicesIn(list, chain.route(CONSUMER, list, call()).invokers)).toEqual([0, 1]);
  });

  it('reports a plugin router that was not loaded', () => {
    expect(() => buildRouterChain([{ type: 'plugin', module: './missing.js', options: {} }], { service: 's' })).toThrow(/not loaded/);
  });

  it('counts a forced empty route on every call, cache hits included', () => {
    const counts = new Map<string, number>();
    const events = { count: (name: string, by = 1) => void counts.set(name, (counts.get(name) ?? 0) + by) };
    const chain = buildRouterChain([{ type: 'condition', rule: '=> region = nowhere', force: true }], { service: 's', runtime: { events } });
    const list = providers();
    chain.setInvokers(list);
    for (let i = 0; i < 5; i++) chain.route(CONSUMER, list, call());
    expect(chain.cacheStats().hits).toBe(4);
    expect(counts.get('router.forceEmpty')).toBe(5);
  });

  it('counts on cache hits for a rule added at run time with the plain runtime', () => {
    const counts = new Map<string, number>();
    const runtime = { events: { count: (name: string, by = 1) => void counts.set(name, (counts.get(name) ?? 0) + by) } };
    const chain = buildRouterChain([], { service: 's', runtime });
    const list = providers();
    chain.setInvokers(list);
    chain.addRouter(buildRouter({ type: 'condition', rule: '=> region = nowhere', force: true }, { service: 's', runtime })!);
    for (let i = 0; i < 3; i++) chain.route(CONSUMER, list, call());
    expect(counts.get('router.forceEmpty')).toBe(3);
  });

  it('counts a forced empty condition route in the runtime events', () => {
    const counts = new Map<string, number>();
    const events = { count: (name: string) => void counts.set(name, (counts.get(name) ?? 0) + 1) };
    const chain = buildRouterChain([{ type: 'condition', rule: '=> region = nowhere', force: true }], { service: 's', runtime: { events } });
    const list = providers();
    chain.setInvokers(list);
    const result = chain.route(CONSUMER, list, call());
    expect(result.emptiedBy?.note).toBe('force: true and the then-part matched none of 10 providers');
    expect(counts.get('router.forceEmpty')).toBe(1);
  });
});
