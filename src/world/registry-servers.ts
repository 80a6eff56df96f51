/**
 * The registry as a server (SPEC 2.5 `registry.servers`, `registry.capacity`): the nodes of a
 * ZooKeeper ensemble or a Nacos cluster, each in a zone, each with an out NIC, an in NIC and a
 * request pipeline (`FifoLink`s of the node's capacity, per direction), and the registry clients
 * connected to them. It owns where a client is connected, what a push or a request costs on a node
 * and when it is done, which nodes are up and whether ZooKeeper has a quorum; what a registry does
 * with a request (a session touched, an instance registered) is `DiscoveryRegistry`'s, what a push
 * carries `PushDelivery`'s.
 *
 * Clients: each provider process's registry client and each consumer instance's. A client gets its
 * own order of the nodes, a shuffle drawn from the registry's `servers` stream (ZooKeeper's
 * StaticHostProvider shuffles the connect string per client; a Nacos client starts at a random
 * server of its list and moves round robin), connects to the first node of that order it can reach
 * and, after losing it, to the next one (StaticHostProvider.next). With thousands of clients the
 * nodes get an even share each. A node is reachable for a client when it is up and its zone is not
 * partitioned from the client's (world network `isPartitioned`).
 *
 * Costs, all FIFO: a push (or a ZooKeeper `getChildren` reply) is its bytes on the serving node's
 * out NIC; a request (registration, deregistration, beat / keepalive / ping, read) is its bytes on
 * the in NIC, then one request in the pipeline, then, once processed, its reply's bytes on the out NIC. Requests and
 * replies take no network time of their own here (a registry round trip is a few ms; pushes draw
 * `pushLag`). Without `capacity` a node's links take no time and only count.
 */
import { FifoLink, type LinkBuckets } from '../engine/fifo-link.js';
import type { RegistryEntry } from './registry-entry.js';
import type { RegistryNodeFigures } from '../metrics/registry-server-figures.js';
import type { Rng } from '../engine/random.js';
import type { RegistrySpec } from '../model/types.js';
import type { Network } from './network.js';

/** Bytes of a ZooKeeper ping and of its reply (a 4-byte length, the request / reply header: ClientCnxn, ReplyHeader). */
export const ZK_PING_BYTES = { request: 12, reply: 20 } as const;
/** Bytes of a Nacos 1.x beat and its answer: an HTTP PUT of the instance's beat JSON (BeatReactor), headers included. */
export const NACOS_BEAT_BYTES = { request: 400, reply: 100 } as const;
/** Bytes of a Nacos 2.x keepalive and its answer: a gRPC HealthCheckRequest / HealthCheckResponse. */
export const NACOS_KEEPALIVE_BYTES = { request: 100, reply: 60 } as const;
/** Envelope bytes a registration, deregistration or read request carries besides its path or URL. */
export const REQUEST_OVERHEAD_BYTES = 40;

/** One node of the registry: its links and what it did. */
export class RegistryNode {
  /** `<zone>-<i>` (1-based), prefixed `<registry>/` with several registries. */
  readonly name: string;
  /** Its zone; undefined for the one node of a registry without a zone. */
  readonly zone: string | undefined;
  readonly out: FifoLink;
  readonly in: FifoLink;
  readonly requests: FifoLink;
  up = true;
  requestsServed = 0;
  requestsRefused = 0;
  sessionsExpired = 0;
  registrationsFailed = 0;
  registrationsRetried = 0;
  pushesLost = 0;
  pushesMerged = 0;
  /** Sessions expired per accounting bucket (the links' grid). */
  readonly sessionsExpiredByBucket: Float64Array;
  readonly #grid: LinkBuckets;

  constructor(name: string, zone: string | undefined, spec: RegistrySpec, grid: LinkBuckets) {
    this.name = name;
    this.zone = zone;
    this.#grid = grid;
    const bandwidth = spec.capacity?.bandwidthBytesPerSec;
    this.out = new FifoLink(bandwidth, grid);
    this.in = new FifoLink(bandwidth, grid);
    this.requests = new FifoLink(spec.capacity?.requestsPerSec, grid);
    this.sessionsExpiredByBucket = new Float64Array(grid.buckets);
  }

