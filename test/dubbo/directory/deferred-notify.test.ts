/**
 * A registry directory sets a pushed list when it is next read, and never sets one that a later list
 * replaces before then, only where that cannot change anything; every read sets the pending list first.
 * Shipped scenarios give the same summaries with every list set at once (the reference).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DynamicDirectory } from '../../../src/dubbo/directory/directory.js';
import { buildRouterChain } from '../../../src/stack/build-router-chain.js';
import type { RouteResult, RouterChainLike, StateRouter } from '../../../src/dubbo/router/router.js';
import { OK, RpcInvocation, type Invoker, type Result } from '../../../src/dubbo/rpc.js';
import type { URL } from '../../../src/dubbo/url.js';
import type { Proc } from '../../../src/engine/simulation.js';
import { runScenario } from '../../../src/scenario/run.js';
import type { RouterSpec } from '../../../src/model/types.js';
import { consumerUrl, makeRuntime, providerUrl, registryUrl } from '../cluster/fixtures.js';
import { PUSH_SCENARIOS, shippedScenario } from '../../helpers/push-scenarios.js';

class Provider implements Invoker {
  constructor(
    readonly name: string,
    readonly url: URL,
  ) {}
  getUrl(): URL {
    return this.url;
  }
  isAvailable(): boolean {
    return true;
  }
  *invoke(): Proc<Result> {
    return OK;
  }
}

/** A chain that records every list it is given; `collapsible` is what it says of its routers. */
class RecordingChain implements RouterChainLike {
  readonly notified: string[][] = [];
  constructor(readonly collapsible: boolean) {}
  route(_url: URL, invokers: Invoker[]): RouteResult {
    return { invokers, trace: [] };
  }
  setInvokers(invokers: Invoker[]): void {
    this.notified.push(invokers.map((i) => (i as Provider).name));
  }
  notifyCollapsible(): boolean {
    return this.collapsible;
  }
}

const call = () => new RpcInvocation({ methodName: 'sayHello', serviceName: 'com.example.DemoService' });

function setup(collapsible = true) {
  const { runtime } = makeRuntime(1);
  const cUrl = consumerUrl();
  const provider = (i: number, application = 'users') => new Provider(`p${i}`, providerUrl(i, cUrl, { application }));
  const chain = new RecordingChain(collapsible);
  const directory = new DynamicDirectory(runtime, registryUrl(), cUrl, chain);
  return { directory, chain, provider };
}

const names = (list: unknown) => (list as Provider[]).map((p) => p.name);

describe('DynamicDirectory: lists set when next read', () => {
  it('sets the first list at once, then only the last of the lists pushed before the next read', () => {
    const { directory, chain, provider } = setup();
    directory.notify([provider(0), provider(1)]);
    directory.notify([provider(1)]);
    directory.notify([provider(1), provider(2)]);
    expect(chain.notified).toEqual([['p0', 'p1']]);
    expect(names(directory.list(call()))).toEqual(['p1', 'p2']);
    expect(chain.notified).toEqual([
      ['p0', 'p1'],
      ['p1', 'p2'],
    ]);
  });

  it.each([
    ['getAllInvokers', (d: DynamicDirectory) => d.getAllInvokers()],
    ['getValidInvokers', (d: DynamicDirectory) => d.getValidInvokers()],
    ['version', (d: DynamicDirectory) => d.version],
    ['isAvailable', (d: DynamicDirectory) => d.isAvailable()],
    ['isForbidden', (d: DynamicDirectory) => d.isForbidden()],
    ['getRouterChain', (d: DynamicDirectory) => d.getRouterChain()],
  ])('%s sets the pending list first', (_name, read) => {
    const { directory, chain, provider } = setup();
    directory.notify([provider(0)]);
    directory.notify([provider(1)]);
    read(directory);
    expect(chain.notified).toEqual([['p0'], ['p1']]);
  });

  it('sets every list at once when the chain\'s routers may keep more than the last list (a plugin\'s notify)', () => {
    const { directory, chain, provider } = setup(false);
    directory.notify([provider(0)]);
    directory.notify([provider(1)]);
    directory.notify([provider(2)]);
    expect(chain.notified).toEqual([['p0'], ['p1'], ['p2']]);
  });

  it('sets a list at once when its providers are of another application than the list set', () => {
    const { directory, chain, provider } = setup();
    directory.notify([provider(0)]);
    directory.notify([provider(1, 'orders')]);
    expect(chain.notified).toEqual([['p0'], ['p1']]);
  });

  it('sets lists at once while an invoker is set aside, and after an empty:// push', () => {
    const { directory, chain, provider } = setup();
    const p0 = provider(0);
    directory.notify([p0, provider(1)]);
    directory.addInvalidateInvoker(p0);
    directory.notify([p0, provider(2)]);
    expect(chain.notified).toEqual([
      ['p0', 'p1'],
      ['p0', 'p2'],
    ]);
    const { directory: d2, chain: c2, provider: q } = setup();
    d2.notify([q(0)]);
    d2.notify([q(1)]);
    d2.notifyEmpty();
    d2.notify([q(2)]);
    expect(c2.notified).toEqual([['p0'], [], ['p2']]);
    expect(d2.isForbidden()).toBe(false);
  });
});

