import { describe, expect, it } from 'vitest';
import { DUBBO_VERSION, RpcCode } from '../../../src/dubbo/constants.js';
import { DynamicDirectory, StaticDirectory } from '../../../src/dubbo/directory/directory.js';
import { OK, RpcInvocation, type Invoker, type Result } from '../../../src/dubbo/rpc.js';
import type { RouteResult, RouterChainLike } from '../../../src/dubbo/router/router.js';
import { RandomStreams } from '../../../src/engine/random.js';
import type { Proc } from '../../../src/engine/simulation.js';
import type { URL } from '../../../src/dubbo/url.js';
import { consumerUrl, makeRuntime, providerUrl, registryUrl } from '../cluster/fixtures.js';

/** A provider invoker whose availability the test flips; counts the availability probes. */
class ProbeInvoker implements Invoker {
  readonly name: string;
  readonly #url: URL;
  available: boolean;
  probes = 0;
  constructor(name: string, url: URL, available = true) {
    this.name = name;
    this.#url = url;
    this.available = available;
  }
  getUrl(): URL {
    return this.#url;
  }
  isAvailable(): boolean {
    this.probes++;
    return this.available;
  }
  *invoke(): Proc<Result> {
    return OK;
  }
}

/** A router chain that records what it is given and keeps only the invokers `keep` accepts. */
class RecordingChain implements RouterChainLike {
  readonly notified: Invoker[][] = [];
  readonly routed: Invoker[][] = [];
  readonly #keep: (inv: Invoker) => boolean;
  constructor(keep: (inv: Invoker) => boolean = () => true) {
    this.#keep = keep;
  }
  route(_url: URL, invokers: Invoker[]): RouteResult {
    this.routed.push(invokers);
    const kept = invokers.filter(this.#keep);
    return kept.length === 0
      ? { invokers: kept, trace: [], emptiedBy: { router: 'recording', before: invokers.length, after: 0 } }
      : { invokers: kept, trace: [] };
  }
  setInvokers(invokers: Invoker[]): void {
    this.notified.push(invokers);
  }
}

const call = () => new RpcInvocation({ methodName: 'sayHello', serviceName: 'com.example.DemoService' });

function world(count: number, seed = 1) {
  const { sim, runtime } = makeRuntime(seed);
  const cUrl = consumerUrl();
  const providers = Array.from({ length: count }, (_, i) => new ProbeInvoker(`p${i}`, providerUrl(i, cUrl)));
  return { sim, runtime, cUrl, providers };
}

const names = (list: Invoker[] | unknown) => (list as ProbeInvoker[]).map((p) => p.name);

describe('AbstractDirectory', () => {
  it('exposes its own URL, the consumer URL and the consumer URL interface', () => {
    const { runtime, cUrl, providers } = world(1);
    const rUrl = registryUrl();
    const dir = new StaticDirectory(runtime, rUrl, cUrl, providers);
    expect(dir.getUrl()).toBe(rUrl);
    expect(dir.getConsumerUrl()).toBe(cUrl);
    expect(dir.getInterface()).toBe('com.example.DemoService');
    expect(dir.toString()).toBe(rUrl.toString());
  });

  it('is destroyed only after destroy()', () => {
    const { runtime, cUrl, providers } = world(1);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    expect(dir.isDestroyed()).toBe(false);
    dir.destroy();
    expect(dir.isDestroyed()).toBe(true);
  });

  it('is available while one valid invoker is available, and not once destroyed', () => {
    const { runtime, cUrl, providers } = world(2);
    providers[0]!.available = false;
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    expect(dir.isAvailable()).toBe(true);
    dir.destroy();
    expect(dir.isAvailable()).toBe(false);
  });

  it('is not available when every invoker is unavailable', () => {
    const { runtime, cUrl, providers } = world(2);
    for (const p of providers) p.available = false;
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    expect(dir.isAvailable()).toBe(false);
  });

  it('lists the valid invokers through the router chain, and passes the full list to the chain', () => {
    const { runtime, cUrl, providers } = world(3);
    const chain = new RecordingChain((inv) => inv !== providers[1]);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers, chain);
    expect(chain.notified).toEqual([providers]);
    expect(names(dir.list(call()))).toEqual(['p0', 'p2']);
    expect(chain.routed).toEqual([providers]);
  });

  it('remembers the router that emptied the last list, and forgets it when a later list is not empty', () => {
    const { runtime, cUrl, providers } = world(2);
    let keepNothing = true;
    const chain = new RecordingChain(() => !keepNothing);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers, chain);
    expect(dir.list(call())).toEqual([]);
    expect(dir.lastEmptiedBy()).toEqual({ router: 'recording', before: 2, after: 0 });
    keepNothing = false;
    expect(names(dir.list(call()))).toEqual(['p0', 'p1']);
    expect(dir.lastEmptiedBy()).toBeUndefined();
  });