  /** A session of one of its clients expired at `nowMs`. */
  sessionExpired(nowMs: number): void {
    this.sessionsExpired++;
    const { fromMs, bucketMs, buckets } = this.#grid;
    const b = Math.floor((nowMs - fromMs) / bucketMs);
    if (nowMs >= fromMs && b < buckets) this.sessionsExpiredByBucket[b]!++;
  }

  /** What the node did, for the summary (`registry.servers.<name>`). */
  figures(): RegistryNodeFigures {
    return {
      name: this.name,
      zone: this.zone,
      out: this.out.figures(),
      in: this.in.figures(),
      requestsServed: this.requestsServed,
      requestsRefused: this.requestsRefused,
      sessionsExpired: this.sessionsExpired,
      sessionsExpiredByBucket: this.sessionsExpiredByBucket,
      registrationsFailed: this.registrationsFailed,
      registrationsRetried: this.registrationsRetried,
      pushesLost: this.pushesLost,
      pushesMerged: this.pushesMerged,
    };
  }
}

/** A registry client (a provider process's, a consumer instance's) and the node it is connected to. */
export interface RegistryClient {
  readonly zone: string;
  /** The nodes in the order this client tries them (indexes into `RegistryServers.nodes`; shared, never written). */
  readonly order: Uint8Array;
  /** Position in `order` of the node it is connected to (or tried last). */
  pos: number;
  /** The node it is connected to, or null while it has none. */
  node: RegistryNode | null;
  /** When its last liveness message (one per process) was sent, and when its node processed it. */
  tickAtMs: number;
  tickHeardAtMs: number;
  /** The process's other records heard with its last liveness message, when it is processed. */
  tickAlong: RegistryEntry[] | null;
  /**
   * A client whose liveness call (one per process) waits for its answer (Nacos 2.x's health check): the last
   * call's number, and until when it waits (the node processes the call, or it times out).
   */
  livenessCalls: number;
  livenessUntilMs: number;
  /** Connections lost so far: a request sent on an earlier connection has no effect once processed. */
  epoch: number;
  /** When the last push to it is off its node's out NIC, and its bytes (how much of it is unsent). */
  pushLeftMs: number;
  pushBytes: number;
  /**
   * The client library's own state of this client's connection (ZooKeeper: `zookeeper-client.ts`'s), or
   * null before it has any. PERF: read at every liveness message and answer, instead of a weak map's entry.
   */
  session: object | null;
}

/** The names of a registry's nodes: `<zone>-<i>` per `servers` entry, else one `<zone>-1` (or `registry-1`). */
export function registryNodeNames(spec: Pick<RegistrySpec, 'servers' | 'zone'>, prefix = ''): Array<{ name: string; zone: string | undefined }> {
  if (spec.servers === undefined) return [{ name: `${prefix}${spec.zone ?? 'registry'}-1`, zone: spec.zone }];
  const out: Array<{ name: string; zone: string | undefined }> = [];
  for (const [zone, count] of Object.entries(spec.servers)) for (let i = 1; i <= count; i++) out.push({ name: `${prefix}${zone}-${i}`, zone });
  return out;
}

/** The accounting grid of registry server figures: the scenario's timeline buckets (none without a scenario). */
export function timelineGrid(scenario: { warmupMs?: number; durationMs?: number; bucketMs?: number } | undefined): LinkBuckets {
  const fromMs = scenario?.warmupMs ?? 0;
  const bucketMs = scenario?.bucketMs ?? 1000;
  const durationMs = scenario?.durationMs ?? 0;
  return { fromMs, bucketMs, buckets: Math.max(0, Math.ceil((durationMs - fromMs) / bucketMs)) };
}

/** Registries of up to this many nodes share their clients' node orders (8! = 40,320 orders at most). */
const MAX_SHARED_ORDER_NODES = 8;

/** True when the scenario models this registry as a server (`servers` or `capacity` set). */
export function modelsServers(spec: Pick<RegistrySpec, 'servers' | 'capacity'>): boolean {
  return spec.servers !== undefined || spec.capacity !== undefined;
}

