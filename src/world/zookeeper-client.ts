/**
 * The ZooKeeper client of each provider process when the registry is modeled as a server
 * (`registry.servers` / `registry.capacity`): its connection to one node, the read timeout, the
 * reconnect, and what Curator and Dubbo do when the session comes back or is gone. It owns the
 * connection's timing; what a session holds (the ephemeral nodes, their expiry) is `ZookeeperRegistry`'s.
 *
 * Rules (research-40 §1, §3, from ZooKeeper 3.7.2's ClientCnxn, Curator 5.7.1, Dubbo 3.3):
 * - "Heard" is any complete frame; nothing heard for `readTimeout = 2/3 · sessionTimeout` is a
 *   connection loss (ClientCnxn SendThread). Here the frames are the answers to the process's pings
 *   and registrations, which wait on the node's out NIC behind every push queued before them.
 * - After a loss the client sleeps a uniform [0, 1 s) and connects to the next node of its own order
 *   (StaticHostProvider); a connect request goes through that node's queues like any request and must
 *   be answered within `connectTimeout = sessionTimeout / nodes`, else the next node is tried.
 * - The server re-attaches the session if it still holds it (touching it); otherwise the client is told
 *   Expired, opens a new session, and Dubbo's `recover()` re-registers every URL from the
 *   FailbackRegistry retry timer, 5 to 10 s later (a 5 s wheel: it fires at `(⌊t/5 s⌋ + 2) · 5 s`).
 * - Curator's own expiry (research-40 rule 6; ConnectionStateManager, `simulatedSessionExpirationPercent`
 *   100): a whole negotiated session spent SUSPENDED (from the loss, without a connect answered) and
 *   Curator injects an expiration: the old ZooKeeper handle is closed (its connect attempt on the way is
 *   dropped) and a new one connects at once, without a session, so it opens a new one whatever the server
 *   still holds. The old session is touched by nobody from then on: the server expires it a session after
 *   its last touch and deletes its nodes (`abandon`), unless Dubbo's `recover()` has created them again
 *   under the new session first. A new handle's first connect waits `requested / nodes` (Dubbo asks 60 s),
 *   not the negotiated timeout's share (ClientCnxn recomputes it only once connected).
 *
 * DIVERGENCE: the extra 1 s sleep when StaticHostProvider comes round to the last node is not modeled;
 * a new handle keeps its process's node order (ZooKeeper shuffles the connect string again).
 */
import type { QueueEntry } from '../engine/event-queue.js';
import type { Rng } from '../engine/random.js';
import { NORMAL, type Simulation } from '../engine/simulation.js';
import type { WorldObserver } from '../metrics/observer.js';
import type { ProviderInstance } from './provider.js';
import type { RegistryClient, RegistryNode, RegistryServers } from './registry-servers.js';
import { failbackRetryAtMs } from './registry-push-delivery.js';

/** Times closer than this are one instant (agenda times are sums of doubles). */
const TIME_EPSILON_MS = 1e-6;

/** The session timeout Dubbo asks for (AbstractZookeeperClient `DEFAULT_SESSION_TIMEOUT_MS`, both lines). */
export const DUBBO_REQUESTED_SESSION_MS = 60_000;

/** Bytes of a ZooKeeper ConnectRequest and ConnectResponse with their length prefix (zookeeper.jute). */
export const ZK_CONNECT_BYTES = { request: 49, reply: 41 } as const;

/** What the ZooKeeper clients need from their registry. */
export interface ZookeeperClientHost {
  readonly sim: Simulation;
  readonly observer: WorldObserver;
  readonly servers: RegistryServers;
  readonly rng: Rng;
  readonly sessionTimeoutMs: number;
  /** The ensemble serves nothing (election, no quorum, `registryDown`). */
  frozen(): boolean;
  /** The server still holds the process's session; touching it (a re-attach) when it does. */
  reattach(instance: ProviderInstance): boolean;
  /** Dubbo's `recover()`: registers the process's URLs again; returns how many. */
  recover(instance: ProviderInstance): number;
  /** Curator gave the process's session up: the records the server holds for it now belong to nobody. */
  abandon(instance: ProviderInstance): void;
}

/** One provider process's connection. */
interface Connection {
  readonly instance: ProviderInstance;
  readonly client: RegistryClient;
  connected: boolean;
  /** Arrival times of answers on their way, in order. */
  pending: number[];
  /** When it last heard a complete frame. */
  heardMs: number;
  /** The read-timeout check, while connected. */
  check: QueueEntry | null;
  /** A reconnect attempt is scheduled or running. */
  reconnecting: boolean;
  /** A new session waits for Dubbo's retry timer to register again until then. */
  registerAtMs: number;
  /** Curator's SUSPENDED clock: the injected expiration, while disconnected. */
  suspension: QueueEntry | null;
  /** The ZooKeeper handle: a new one (Curator's reset) drops the old one's connect attempt on the way. */
  handle: number;
  /** The current handle has never connected: it opens a new session, with the requested timeout's connect timeout. */
  fresh: boolean;
}