  it('setRouterChain hands the new chain the current invokers, routes through it and bumps the version', () => {
    const { runtime, cUrl, providers } = world(2);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    const before = dir.version;
    const chain = new RecordingChain((inv) => inv === providers[1]);
    dir.setRouterChain(chain);
    expect(dir.getRouterChain()).toBe(chain);
    expect(chain.notified).toEqual([providers]);
    expect(names(dir.list(call()))).toEqual(['p1']);
    expect(dir.version).toBe(before + 1);
  });

  it('with nothing set aside, the valid list is the notified list object itself (route caches key on it)', () => {
    const { runtime, cUrl, providers } = world(2);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    expect(dir.getValidInvokers()).toBe(providers);
    expect(dir.getAllInvokers()).toBe(providers);
  });
});

describe('AbstractDirectory connectivity validation', () => {
  it('addInvalidateInvoker sets the invoker aside from list() and bumps the version once', () => {
    const { runtime, cUrl, providers } = world(3);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    const v0 = dir.version;
    dir.addInvalidateInvoker(providers[1]!);
    expect(names(dir.list(call()))).toEqual(['p0', 'p2']);
    expect(names(dir.getAllInvokers())).toEqual(['p0', 'p1', 'p2']);
    expect(dir.version).toBe(v0 + 1);
    dir.addInvalidateInvoker(providers[1]!); // already set aside: nothing changes
    expect(dir.version).toBe(v0 + 1);
  });

  it('sets aside invokers one after another, several between two reads: each read lists the rest in order', () => {
    const { runtime, cUrl, providers } = world(6);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    const v0 = dir.version;
    dir.addInvalidateInvoker(providers[4]!);
    dir.addInvalidateInvoker(providers[1]!);
    expect(names(dir.getValidInvokers())).toEqual(['p0', 'p2', 'p3', 'p5']);
    dir.addInvalidateInvoker(providers[0]!);
    dir.addInvalidateInvoker(providers[5]!);
    dir.addInvalidateInvoker(providers[2]!);
    expect(names(dir.list(call()) as Invoker[])).toEqual(['p3']);
    expect(dir.version).toBe(v0 + 5);
  });

  it('a list holding an invoker twice: setting it aside drops the first of the two from the valid list', () => {
    const { runtime, cUrl, providers } = world(3);
    const [p0, p1, p2] = providers as [ProbeInvoker, ProbeInvoker, ProbeInvoker];
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, [p0, p1, p2, p1]);
    dir.addInvalidateInvoker(p1);
    expect(names(dir.getValidInvokers())).toEqual(['p0', 'p2', 'p1']);
    dir.addInvalidateInvoker(p0);
    expect(names(dir.getValidInvokers())).toEqual(['p2', 'p1']);
  });

  it('ignores an invoker it does not hold: no change, no version bump, no reconnect task', () => {
    const { sim, runtime, cUrl, providers } = world(3);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers.slice(0, 2));
    const v0 = dir.version;
    dir.addInvalidateInvoker(providers[2]!);
    expect(names(dir.getValidInvokers())).toEqual(['p0', 'p1']);
    expect(dir.version).toBe(v0);
    expect(sim.peek()).toBe(Infinity);
  });

  it('puts an invoker back 1000 ms after it was set aside if it is available again by then', () => {
    const { sim, runtime, cUrl, providers } = world(2);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    providers[0]!.available = false;
    dir.addInvalidateInvoker(providers[0]!);
    const v1 = dir.version;
    providers[0]!.available = true;
    sim.run({ until: 999 });
    expect(names(dir.list(call()))).toEqual(['p1']);
    sim.run({ until: 1000 });
    expect(names(dir.list(call()))).toEqual(['p0', 'p1']);
    expect(dir.version).toBe(v1 + 1);
  });

  it('keeps an invoker that is still unavailable aside and re-checks it every 1000 ms until it recovers', () => {
    const { sim, runtime, cUrl, providers } = world(2);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    providers[0]!.available = false;
    dir.addInvalidateInvoker(providers[0]!);
    const v1 = dir.version;
    sim.run({ until: 1000 });
    expect(names(dir.list(call()))).toEqual(['p1']);
    // a run that recovers nothing leaves the version (and so the route caches) alone
    expect(dir.version).toBe(v1);
    sim.schedule(500, () => (providers[0]!.available = true)); // available at 1500
    sim.run({ until: 1999 });
    expect(names(dir.list(call()))).toEqual(['p1']);
    sim.run({ until: 2000 });
    expect(names(dir.list(call()))).toEqual(['p0', 'p1']);
  });

  it('stops the reconnect task once nothing is set aside', () => {
    const { sim, runtime, cUrl, providers } = world(2);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    dir.addInvalidateInvoker(providers[0]!); // available: recovered by the first run
    sim.run();
    expect(sim.now).toBe(1000);
    expect(sim.peek()).toBe(Infinity);
  });

  it('runs one reconnect task at a time: each set-aside invoker is probed once per second', () => {
    const { sim, runtime, cUrl, providers } = world(3);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    providers[0]!.available = false;
    providers[1]!.available = false;
    dir.addInvalidateInvoker(providers[0]!);
    dir.addInvalidateInvoker(providers[1]!);
    providers[0]!.probes = 0;
    sim.run({ until: 3000 }); // runs at 1000, 2000 and 3000 ms
    expect(providers[0]!.probes).toBe(3);
  });

  it('checks every set-aside invoker in one run when there are fewer than 10', () => {
    const { sim, runtime, cUrl, providers } = world(4, 7);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    for (const p of providers.slice(0, 3)) dir.addInvalidateInvoker(p); // all available again at once
    sim.run({ until: 1000 });
    expect(names(dir.getValidInvokers())).toEqual(['p0', 'p1', 'p2', 'p3']);
  });

  it('with more than 10 set aside, checks 10 random draws (with replacement) per run', () => {
    const seed = 8;
    const { sim, runtime, cUrl, providers } = world(12, seed);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    for (const p of providers) dir.addInvalidateInvoker(p); // all 12 available again
    // The run draws 10 indexes into the set-aside list (in the order they were set aside) from the
    // directory's random stream; every drawn invoker is available, so exactly those come back.
    const replay = new RandomStreams(seed).stream('consumer');
    const drawn = new Set(Array.from({ length: 10 }, () => replay.nextInt(12)));
    const expected = providers.filter((_, i) => drawn.has(i)).map((p) => p.name);
    expect(expected.length).toBeLessThan(10); // the draws repeat, so some stay aside this run
    sim.run({ until: 1000 });
    expect(names(dir.getValidInvokers())).toEqual(expected);
  });

  it('with exactly 10 set aside, already draws 10 at random (AbstractDirectory.java line 333: size < reconnectTaskTryCount)', () => {
    const seed = 8;
    const { sim, runtime, cUrl, providers } = world(10, seed);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    for (const p of providers) dir.addInvalidateInvoker(p); // all 10 available again
    const replay = new RandomStreams(seed).stream('consumer');
    const drawn = new Set(Array.from({ length: 10 }, () => replay.nextInt(10)));
    const expected = providers.filter((_, i) => drawn.has(i)).map((p) => p.name);
    expect(expected.length).toBeLessThan(10); // not all of them: some stay aside this run
    sim.run({ until: 1000 });
    expect(names(dir.getValidInvokers())).toEqual(expected);
  });

  it('drops a set-aside invoker that left the list, and the reconnect task then stops', () => {
    const { sim, runtime, cUrl, providers } = world(2);
    const dir = new DynamicDirectory(runtime, registryUrl(), cUrl);
    dir.notify(providers);
    providers[0]!.available = false;
    dir.addInvalidateInvoker(providers[0]!);
    dir.notify([providers[1]!]);
    providers[0]!.probes = 0;
    sim.run();
    expect(providers[0]!.probes).toBe(0);
    expect(sim.peek()).toBe(Infinity);
  });

  it('a set-aside invoker that left and came back before the next run is valid again', () => {
    const { runtime, cUrl, providers } = world(2);
    const dir = new DynamicDirectory(runtime, registryUrl(), cUrl);
    dir.notify(providers);
    providers[0]!.available = false;
    dir.addInvalidateInvoker(providers[0]!);
    dir.notify([providers[1]!]);
    dir.notify(providers);
    expect(names(dir.list(call()))).toEqual(['p0', 'p1']);
  });

  it('a notification that still holds a set-aside invoker keeps it aside', () => {
    const { runtime, cUrl, providers } = world(3);
    const dir = new DynamicDirectory(runtime, registryUrl(), cUrl);
    dir.notify(providers.slice(0, 2));
    providers[0]!.available = false;
    dir.addInvalidateInvoker(providers[0]!);
    dir.notify(providers);
    expect(names(dir.list(call()))).toEqual(['p1', 'p2']);
  });

  it('over random pushes and set-asides, keeps aside exactly the set-aside invokers still listed (a plain model)', () => {
    const { runtime, cUrl, providers } = world(40);
    const rng = new RandomStreams(3).stream('test-choices');
    const dir = new DynamicDirectory(runtime, registryUrl(), cUrl);
    let listed: ProbeInvoker[] = providers.slice(0, 20);
    const aside: ProbeInvoker[] = [];
    dir.notify(listed);
    // Pushes of short lists (scanned) and long ones (a set), lists that drop and re-add providers.
    const lists = [providers.slice(0, 20), providers.slice(5, 30), providers.slice(0, 8), providers, providers.slice(20), providers.slice(0, 3)];
    for (let step = 0; step < 2000; step++) {
      if (rng.nextInt(3) === 0) {
        const next = lists[rng.nextInt(lists.length)]!.filter(() => rng.nextInt(10) > 0);
        if (next.length === 0) continue;
        dir.notify(next);
        listed = next;
        for (let i = aside.length - 1; i >= 0; i--) if (!listed.includes(aside[i]!)) aside.splice(i, 1);
      } else {
        const invoker = providers[rng.nextInt(providers.length)]!;
        dir.addInvalidateInvoker(invoker);
        if (listed.includes(invoker) && !aside.includes(invoker)) aside.push(invoker);
      }
      expect(names(dir.getValidInvokers()), `step ${step}`).toEqual(names(listed.filter((p) => !aside.includes(p))));
    }
  });

  it('stops checking set-aside invokers once destroyed', () => {
    const { sim, runtime, cUrl, providers } = world(2);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    providers[0]!.available = false;
    dir.addInvalidateInvoker(providers[0]!);
    dir.destroy();
    providers[0]!.available = true;
    providers[0]!.probes = 0;
    sim.run();
    expect(providers[0]!.probes).toBe(0);
    expect(names(dir.getValidInvokers())).toEqual(['p1']);
    expect(sim.peek()).toBe(Infinity);
  });
});