/** The nodes of one registry and its clients' connections (see the module note). */
export class RegistryServers {
  readonly nodes: readonly RegistryNode[];
  readonly #network: Network;
  readonly #rng: Rng;
  readonly #cohortRng: Rng;
  readonly #clients = new WeakMap<object, RegistryClient>();
  /** The node orders drawn so far, by their digits in base `nodes.length` (see `#shared`). */
  readonly #orders = new Map<number, Uint8Array>();
  /** When the node of the last `request` processed it. */
  processedAtMs = 0;

  constructor(spec: RegistrySpec, options: { network: Network; rng: Rng; cohortRng?: Rng; grid: LinkBuckets; namePrefix?: string }) {
    this.#network = options.network;
    this.#rng = options.rng;
    this.#cohortRng = options.cohortRng ?? options.rng;
    const names = registryNodeNames(spec, options.namePrefix);
    if (names.length === 0 || names.length > 255) throw new RangeError(`a registry has 1..255 nodes, got ${names.length}`);
    this.nodes = names.map((n) => new RegistryNode(n.name, n.zone, spec, options.grid));
  }

  /** The client of `key` (a provider process, a subscriber), made on first use in `zone`. */
  clientOf(key: object, zone: string): RegistryClient {
    let c = this.#clients.get(key);
    if (c === undefined) {
      const n = this.nodes.length;
      const order = new Array<number>(n);
      for (let i = 0; i < n; i++) order[i] = i;
      // Fisher–Yates, as Collections.shuffle does it (from the end).
      for (let i = n - 1; i > 0; i--) {
        const j = this.#rng.nextInt(i + 1);
        const t = order[i]!;
        order[i] = order[j]!;
        order[j] = t;
      }
      c = { zone, order: this.#shared(order), pos: 0, node: null, tickAtMs: -1, tickHeardAtMs: -1, tickAlong: null, livenessCalls: 0, livenessUntilMs: -1, epoch: 0, pushLeftMs: -1, pushBytes: 0, session: null };
      this.#clients.set(key, c);
    }
    return c;
  }

  // PERF: an order is never changed once drawn, and a few nodes have few orders (5 nodes: 120) for the
  // 10^5 clients of the seed articles' estate: clients with the same order share one array (a typed array
  // each was some 200 bytes, with its buffer, a client).
  #shared(order: number[]): Uint8Array {
    if (order.length > MAX_SHARED_ORDER_NODES) return Uint8Array.from(order);
    let key = 0;
    for (const i of order) key = key * order.length + i;
    let shared = this.#orders.get(key);
    if (shared === undefined) this.#orders.set(key, (shared = Uint8Array.from(order)));
    return shared;
  }

  /** True when `node` is up and not partitioned from `zone`. */
  reachable(node: RegistryNode, zone: string): boolean {
    return node.up && (node.zone === undefined || node.zone === zone || !this.#network.isPartitioned(zone, node.zone));
  }

  /** True when some node is reachable from `zone`. */
  anyReachable(zone: string): boolean {
    for (const n of this.nodes) if (this.reachable(n, zone)) return true;
    return false;
  }

  /**
   * The node `client` is connected to: its current one while reachable, else the next reachable one
   * of its order (a reconnect), or null when it reaches none.
   */
  connect(client: RegistryClient): RegistryNode | null {
    const node = client.node;
    if (node !== null && this.reachable(node, client.zone)) return node;
    // A client without a node starts with the one it tried last (the first of its order at first).
    const from = node === null ? 0 : 1;
    return this.#firstReachable(client, from, client.order.length + from);
  }

  /** Connects `client` to the first node it can reach at offsets [from, to) after the one it tried last, or to none. */
  #firstReachable(client: RegistryClient, from: number, to: number): RegistryNode | null {
    const n = client.order.length;
    for (let k = from; k < to; k++) {
      const pos = (client.pos + k) % n;
      const next = this.nodes[client.order[pos]!]!;
      if (this.reachable(next, client.zone)) {
        client.pos = pos;
        client.node = next;
        return next;
      }
    }
    client.node = null;
    return null;
  }

