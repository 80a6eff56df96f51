/**
 * `type: zookeeper`: each provider's registration is an ephemeral node under
 * `/dubbo/<interface>/providers`, alive as long as its client's session. A live client pings
 * whenever it has sent nothing for `min(readTimeout/2 - 1 s, 10 s)` with `readTimeout =
 * 2/3·sessionTimeout` (ClientCnxn.SendThread), so a 40 s session is refreshed every 10 s. The
 * server expires a session `sessionTimeout` after it last heard from it, rounded up to the next
 * `tickTime` bucket (2 s, ExpiryQueue), and deletes its ephemeral nodes: a silent provider (crash,
 * black hole, cut off from the registry) disappears between `sessionTimeout - ping interval` and
 * `sessionTimeout + tickTime` after it fell silent. A graceful stop deletes the node at once.
 * Every child change fires the consumers' watchers: Dubbo re-reads the children and notifies the
 * full list (Dubbo 3 after its ZookeeperRegistryNotifier's sleep, see registry-notifier.ts). A client that is heard again after its session expired gets a new session and
 * Dubbo re-creates its nodes (`FailbackRegistry.recover`).
 *
 * `sessionTimeout` is the negotiated value: a ZooKeeper server clamps what Dubbo asks for
 * (60 s by default) into [2, 20]·tickTime, i.e. 40 s at most with the default tickTime; the
 * scenario gives the effective value and zonesim does not clamp it again.
 */
import type { RegistrySpec } from '../model/types.js';
import { DiscoveryRegistry, type RegistryHost, type RegistryOptions } from './registry-discovery.js';
import type { RegistryEntry } from './registry-entry.js';
import type { ProviderInstance } from './provider.js';
import { ZK_PING_BYTES, type RegistryClient, type RegistryServers } from './registry-servers.js';
import { ZookeeperClients } from './zookeeper-client.js';
import { ExpiryBuckets } from './expiry-buckets.js';

/** ZooKeeper's default `tickTime`: sessions expire in buckets of this width. */
export const ZK_TICK_TIME_MS = 2000;
/**
 * The session timeouts a ZooKeeper server grants with its defaults, `[2, 20]·tickTime`: a request
 * outside is clamped (ZooKeeperServer.processConnectRequest, minSessionTimeout / maxSessionTimeout).
 */
export const ZK_SESSION_TIMEOUT_RANGE_MS = { min: 2 * ZK_TICK_TIME_MS, max: 20 * ZK_TICK_TIME_MS } as const;

/** The session timeout a ZooKeeper server with the default tickTime grants a client that asks for `requestedMs`. */
export function zookeeperGrantedSessionMs(requestedMs: number): number {
  return Math.min(ZK_SESSION_TIMEOUT_RANGE_MS.max, Math.max(ZK_SESSION_TIMEOUT_RANGE_MS.min, requestedMs));
}

/** ClientCnxn: a ping is sent at the latest after this long without sending anything. */
export const ZK_MAX_SEND_PING_INTERVAL_MS = 10_000;

/** The interval between a live ZooKeeper client's pings for a negotiated session timeout. */
export function zookeeperPingIntervalMs(sessionTimeoutMs: number): number {
  const halfReadTimeout = sessionTimeoutMs / 3;
  const due = halfReadTimeout > 1000 ? halfReadTimeout - 1000 : halfReadTimeout;
  return Math.max(1, Math.min(due, ZK_MAX_SEND_PING_INTERVAL_MS));
}

/** ExpiryQueue.roundToNextInterval: the bucket in which a session last heard at `lastHeardMs` expires. */
export function zookeeperExpiryMs(lastHeardMs: number, sessionTimeoutMs: number): number {
  return (Math.floor((lastHeardMs + sessionTimeoutMs) / ZK_TICK_TIME_MS) + 1) * ZK_TICK_TIME_MS;
}

/** A ZooKeeper ensemble as Dubbo's ZookeeperRegistry uses it. */
export class ZookeeperRegistry extends DiscoveryRegistry {
  /** The registry as a server: the provider processes' clients and their connections (else null). */
  readonly #clients: ZookeeperClients | null;
  // Records held by a session Curator gave up (its own expiry) are `abandoned` (RegistryEntry): nobody touches
  // them any more; they go when the server expires that session, unless Dubbo's `recover()` creates them again
  // first. PERF: a flag on the record, not a WeakSet: a storm that suspends every session of an estate of
  // 10^5 processes with forty exports each put 4·10^6 records in the set, and V8's WeakSet took 53 s of a
  // 168 s run adding them (4·10^6 adds of a plain loop: 63 s; 1.6·10^6: 0.5 s).
  /** The registered records by session expiry bucket (SessionTrackerImpl's ExpiryQueue). */
  readonly #expiry = new ExpiryBuckets((e) => zookeeperExpiryMs(e.lastHeardMs, this.spec.sessionTimeoutMs));