/**
 * One connect attempt on its way (PERF: what its timers read, one object per attempt instead of the
 * closures of each step; in a reconnect storm at seed scale some 20,000 attempts start per simulated
 * second, and each waits seconds in a node's queues: long enough to outlive the young generation).
 */
class ConnectAttempt {
  /** The node it went to (null until sent), when its connect timeout passes, and the server's answer. */
  node: RegistryNode | null = null;
  deadlineMs = 0;
  reattached = false;

  constructor(
    readonly c: Connection,
    readonly handle: number,
  ) {}
}

/** The ZooKeeper clients of a registry's provider processes (see the module note). */
export class ZookeeperClients {
  readonly #host: ZookeeperClientHost;
  readonly #readTimeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #freshConnectTimeoutMs: number;

  constructor(host: ZookeeperClientHost) {
    this.#host = host;
    this.#readTimeoutMs = (host.sessionTimeoutMs * 2) / 3;
    const nodes = host.servers.nodes.length;
    this.#connectTimeoutMs = host.sessionTimeoutMs / nodes;
    this.#freshConnectTimeoutMs = Math.max(DUBBO_REQUESTED_SESSION_MS, host.sessionTimeoutMs) / nodes;
  }

  /**
   * Whether `instance`'s client is connected now. A client whose node went out of reach loses its
   * connection here; one without a connection starts reconnecting (unless it already is).
   */
  connected(client: RegistryClient, instance: ProviderInstance): boolean {
    const c = this.#of(client, instance);
    if (c.connected && (client.node === null || !this.#host.servers.reachable(client.node, client.zone))) this.lose(client);
    if (!c.connected && !c.reconnecting && instance.state === 'up') this.#scheduleReconnect(c, 0);
    return c.connected;
  }

  /** True while a new session waits for Dubbo's retry timer to register the process again. */
  registrationHeld(client: RegistryClient): boolean {
    const c = client.session as Connection | null;
    return c !== null && c.registerAtMs > this.#host.sim.now;
  }

  /** An answer to `client` leaves its node now and arrives at `backMs`. */
  replied(client: RegistryClient, backMs: number): void {
    const c = client.session as Connection | null;
    if (c === null || !c.connected) return;
    c.pending.push(backMs);
    this.#armCheck(c);
  }

  /** `client` loses its connection now (nothing heard, its node gone, its session closed by the server). */
  lose(client: RegistryClient): void {
    const c = client.session as Connection | null;
    if (c === null || !c.connected) return;
    const sim = this.#host.sim;
    c.connected = false;
    c.pending = [];
    if (c.check !== null) {
      sim.cancel(c.check);
      c.check = null;
    }
    this.#host.servers.disconnect(client);
    this.#host.observer.count('registry.connectionLoss');
    // Curator: SUSPENDED now; LOST (an injected expiration) a whole session later unless connected again.
    if (c.suspension === null) c.suspension = sim.schedule(this.#host.sessionTimeoutMs, this.#onSuspensionEnd, NORMAL, c);
    this.#scheduleReconnect(c, this.#host.rng.next() * 1000);
  }

  readonly #onSuspensionEnd = (c: unknown): void => this.#injectExpiration(c as Connection);

  /** Curator's injected expiration: a new handle, connecting at once without a session. */
  #injectExpiration(c: Connection): void {
    c.suspension = null;
    const state = c.instance.state;
    // A dead process has no Curator left to give anything up.
    if (c.connected || state === 'crashed' || state === 'stopped') return;
    const host = this.#host;
    host.observer.count('registry.sessionAbandoned');
    host.abandon(c.instance);
    c.handle++;
    c.fresh = true;
    // A black-holed process's new handle reaches no node: it tries when it is heard from again (`connected`).
    if (state !== 'up') {
      c.reconnecting = false;
      return;
    }
    c.reconnecting = true;
    this.#attempt(new ConnectAttempt(c, c.handle));
  }

  #of(client: RegistryClient, instance: ProviderInstance): Connection {
    let c = client.session as Connection | null;
    if (c === null) {
      // Connected when the process starts, to the first node of its order it reaches.
      this.#host.servers.connect(client);
      c = {
        instance,
        client,
        connected: true,
        pending: [],
        heardMs: this.#host.sim.now,
        check: null,
        reconnecting: false,
        registerAtMs: -1,
        suspension: null,
        handle: 0,
        fresh: false,
      };
      client.session = c;
      this.#armCheck(c);
    }
    return c;
  }

  #armCheck(c: Connection): void {
    if (c.check !== null) return;
    const now = this.#host.sim.now;
    c.check = this.#host.sim.schedule(Math.max(0, c.heardMs + this.#readTimeoutMs - now), this.#onCheck, NORMAL, c);
  }

  readonly #onCheck = (c: unknown): void => this.#checkRead(c as Connection);

