/**
 * ZooKeeper's ExpiryQueue, kept lazily: each registry record is filed under the expiry bucket its
 * session had when it was filed, and a sweep looks only at the buckets that have come due. A record's
 * expiry only moves later (it is recomputed from when the server last heard from it), so a record
 * filed at a due bucket either has expired or is filed again under its present bucket. A sweep thus
 * finds exactly the records a scan of every record would, at a cost that follows the records that
 * come due rather than all of them (at the seed articles' scale, 800,000 records every 2 s).
 */
import type { RegistryEntry } from './registry-entry.js';

/** The records of one registry filed by expiry bucket. */
export class ExpiryBuckets {
  readonly #buckets = new Map<number, RegistryEntry[]>();
  readonly #expiryOf: (e: RegistryEntry) => number;

  /** `expiryOf(e)`: when record `e`'s session expires now (never earlier than it said before). */
  constructor(expiryOf: (e: RegistryEntry) => number) {
    this.#expiryOf = expiryOf;
  }

  /** Files a record the server has just taken in, unless it is still filed from before (its bucket is then no later than its expiry). */
  file(e: RegistryEntry): void {
    if (e.expiryBucketMs < 0) this.#put(e, this.#expiryOf(e));
  }

  /**
   * The registered records whose expiry is at or before `nowMs`, in the order the server took them in
   * (`registeredOrder`); the others of the due buckets are filed again under their present bucket.
   */
  due(nowMs: number): RegistryEntry[] {
    const out: RegistryEntry[] = [];
    for (const [at, list] of this.#buckets) {
      if (at > nowMs) continue;
      this.#buckets.delete(at);
      // A record is filed under one bucket at a time: a record dropped and registered again stays where it was.
      for (const e of list) {
        e.expiryBucketMs = -1;
        if (!e.registered) continue;
        const expiry = this.#expiryOf(e);
        if (expiry <= nowMs) out.push(e);
        else this.#put(e, expiry);
      }
    }
    return out.sort((a, b) => a.registeredOrder - b.registeredOrder);
  }

  #put(e: RegistryEntry, at: number): void {
    e.expiryBucketMs = at;
    const list = this.#buckets.get(at);
    if (list === undefined) this.#buckets.set(at, [e]);
    else list.push(e);
  }
}