describe('DynamicDirectory: a chain that changes its routers', () => {
  it('sets the pending list before a router is added at run time, so the router is notified of it alone', () => {
    const { runtime } = makeRuntime(1);
    const cUrl = consumerUrl();
    const provider = (i: number) => new Provider(`p${i}`, providerUrl(i, cUrl, { application: 'users' }));
    const chain = buildRouterChain([], { service: 'com.example.DemoService' });
    const directory = new DynamicDirectory(runtime, registryUrl(), cUrl, chain);
    directory.notify([provider(0)]);
    directory.notify([provider(1)]);
    const seen: string[][] = [];
    chain.addRouter({
      name: 'late',
      order: 0,
      route: (invokers) => ({ invokers, trace: { router: 'late', before: invokers.length, after: invokers.length } }),
      notify: (invokers) => void seen.push(names(invokers)),
    });
    expect(seen).toEqual([['p1']]);
    // Its chain replaced, the directory no longer answers the old chain's changes: the pending list waits
    // for the next read.
    const next = new RecordingChain(true);
    directory.setRouterChain(next);
    directory.notify([provider(2)]);
    chain.addRouter({ name: 'old', order: 0, route: (invokers) => ({ invokers, trace: { router: 'old', before: 0, after: 0 } }) });
    expect(next.notified).toEqual([['p1']]);
    expect(names(directory.getAllInvokers())).toEqual(['p2']);
    expect(next.notified).toEqual([['p1'], ['p2']]);
  });
});

describe('RouterChain.notifyCollapsible', () => {
  const plugin = (notify: boolean): StateRouter => ({
    name: 'plugin',
    order: 0,
    route: (invokers) => ({ invokers, trace: { router: 'plugin', before: invokers.length, after: invokers.length } }),
    ...(notify ? { notify: () => {} } : {}),
  });

  it('is true for the built-in routers, and false once a router has a notify of its own', () => {
    const specs: RouterSpec[] = [
      { type: 'condition', rule: '=> zone = $zone' },
      { type: 'tag', rule: 'tags:\n  - name: blue\n    addresses: ["10.10.0.2:20880"]' },
      { type: 'zone', fallback: true, zoneFrom: 'local' },
    ];
    expect(buildRouterChain(specs, { service: 'com.example.UserService' }).notifyCollapsible()).toBe(true);
    const chain = buildRouterChain([], { service: 'com.example.UserService' });
    chain.addRouter(plugin(false));
    expect(chain.notifyCollapsible()).toBe(true);
    const withNotify = plugin(true);
    chain.addRouter(withNotify);
    expect(chain.notifyCollapsible()).toBe(false);
    chain.removeRouter(withNotify);
    expect(chain.notifyCollapsible()).toBe(true);
  });
});

describe('lists set when next read: shipped scenarios', () => {
  const deferred = DynamicDirectory.prototype.notify;
  afterEach(() => {
    DynamicDirectory.prototype.notify = deferred;
  });

  function summaryOf(name: string): string {
    return JSON.stringify(runScenario(shippedScenario(name), { version: 'test' }).summary);
  }

  it.each(PUSH_SCENARIOS)('%s: the same summary as setting every list at once', (name) => {
    const lazy = summaryOf(name);
    DynamicDirectory.prototype.notify = function (this: DynamicDirectory, invokers: Invoker[]) {
      if (invokers.length === 0) return;
      const self = this as unknown as { forbidden: boolean; setInvokers(list: Invoker[]): void };
      self.forbidden = false;
      self.setInvokers(invokers);
    };
    expect(summaryOf(name)).toBe(lazy);
  });
});
