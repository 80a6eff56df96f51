import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import { ExpiryBuckets } from '../../src/world/expiry-buckets.js';
import type { RegistryEntry } from '../../src/world/registry-entry.js';
import { zookeeperExpiryMs } from '../../src/world/registry-zookeeper.js';

const SESSION_MS = 40_000;

function record(i: number): RegistryEntry {
  return { service: `s${i}`, registered: false, listed: false, healthy: true, gone: false, left: false, lastHeardMs: 0, registeredOrder: 0, expiryBucketMs: -1 } as unknown as RegistryEntry;
}

/**
 * Records registered, heard, dropped and registered again at random; every 2 s a sweep takes what has
 * expired. `lazy` finds them through ExpiryBuckets, otherwise by scanning every registered record in
 * registration order (what ZookeeperRegistry did). Returns every sweep's expired records by name.
 */
function sweeps(seed: number, lazy: boolean): string[][] {
  const rng = new RandomStreams(seed).stream('expiry-buckets-test');
  const records = Array.from({ length: 300 }, (_, i) => record(i));
  const registered = new Set<RegistryEntry>();
  const buckets = new ExpiryBuckets((e) => zookeeperExpiryMs(e.lastHeardMs, SESSION_MS));
  let order = 0;
  const register = (e: RegistryEntry, now: number): void => {
    e.lastHeardMs = now;
    if (e.registered) return;
    e.registered = true;
    e.registeredOrder = order++;
    registered.add(e);
    if (lazy) buckets.file(e);
  };
  const remove = (e: RegistryEntry): void => {
    e.registered = false;
    registered.delete(e);
  };
  const out: string[][] = [];
  for (let now = 0; now <= 400_000; now += 500) {
    // Between sweeps: registrations, pings (some records fall silent for long), graceful removals.
    for (let k = 0; k < 30; k++) {
      const e = records[rng.nextInt(records.length)]!;
      const r = rng.next();
      if (r < 0.3) {
        if (!e.registered || r < 0.05) register(e, now);
      }
      else if (r < 0.9) {
        // A third of the records never ping: they expire unless registered again.
        if (e.registered && Number(e.service.slice(1)) % 3 !== 0) e.lastHeardMs = now;
      } else if (r < 0.92) remove(e);
    }
    if (now % 2000 !== 0) continue;
    const candidates = lazy ? buckets.due(now) : [...registered].filter((e) => zookeeperExpiryMs(e.lastHeardMs, SESSION_MS) <= now);
    for (const e of candidates) remove(e);
    out.push(candidates.map((e) => e.service));
  }
  return out;
}

describe('ExpiryBuckets', () => {
  it.each([1, 2, 3])('finds at each sweep exactly the records a scan of every registered record finds expired, in registration order (seed %i)', (seed) => {
    const scan = sweeps(seed, false);
    const lazy = sweeps(seed, true);
    expect(scan.flat().length).toBeGreaterThan(200);
    expect(scan.filter((s) => s.length > 1).length).toBeGreaterThan(20);
    expect(lazy).toEqual(scan);
  });

  it('does not look at a record again until its bucket comes due', () => {
    let looked = 0;
    const buckets = new ExpiryBuckets((e) => {
      looked++;
      return zookeeperExpiryMs(e.lastHeardMs, SESSION_MS);
    });
    const e = record(1);
    e.registered = true;
    buckets.file(e);
    // Filed under (0 + 40 s) rounded up to the next 2 s bucket: 42 s.
    expect(e.expiryBucketMs).toBe(42_000);
    looked = 0;
    for (let now = 2000; now < 42_000; now += 2000) expect(buckets.due(now)).toEqual([]);
    expect(looked).toBe(0);
    e.lastHeardMs = 30_000;
    expect(buckets.due(42_000)).toEqual([]);
    expect([looked, e.expiryBucketMs]).toEqual([1, 72_000]);
    expect(buckets.due(72_000)).toEqual([e]);
  });
});