  /** `client` loses its connection: its next `connect` or `nextNode` looks for a node from the one after it. */
  disconnect(client: RegistryClient): void {
    client.node = null;
    client.epoch++;
    client.tickAtMs = -1;
  }

  /**
   * `client` connects to the next node of its order it can reach after the one it tried last
   * (StaticHostProvider.next), or to none (null).
   */
  nextNode(client: RegistryClient): RegistryNode | null {
    return this.#firstReachable(client, 1, client.order.length + 1);
  }

  /** The node `client` is connected to, or the one it tried last (what a session of it is counted on). */
  nodeOf(client: RegistryClient): RegistryNode {
    return client.node ?? this.nodes[client.order[client.pos]!]!;
  }

  /**
   * `bytes` pushed to `client` at `nowMs`: when they are off its node's out NIC, or undefined (no node: lost).
   * A client standing for `members` instances (a cohort's representative, SPEC 2.12) sends one push to each,
   * queued together; the time returned is that of a uniformly drawn one of them (`#member`).
   */
  push(client: RegistryClient, nowMs: number, bytes: number, members = 1): number | undefined {
    const node = this.connect(client);
    if (node === null) {
      this.nodeOf(client).pushesLost += members;
      return undefined;
    }
    const leftMs = members === 1 ? node.out.serve(nowMs, bytes) : node.out.serveMany(nowMs, bytes, members, this.#member(members));
    client.pushLeftMs = leftMs;
    client.pushBytes = bytes;
    return leftMs;
  }

  /**
   * Bytes pushed to `client` and not yet sent at `nowMs`, at least: what is left of its last push (the
   * pushes before it have left the NIC by then, FIFO).
   */
  unsentBytes(client: RegistryClient, nowMs: number): number {
    if (client.pushLeftMs <= nowMs || client.node === null) return 0;
    return Math.min(client.pushBytes, (client.pushLeftMs - nowMs) * client.node.out.ratePerMs);
  }

  /**
   * A request of `client` at `nowMs`, `bytes` long: the node that takes it, or null when the client
   * reaches none. It goes through the node's in NIC and request pipeline, FIFO; `processedAtMs` then
   * says when the node processed it. Its reply is the caller's `reply`, at that time, so that the out
   * NIC takes work in the order it is produced.
   */
  request(client: RegistryClient, nowMs: number, bytes: number, members = 1): RegistryNode | null {
    const node = this.connect(client);
    if (node === null) return null;
    node.requestsServed += members;
    if (members === 1) {
      const read = node.in.serve(nowMs, bytes);
      this.processedAtMs = node.requests.serve(read, 1);
      return node;
    }
    // A cohort's members each send the request: `processedAtMs` is that of a uniformly drawn one.
    // DIVERGENCE: they reach the request pipeline together, when the first of them is read off the in NIC
    // (not each as it is read): the pipeline's work and order are the same, its start a little earlier.
    const at = this.#member(members);
    const firstReadMs = node.in.serveMany(nowMs, bytes, members, 0);
    const readMs = firstReadMs + (at * bytes) / node.in.ratePerMs;
    const processed = node.requests.serveMany(firstReadMs, 1, members, at);
    this.processedAtMs = processed > readMs ? processed : readMs;
    return node;
  }

  /** A reply of `bytes` leaves `node` at `nowMs` (to each of `members` instances): when it (a drawn one's) is off the out NIC. */
  reply(node: RegistryNode, nowMs: number, bytes: number, members = 1): number {
    return members === 1 ? node.out.serve(nowMs, bytes) : node.out.serveMany(nowMs, bytes, members, this.#member(members));
  }

  /** A uniformly drawn one of a cohort representative's `members` (its place in their FIFO order), from the cohort stream. */
  #member(members: number): number {
    return this.#cohortRng.nextInt(members);
  }

  /** The figures of every node, in node order. */
  figures(): RegistryNodeFigures[] {
    return this.nodes.map((n) => n.figures());
  }
}