describe('StaticDirectory', () => {
  it('lists the invokers it was built with', () => {
    const { runtime, cUrl, providers } = world(2);
    const dir = new StaticDirectory(runtime, registryUrl(), cUrl, providers);
    expect(names(dir.list(call()))).toEqual(['p0', 'p1']);
    expect(dir.isForbidden()).toBe(false);
  });
});

describe('DynamicDirectory', () => {
  it('holds no invokers before the first notification', () => {
    const { runtime, cUrl } = world(0);
    const dir = new DynamicDirectory(runtime, registryUrl(), cUrl);
    expect(dir.getAllInvokers()).toEqual([]);
    expect(dir.list(call())).toEqual([]);
    expect(dir.isAvailable()).toBe(false);
  });

  it('a notification replaces the whole list', () => {
    const { runtime, cUrl, providers } = world(3);
    const dir = new DynamicDirectory(runtime, registryUrl(), cUrl);
    dir.notify(providers.slice(0, 2));
    dir.notify([providers[2]!]);
    expect(names(dir.list(call()))).toEqual(['p2']);
  });

  it('ignores an empty list without empty:// (empty protection keeps the old providers)', () => {
    const { runtime, cUrl, providers } = world(2);
    const dir = new DynamicDirectory(runtime, registryUrl(), cUrl);
    dir.notify(providers);
    dir.notify([]);
    expect(names(dir.list(call()))).toEqual(['p0', 'p1']);
    expect(dir.isForbidden()).toBe(false);
  });

  it('an empty:// push forbids the directory: list() gives the code-4 error with Dubbo message', () => {
    const { runtime, cUrl, providers } = world(2);
    const dir = new DynamicDirectory(runtime, registryUrl(), cUrl);
    dir.notify(providers);
    dir.notifyEmpty();
    expect(dir.isForbidden()).toBe(true);
    expect(dir.getAllInvokers()).toEqual([]);
    expect(dir.isAvailable()).toBe(false);
    // "No provider available from registry <dir address> for service <serviceKey> on consumer
    // <host> use dubbo version <v>, please check status of providers(disabled, not registered or in blocklist)."
    expect(dir.list(call())).toEqual({
      code: RpcCode.FORBIDDEN_EXCEPTION,
      message:
        `No provider available from registry registry:2181 for service com.example.DemoService on consumer 10.10.0.1 ` +
        `use dubbo version ${DUBBO_VERSION}, please check status of providers(disabled, not registered or in blocklist).`,
      cause: 'registry:forbidden',
    });
  });

  it('a non-empty notification after empty:// lifts the ban', () => {
    const { runtime, cUrl, providers } = world(1);
    const dir = new DynamicDirectory(runtime, registryUrl(), cUrl);
    dir.notifyEmpty();
    expect(dir.isAvailable()).toBe(false);
    dir.notify(providers);
    expect(dir.isForbidden()).toBe(false);
    expect(names(dir.list(call()))).toEqual(['p0']);
  });
});