  /** The read-timeout check: the answers that have arrived are heard; nothing for `readTimeout` is a loss. */
  #checkRead(c: Connection): void {
    c.check = null;
    if (!c.connected) return;
    const now = this.#host.sim.now;
    let i = 0;
    while (i < c.pending.length && c.pending[i]! <= now) c.heardMs = c.pending[i++]!;
    if (i > 0) c.pending.splice(0, i);
    const state = c.instance.state;
    // A dead process's connection closes with it; nothing to check any more.
    if (state === 'crashed' || state === 'stopped') return;
    // The check was set for `heardMs + readTimeout`: the agenda's time may miss it by a rounding error.
    if (now - c.heardMs >= this.#readTimeoutMs - TIME_EPSILON_MS) this.lose(c.client);
    else this.#armCheck(c);
  }

  #scheduleReconnect(c: Connection, delayMs: number): void {
    c.reconnecting = true;
    this.#host.sim.schedule(delayMs, this.#onAttempt, NORMAL, new ConnectAttempt(c, c.handle));
  }

  readonly #onAttempt = (a: unknown): void => this.#attempt(a as ConnectAttempt);
  readonly #onAnswer = (a: unknown): void => this.#answer(a as ConnectAttempt);
  readonly #onConnected = (a: unknown): void => {
    const { c, handle, reattached } = a as ConnectAttempt;
    this.#connected(c, handle, reattached);
  };

  /** One connect attempt of its handle to the next node of the client's order (nothing once Curator replaced it). */
  #attempt(a: ConnectAttempt): void {
    const host = this.#host;
    const sim = host.sim;
    const c = a.c;
    if (a.handle !== c.handle) return;
    if (c.instance.state !== 'up') {
      // Dead or black-holed: it tries again when it is heard from (`connected`).
      c.reconnecting = false;
      return;
    }
    const node = host.frozen() ? null : host.servers.nextNode(c.client);
    if (node === null) {
      this.#scheduleReconnect(c, 1000 + host.rng.next() * 1000);
      return;
    }
    const startMs = sim.now;
    host.servers.request(c.client, startMs, ZK_CONNECT_BYTES.request);
    const processedMs = host.servers.processedAtMs;
    a.node = node;
    a.deadlineMs = startMs + (c.fresh ? this.#freshConnectTimeoutMs : this.#connectTimeoutMs);
    // Not processed within the connect timeout: the next node (the same handle's next attempt, which
    // takes this attempt's object over: nothing else holds it).
    if (processedMs > a.deadlineMs) sim.schedule(a.deadlineMs - startMs + host.rng.next() * 1000, this.#onAttempt, NORMAL, a);
    else sim.schedule(processedMs - startMs, this.#onAnswer, NORMAL, a);
  }

  /** The node processed the connect request of `a`: its answer leaves on the node's out NIC. */
  #answer(a: ConnectAttempt): void {
    const host = this.#host;
    const sim = host.sim;
    const c = a.c;
    // Curator closed the handle that sent it: the server finds its socket closed.
    if (a.handle !== c.handle) return;
    if (host.frozen()) {
      this.#scheduleReconnect(c, host.rng.next() * 1000);
      return;
    }
    // A new handle asks for no session: it touches nothing and always gets a new one.
    a.reattached = !c.fresh && host.reattach(c.instance);
    const backMs = host.servers.reply(a.node!, sim.now, ZK_CONNECT_BYTES.reply);
    // Not answered within the connect timeout: the next node.
    if (backMs > a.deadlineMs) sim.schedule(Math.max(0, a.deadlineMs - sim.now) + host.rng.next() * 1000, this.#onAttempt, NORMAL, a);
    else sim.schedule(backMs - sim.now, this.#onConnected, NORMAL, a);
  }

  /** The connect answer arrived: connected again, with the same session or a new one. */
  #connected(c: Connection, handle: number, reattached: boolean): void {
    const host = this.#host;
    const now = host.sim.now;
    if (handle !== c.handle) return;
    if (c.suspension !== null) {
      host.sim.cancel(c.suspension);
      c.suspension = null;
    }
    c.fresh = false;
    c.reconnecting = false;
    c.connected = true;
    c.heardMs = now;
    c.pending = [];
    this.#armCheck(c);
    host.observer.count(reattached ? 'registry.sessionReattached' : 'registry.sessionRenewed');
    // Expired: a new session; Dubbo's recover() re-registers from the retry timer.
    if (!reattached) this.#retryRegistrations(c);
  }

  /** A registration of `client`'s process failed (its connection was lost first): FailbackRegistry retries it. */
  registrationFailed(client: RegistryClient): void {
    const c = client.session as Connection | null;
    if (c !== null) this.#retryRegistrations(c);
  }

  /**
   * The FailbackRegistry retry timer registers the process's records that are not listed, 5 to 10 s from
   * now; meanwhile its pings do not register them. A retry already pending covers this one (one task per URL).
   */
  #retryRegistrations(c: Connection): void {
    const host = this.#host;
    const now = host.sim.now;
    if (c.registerAtMs > now) return;
    c.registerAtMs = failbackRetryAtMs(now);
    host.sim.schedule(c.registerAtMs - now, () => {
      // Not connected: the connect that comes next re-attaches or renews, and retries then if need be.
      if (!c.connected) return;
      const n = host.recover(c.instance);
      if (n > 0) host.servers.nodeOf(c.client).registrationsRetried += n;
    });
  }
}
