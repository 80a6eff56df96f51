/**
 * What the Nacos server and clients do about a push that is slow to arrive, when the registry is
 * modeled as a server (SPEC 2.5 `servers` / `capacity`; research-40 rules 14–16): the acks the server
 * waits for, and the Nacos 1.x client's polling. It owns the timers of those rules; the pushes themselves,
 * their order and what a list does once it arrives are `PushDelivery`'s.
 *
 * - Nacos 2.x (gRPC): the server waits `pushTaskTimeout` = 5 s for the consumer's ack of each push; a push
 *   not acked by then fails and is tried again for that subscriber alone `pushTaskRetryDelay` = 1 s later,
 *   with the list of then (PushExecuteTask). The late push still arrives (the stream delivers it).
 * - Nacos 1.x (UDP): a push not acked within 10 s is sent once more, and given up 20 s after it was first
 *   sent (PushService `ACK_TIMEOUT_NANOS`, `MAX_RETRY_TIMES` = 1): `pushesLost` on its node.
 * - The Nacos 1.x client queries every subscribed service every `cacheMillis` = 10 s, whether pushes arrive
 *   or not (HostReactor.UpdateTask, first run 1 s after the subscription): a request on its node and the
 *   whole list's bytes on the node's out NIC. The list it gets is applied only when no push reached the
 *   service since the previous query (otherwise it just keeps the client a push target); a failed query
 *   (no node reachable, empty list) is retried after `1 s << failures` (at most 6), at most 60 s.
 *
 * The ack's own trip back is not modeled: a push is acked when it arrives. DIVERGENCE: a UDP datagram
 * queued on a saturated NIC is delayed here, never dropped (a kernel's full socket buffer would drop it);
 * the HTTP query's 50 s read timeout is not modeled (its answer is applied however late).
 */
import type { Simulation } from '../engine/simulation.js';
import type { WorldObserver } from '../metrics/observer.js';
import type { Snapshot, Subscription } from './registry-subscription.js';
import { REQUEST_OVERHEAD_BYTES, type RegistryClient, type RegistryServers } from './registry-servers.js';

/** Nacos 2.x: how long the server waits for a push's ack (`nacos.naming.push.pushTaskTimeout`). */
export const NACOS2_PUSH_ACK_TIMEOUT_MS = 5000;
/** Nacos 1.x: how long the server waits for a UDP push's ack before sending it again (PushService `ACK_TIMEOUT_NANOS`). */
export const NACOS1_UDP_ACK_TIMEOUT_MS = 10_000;
/** Nacos 1.x: a UDP push is sent at most this many times more (PushService `MAX_RETRY_TIMES`). */
export const NACOS1_UDP_MAX_RETRIES = 1;
/** Nacos 1.x client: the query period the server gives a push-capable client (`pushCacheMillis`). */
export const NACOS1_POLL_MS = 10_000;
/** Nacos 1.x client: the first query after a subscription, and the unit of the failure backoff (HostReactor `DEFAULT_DELAY`). */
export const NACOS1_FIRST_POLL_MS = 1000;
/** Nacos 1.x client: failures counted at most (UpdateTask `MAX_FAIL_COUNT`); the backoff is capped at 60 s. */
const MAX_FAIL_COUNT = 6;
const MAX_POLL_DELAY_MS = 60 * NACOS1_FIRST_POLL_MS;

/** What the rules need from their push delivery. */
export interface NacosPushAckHost {
  readonly sim: Simulation;
  readonly observer: WorldObserver;
  readonly servers: RegistryServers;
  /** The registry answers requests from `zone` now (up, not cut off; pushes switched off or not). */
  canReach(zone: string): boolean;
  /** The current list `key`. */
  snapshot(key: string): Snapshot;
  /** `sub` gets the then current list `delayMs` from now (one such retry pending at a time). */
  retry(sub: Subscription, delayMs: number): void;
  /** A query's list arrives at `sub`'s consumer now, its sequence number `seq` (a delivery like a push's). */
  arrive(sub: Subscription, seq: number, snapshot: Snapshot): void;
}

/** A 1.x client's query loop of one subscription. */
interface Poll {
  failures: number;
  /**
   * `sub.deliveredSeq` when the last query's answer was handled: a push since then makes the next one a
   * refresh only; null before the first (whose answer is applied: `lastRefTime` starts at Long.MAX_VALUE).
   */
  seenSeq: number | null;
}

/** The ack timers and 1.x queries of one registry's Nacos subscriptions (see the module note). */
export class NacosPushAcks {
  readonly #host: NacosPushAckHost;
  /** The last list sent to each subscription, pushed or answered (what its consumer has or will have). */
  readonly #lastSent = new WeakMap<Subscription, Snapshot>();

  constructor(host: NacosPushAckHost) {
    this.#host = host;
  }