/**
 * The plain AbstractDirectory bookkeeping, worked out eagerly at every change: the reference the
 * directory's shared-membership pruning and deferred filtering must agree with. A provider set aside
 * while the valid list is up to date (read since the last push) leaves it by a splice of its first
 * occurrence, as Dubbo's list removal does: in a list holding an invoker twice the second stays.
 */
class EagerValidReference {
  invokers: Invoker[] = [];
  readonly invalidated = new Set<Invoker>();
  valid: Invoker[] = [];
  version = 0;
  /** A push arrived with providers set aside and the list was not read since. */
  stale = false;
  notify(invokers: Invoker[]): void {
    this.invokers = invokers;
    for (const inv of [...this.invalidated]) if (!invokers.includes(inv)) this.invalidated.delete(inv);
    this.#filter();
    this.stale = this.invalidated.size > 0;
    this.version++;
  }
  read(): Invoker[] {
    this.stale = false;
    return this.valid;
  }
  addInvalidateInvoker(inv: Invoker): void {
    if (!this.invokers.includes(inv) || this.invalidated.has(inv)) return;
    this.invalidated.add(inv);
    const at = this.stale ? -1 : this.valid.indexOf(inv);
    if (at >= 0) this.valid = this.valid.filter((_, i) => i !== at);
    else this.#filter();
    this.version++;
  }
  /** One reconnect run with fewer than 10 set aside: every one is probed. */
  reconnect(): void {
    let changed = false;
    for (const inv of [...this.invalidated]) {
      if (!this.invokers.includes(inv) || inv.isAvailable()) {
        this.invalidated.delete(inv);
        changed = true;
      }
    }
    if (changed) {
      this.#filter();
      this.version++;
    }
  }
  #filter(): void {
    this.stale = false;
    this.valid = this.invokers.filter((i) => !this.invalidated.has(i));
  }
}

