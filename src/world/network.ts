/**
 * The network between zones: a round-trip-time distribution per ordered zone pair (each message
 * draws rtt/2), partitions that lose messages in both directions, and RTT changes from faults.
 * It does not know about RPC; callers ask for a one-way delay and get -1 when the message is lost.
 */
import { sampler, type DistSpec, type Sampler } from '../engine/distributions.js';
import type { Rng } from '../engine/random.js';
import type { NetworkSpec } from '../scenario/types.js';

/** One-way delays between zones. */
export class Network {
  readonly #rng: Rng;
  readonly #zones: string[];
  readonly #samplers = new Map<string, Sampler>();
  readonly #partitions = new Set<string>();

  constructor(spec: NetworkSpec, zones: string[], rng: Rng) {
    this.#rng = rng;
    this.#zones = zones;
    for (const a of zones) {
      for (const b of zones) this.#samplers.set(pairKey(a, b), sampler(a === b ? spec.sameZone : spec.default, rng));
    }
    for (const p of spec.pairs) this.#samplers.set(pairKey(p.from, p.to), sampler(p.dist, rng));
  }

  /** A one-way delay in ms for a message from zone `from` to zone `to` (rtt/2 of one draw), or -1 if lost. */
  oneWayMs(from: string, to: string): number {
    if (this.#partitions.size > 0 && this.#partitions.has(pairKey(from, to))) return -1;
    const s = this.#samplers.get(pairKey(from, to));
    if (s === undefined) throw new Error(`no RTT for ${from}->${to}`);
    return s() / 2;
  }

  /** True when messages between the zones are lost. */
  isPartitioned(a: string, b: string): boolean {
    return this.#partitions.has(pairKey(a, b));
  }

  /** Loses every message between `a` and `b`, both directions. */
  partition(a: string, b: string): void {
    this.#partitions.add(pairKey(a, b));
    this.#partitions.add(pairKey(b, a));
  }

  /** Undoes `partition`. */
  heal(a: string, b: string): void {
    this.#partitions.delete(pairKey(a, b));
    this.#partitions.delete(pairKey(b, a));
  }

  /** Replaces the RTT distribution between `a` and `b` (both directions); returns a function that restores the old ones. */
  setRtt(a: string, b: string, dist: DistSpec): () => void {
    const ab = this.#samplers.get(pairKey(a, b))!;
    const ba = this.#samplers.get(pairKey(b, a))!;
    const s = sampler(dist, this.#rng);
    this.#samplers.set(pairKey(a, b), s);
    this.#samplers.set(pairKey(b, a), s);
    return () => {
      this.#samplers.set(pairKey(a, b), ab);
      this.#samplers.set(pairKey(b, a), ba);
    };
  }

  get zones(): readonly string[] {
    return this.#zones;
  }
}

function pairKey(a: string, b: string): string {
  return `${a}\u0000${b}`;
}