  /**
   * A push of `snapshot` (`bytes` on the wire) to `sub`'s `client` left the node at `leftMs` and arrives at
   * `arrivalMs`; sent now by a consumer with Nacos client `version`. Arms the server's ack rule if it is late.
   */
  pushed(sub: Subscription, client: RegistryClient, version: '1.x' | '2.x', snapshot: Snapshot, bytes: number, leftMs: number, arrivalMs: number): void {
    this.sent(sub, snapshot);
    const host = this.#host;
    const now = host.sim.now;
    if (version === '2.x') {
      if (arrivalMs - now <= NACOS2_PUSH_ACK_TIMEOUT_MS) return;
      // The callback times out: that subscriber alone gets the list of then a retry delay later.
      host.sim.schedule(NACOS2_PUSH_ACK_TIMEOUT_MS, () => {
        host.observer.count('registry.pushAckTimeout', sub.members);
        host.retry(sub, 1000);
      });
      return;
    }
    if (arrivalMs - now <= NACOS1_UDP_ACK_TIMEOUT_MS) return;
    const lagMs = arrivalMs - leftMs;
    let ackedMs = arrivalMs;
    let retries = 0;
    const resend = (): void => {
      // Not acked: the same datagram again, behind what the NIC holds now.
      retries++;
      host.observer.count('registry.pushResent', sub.members);
      const left = host.servers.push(client, host.sim.now, bytes, sub.members);
      if (left !== undefined) ackedMs = Math.min(ackedMs, left + lagMs);
      const next = now + (retries + 1) * NACOS1_UDP_ACK_TIMEOUT_MS;
      if (ackedMs <= next) return;
      if (retries < NACOS1_UDP_MAX_RETRIES) host.sim.schedule(next - host.sim.now, resend);
      else if (left !== undefined) host.sim.schedule(next - host.sim.now, () => (host.servers.nodeOf(client).pushesLost += sub.members));
    };
    host.sim.schedule(NACOS1_UDP_ACK_TIMEOUT_MS, resend);
  }

  /** `sub` was sent `snapshot` (a push, the read of `subscribe`): a query that finds it changes nothing. */
  sent(sub: Subscription, snapshot: Snapshot): void {
    this.#lastSent.set(sub, snapshot);
  }

  /** A Nacos 1.x consumer subscribed `sub`: its client queries the list 1 s from now, then every 10 s. */
  subscribed(sub: Subscription, client: RegistryClient): void {
    const poll: Poll = { failures: 0, seenSeq: null };
    this.#host.sim.schedule(NACOS1_FIRST_POLL_MS, () => this.#query(sub, client, poll));
  }

  /** One query of `sub`'s list (HostReactor.UpdateTask.run). */
  #query(sub: Subscription, client: RegistryClient, poll: Poll): void {
    const host = this.#host;
    const sim = host.sim;
    const servers = host.servers;
    const node = host.canReach(sub.subscriber.zone) ? servers.request(client, sim.now, REQUEST_OVERHEAD_BYTES + sub.key.length, sub.members) : null;
    if (node === null) {
      this.#next(sub, client, poll, false, sim.now);
      return;
    }
    host.observer.count('registry.polls', sub.members);
    sim.schedule(servers.processedAtMs - sim.now, () => {
      // The node reads the list when it processes the query; the answer waits on its out NIC.
      const snapshot = host.snapshot(sub.key);
      const back = Math.max(servers.reply(node, sim.now, snapshot.bytes, sub.members), sub.lastArrivalMs);
      const seq = ++sub.sentSeq;
      sub.lastArrivalMs = back;
      const sent = this.#lastSent.get(sub);
      this.#lastSent.set(sub, snapshot);
      sim.schedule(back - sim.now, () => {
        // Applied only when no push reached the service since the last query, and only a list it was not sent.
        if ((poll.seenSeq === null || sub.deliveredSeq === poll.seenSeq) && snapshot !== sent) {
          host.observer.count('registry.pollRepairs', sub.members);
          host.arrive(sub, seq, snapshot);
        }
        poll.seenSeq = sub.deliveredSeq;
        this.#next(sub, client, poll, snapshot.entries.length > 0, sim.now);
      });
    });
  }

  /** The next query: `cacheMillis` after a good answer, a growing backoff after a failure or an empty list. */
  #next(sub: Subscription, client: RegistryClient, poll: Poll, ok: boolean, nowMs: number): void {
    let delayMs = NACOS1_POLL_MS;
    if (ok) poll.failures = 0;
    else {
      if (poll.failures < MAX_FAIL_COUNT) poll.failures++;
      delayMs = Math.min(NACOS1_FIRST_POLL_MS << poll.failures, MAX_POLL_DELAY_MS);
    }
    this.#host.sim.schedule(nowMs + delayMs - this.#host.sim.now, () => this.#query(sub, client, poll));
  }
}