describe('AbstractDirectory set-aside bookkeeping against an eager reference', () => {
  it('over random pushes of short and long lists (some holding an invoker twice), set-asides and reconnect runs, the valid list and version agree', () => {
    const { sim, runtime, cUrl, providers } = world(40, 3);
    const rnd = new RandomStreams(11).stream('directory-differential');
    const dir = new DynamicDirectory(runtime, registryUrl(), cUrl);
    const ref = new EagerValidReference();
    let lists = 0;
    let duplicateReads = 0;
    for (let step = 0; step < 60_000; step++) {
      const op = rnd.nextInt(10);
      if (op < 3) {
        // A pushed list: a fresh array each time (short ones take the scan, long ones the shared set).
        const size = rnd.nextInt(2) === 0 ? 1 + rnd.nextInt(12) : 17 + rnd.nextInt(23);
        const list = providers.filter(() => rnd.nextInt(40) < size);
        if (list.length === 0) continue;
        // Now and then a list holding an invoker twice.
        if (rnd.nextInt(3) === 0) list.splice(rnd.nextInt(list.length + 1), 0, list[rnd.nextInt(list.length)]!);
        dir.notify(list);
        ref.notify(list);
        lists++;
      } else if (op < 6) {
        // Half the time one the list holds (so now and then the one it holds twice).
        const inv = rnd.nextInt(2) === 0 || ref.invokers.length === 0 ? providers[rnd.nextInt(providers.length)]! : ref.invokers[rnd.nextInt(ref.invokers.length)]!;
        (inv as ProbeInvoker).available = false;
        dir.addInvalidateInvoker(inv);
        ref.addInvalidateInvoker(inv);
      } else if (op < 8) {
        (providers[rnd.nextInt(providers.length)] as ProbeInvoker).available = true;
      } else if (op === 8 && ref.invalidated.size > 0 && ref.invalidated.size < 10) {
        // Let the directory's reconnect run fire, and run the reference's at the same instant.
        const due = sim.peek();
        if (due === Infinity) continue;
        sim.run({ until: due });
        ref.reconnect();
      } else {
        expect(names(dir.getValidInvokers()), `step ${step}`).toEqual(names(ref.read()));
        if (new Set(ref.invokers).size !== ref.invokers.length) duplicateReads++;
      }
      if (op < 3 && rnd.nextInt(3) === 0) continue; // sometimes read nothing between pushes
      expect(dir.version).toBe(ref.version);
    }
    expect(names(dir.getValidInvokers())).toEqual(names(ref.read()));
    expect(lists).toBeGreaterThan(10_000);
    expect(duplicateReads).toBeGreaterThan(1_500);
  });
});