  constructor(host: RegistryHost, spec: RegistrySpec, options: RegistryOptions) {
    super(host, spec, options, 'zookeeper');
    const servers = this.servers;
    this.#clients =
      servers === null
        ? null
        : new ZookeeperClients({
            sim: this.sim,
            observer: this.observer,
            servers,
            rng: host.streams.stream(`${options.streamPrefix}/zk-client`),
            sessionTimeoutMs: spec.sessionTimeoutMs,
            frozen: () => this.down,
            reattach: (instance) => this.#reattach(instance),
            recover: (instance) => this.registerAgain(instance, (e) => e.abandoned),
            abandon: (instance) => {
              for (const e of this.recordsOf(instance)) if (e.registered) e.abandoned = true;
            },
          });
    // SessionTrackerImpl wakes at each expiry bucket boundary.
    this.sim.schedule(ZK_TICK_TIME_MS, () => this.#expireSessions());
  }

  protected override onRegistered(entry: RegistryEntry): void {
    this.#expiry.file(entry);
  }

  protected tickIntervalMs(): number {
    return zookeeperPingIntervalMs(this.spec.sessionTimeoutMs);
  }

  protected livenessBytes(): typeof ZK_PING_BYTES {
    return ZK_PING_BYTES;
  }

  protected override clientConnected(client: RegistryClient, instance: ProviderInstance): boolean {
    return this.#clients === null || this.#clients.connected(client, instance);
  }

  protected override registrationHeld(client: RegistryClient): boolean {
    return this.#clients !== null && this.#clients.registrationHeld(client);
  }

  protected override onRegistrationFailed(client: RegistryClient): void {
    this.#clients?.registrationFailed(client);
  }

  /**
   * A ping of the current session does not touch a record an abandoned session holds; a registration
   * does: Dubbo deletes the node it finds and creates it again under the new session (NodeExists, faultTolerant).
   */
  protected override touches(entry: RegistryEntry, registration: boolean): boolean {
    if (!entry.abandoned) return true;
    if (registration) entry.abandoned = false;
    return registration;
  }

  protected override onReplied(client: RegistryClient, backMs: number): void {
    this.#clients?.replied(client, backMs);
  }

  /** ZooKeeper writes (registrations, deletions, session expiry) need a majority of the ensemble up. */
  protected override quorumLost(servers: RegistryServers): boolean {
    let up = 0;
    for (const n of servers.nodes) if (n.up) up++;
    return 2 * up <= servers.nodes.length;
  }

  /** A reconnecting client's session: re-attached (touched) while the server holds any of its nodes. */
  #reattach(instance: ProviderInstance): boolean {
    const records = this.recordsOf(instance).filter((e) => e.registered && !e.abandoned);
    for (const e of records) e.lastHeardMs = this.sim.now;
    return records.length > 0;
  }

  #expireSessions(): void {
    if (!this.down) {
      const now = this.sim.now;
      const servers = this.servers;
      // One session per process and level (a 3.3 process registers each level over its own ZooKeeper
      // client), however many records it holds there.
      const expired = servers === null ? null : new Map<ProviderInstance, Set<string>>();
      // The records a scan of every registered record would find expired, in its order; one expired
      // earlier in this sweep may have touched a later one (a lost connection), hence the check again.
      for (const e of this.#expiry.due(now)) {
        if (zookeeperExpiryMs(e.lastHeardMs, this.spec.sessionTimeoutMs) <= now) {
          this.remove(e);
          this.observer.count('registry.sessionExpired');
          // An abandoned session has no connection left to close: the process's new one is not touched.
          const abandoned = e.abandoned;
          e.abandoned = false;
          let levels = expired?.get(e.instance);
          if (expired !== null && levels === undefined) expired.set(e.instance, (levels = new Set()));
          const session = `${this.levelOf(e)}${abandoned ? '/abandoned' : ''}`;
          if (levels !== undefined && !levels.has(session)) {
            levels.add(session);
            const client = servers!.clientOf(e.instance, e.provider.zone);
            servers!.nodeOf(client).sessionExpired(now);
            // The server closes the expired session's connection: the client learns it is Expired on reconnect.
            if (!abandoned) this.#clients?.lose(client);
          }
        } else if (e.registered) this.#expiry.file(e);
      }
      this.publish();
    }
    this.sim.schedule(ZK_TICK_TIME_MS, () => this.#expireSessions());
  }
}
