/**
 * What a provider's registry client sends to its registry node when the registry is modeled as a
 * server: registrations, deregistrations and liveness messages (Nacos beats and keepalives, ZooKeeper
 * pings), each a request through the node's in NIC and request pipeline whose effect (the server hears
 * the client, lists or drops a record) comes when the node has processed it, and whose answer then
 * leaves on the node's out NIC. It owns the requests' plumbing; what hearing a client does is the
 * registry's (`DiscoveryRegistry`), how a connection is lost and found again the client's (ZooKeeper:
 * `zookeeper-client.ts`).
 */
import { NORMAL, type Simulation } from '../engine/simulation.js';
import type { ProviderInstance } from './provider.js';
import type { RegistryEntry } from './registry-entry.js';
import { REQUEST_OVERHEAD_BYTES, type RegistryClient, type RegistryNode, type RegistryServers } from './registry-servers.js';

/** What the requests need from their registry (`DiscoveryRegistry` and its subclass's rules). */
export interface ServerRequestsHost {
  readonly sim: Simulation;
  readonly servers: RegistryServers;
  /**
   * The node processed a request of `entry`'s client now (`registration`: one carrying its URL): the server
   * hears it (registers it if need be).
   */
  heard(entry: RegistryEntry, registration: boolean): void;
  /** `entry`'s client could not make itself heard at its tick. */
  silent(entry: RegistryEntry): void;
  /** False while the client has no connection (it sends nothing). */
  connected(client: RegistryClient, instance: ProviderInstance): boolean;
  /** True while the client waits for a retry before it registers again. */
  registrationHeld(client: RegistryClient): boolean;
  /** An answer to the client leaves its node now and arrives at `backMs`. */
  replied(client: RegistryClient, backMs: number): void;
  /** A registration was lost with its connection. */
  registrationFailed(client: RegistryClient, instance: ProviderInstance): void;
  /** The liveness message speaks for the whole process (one per tick), not for one record. */
  livenessPerProcess(entry: RegistryEntry): boolean;
  livenessBytes(entry: RegistryEntry): { readonly request: number; readonly reply: number };
  /**
   * How long a liveness call of `entry`'s client waits for its answer before it gives up, when the client
   * makes no other until it is back (a Nacos beat or health check: a synchronous call); null when it
   * sends each at its time whatever came back (a ZooKeeper ping).
   */
  livenessCallTimeoutMs(entry: RegistryEntry): number | null;
}

/** What waits for its liveness call: the record (a beat per record), or the process's client (one call per process). */
type LivenessCaller = Pick<RegistryEntry, 'livenessCalls' | 'livenessUntilMs'>;

/**
 * What a request does once its node has processed it: a liveness message makes the server hear its
 * record (and the process's other records that ticked along), a registration the record with its URL
 * (lost with its connection, it failed), a deregistration drops the record.
 */
type Kind = 'liveness' | 'registration' | 'deregistration';

/**
 * One request on its way to being processed. PERF: one object per request, read by the agenda entry
 * that processes it, instead of the closures of each step (10^5 processes ping every 10 s at seed
 * scale, and in a storm the requests wait seconds in their node's queues).
 */
class PendingRequest {
  /** The process's other records that ticked with this liveness message (heard after it). */
  along: RegistryEntry[] | null = null;
  /** A liveness call its client waits for: who waits, and the call's number. */
  caller: LivenessCaller | null = null;
  call = 0;

  constructor(
    readonly kind: Kind,
    readonly entry: RegistryEntry,
    readonly client: RegistryClient,
    readonly node: RegistryNode,
    readonly epoch: number,
    readonly replyBytes: number,
    /** When its node has processed it. */
    readonly processedMs: number,
    /** A deregistration's drop of the record. */
    readonly then: (() => void) | null,
  ) {}
}

/** The requests of a registry's provider clients (see the module note). */
export class ServerRequests {
  readonly #host: ServerRequestsHost;

  constructor(host: ServerRequestsHost) {
    this.#host = host;
  }

  /**
   * A liveness tick of `entry`'s client: a registration carrying its URL while the record is not listed,
   * else a liveness message (one per process where it speaks for the process); heard once processed.
   */
  tick(entry: RegistryEntry): void {
    const host = this.#host;
    const now = host.sim.now;
    const client = host.servers.clientOf(entry.instance, entry.provider.zone);
    if (!host.connected(client, entry.instance) || (!entry.listed && host.registrationHeld(client))) {
      host.silent(entry);
      return;
    }
    // DIVERGENCE: ZooKeeper touches a session when its request enters the request processors
    // (ZooKeeperServer.submitRequestNow, after the request queue); here, when the node has processed it.
    if (entry.listed && host.livenessPerProcess(entry) && client.tickAtMs === now) {
      // Another record of the same process ticked now: the same message, heard when it is.
      if (client.tickHeardAtMs <= now) host.heard(entry, false);
      else client.tickAlong!.push(entry);
      return;
    }
    const liveness = host.livenessBytes(entry);
    let processed: number | undefined;
    if (entry.listed) {
      // Nacos's BeatTask schedules its next beat once the last one returned (BeatReactor.java, `finally`), and
      // 2.x's health check waits for its answer: a client still waiting sends nothing, and is not silent.
      // DIVERGENCE: the next call goes at the first tick after the node processed the last one, not a whole
      // period after its answer.
      const timeoutMs = host.livenessCallTimeoutMs(entry);
      const caller: LivenessCaller | null = timeoutMs === null ? null : host.livenessPerProcess(entry) ? client : entry;
      if (caller !== null && now < caller.livenessUntilMs) return;
      // PERF: the process's other records that tick with this message are heard in its event, after it.
      const request = this.#send('liveness', entry, liveness.request, liveness.reply, null, caller, timeoutMs ?? 0);
      if (request !== null) {
        request.along = [];
        client.tickAlong = request.along;
        processed = request.processedMs;
      } else client.tickAlong = [];
    } else {
      // The estate the scenario starts from is running: a registration made while the world is built is in
      // place before the consumers subscribe, made before the run (it loads no node).
      processed = this.register(entry, host.sim.building);
    }
    if (processed === undefined) {
      host.silent(entry);
      return;
    }
    if (entry.listed) {
      client.tickAtMs = now;
      client.tickHeardAtMs = processed;
    }
  }

  /**
   * A registration of `entry` (its URL) through its client's node (`deployed`: the running estate's, in
   * place now and made before the run: it loads no node). One whose connection is lost before it is
   * processed fails (`registrationsFailed`) and the client is told (FailbackRegistry retries it). Returns
   * when it is processed, or undefined when the client reaches no node.
   */
  register(entry: RegistryEntry, deployed = false): number | undefined {
    if (deployed) return this.#inPlace(entry);
    const bytes = REQUEST_OVERHEAD_BYTES + entry.provider.url.length;
    return this.#send('registration', entry, bytes, REQUEST_OVERHEAD_BYTES)?.processedMs;
  }

  /** The running estate's registration of `entry`: made before the run, heard now; undefined when its client reaches no node. */
  #inPlace(entry: RegistryEntry): number | undefined {
    const host = this.#host;
    const client = host.servers.clientOf(entry.instance, entry.provider.zone);
    if (host.servers.connect(client) === null) return undefined;
    const now = host.sim.now;
    host.replied(client, now);
    host.heard(entry, true);
    return now;
  }

  /** A deregistration of `entry` (its URL): `then` drops the record once the node has processed it. */
  deregister(entry: RegistryEntry, then: () => void): void {
    this.#send('deregistration', entry, REQUEST_OVERHEAD_BYTES + entry.provider.url.length, REQUEST_OVERHEAD_BYTES, then);
  }

  /**
   * Sends a request of `entry`'s client to its node: it is processed when the node has processed it (now,
   * or from the agenda), and its answer leaves the node then. A request sent on a connection the client has
   * lost since is dropped with it (a registration then fails). Returns the request (a liveness message's
   * records that tick along are added to it while it waits), or null when the client reaches no node (nothing runs).
   */
  #send(
    kind: Kind,
    entry: RegistryEntry,
    bytes: number,
    replyBytes: number,
    then: (() => void) | null = null,
    caller: LivenessCaller | null = null,
    timeoutMs = 0,
  ): PendingRequest | null {
    const host = this.#host;
    const servers = host.servers;
    const client = servers.clientOf(entry.instance, entry.provider.zone);
    const node = servers.request(client, host.sim.now, bytes);
    if (node === null) return null;
    const processed = servers.processedAtMs;
    const request = new PendingRequest(kind, entry, client, node, client.epoch, replyBytes, processed, then);
    const sim = host.sim;
    if (caller !== null) {
      // The caller waits from now, until the node has processed the call or the call gives up after `timeoutMs`
      // (see `#processed`).
      request.caller = caller;
      request.call = ++caller.livenessCalls;
      caller.livenessUntilMs = sim.now + timeoutMs;
    }
    if (processed <= sim.now) this.#processed(request);
    else sim.schedule(processed - sim.now, this.#onProcessed, NORMAL, request);
    return request;
  }

  readonly #onProcessed = (request: unknown): void => this.#processed(request as PendingRequest);

  #processed(request: PendingRequest): void {
    const host = this.#host;
    const { entry, client } = request;
    // A liveness call returns now (answered, or failed with its connection), unless it gave up first or a later
    // one was made since. DIVERGENCE: its answer's wait on the out NIC is not waited for: the model queues every
    // flow of a node in one FIFO, where the kernel interleaves them (a beat's answer does not wait behind
    // seconds of pushes to others).
    const caller = request.caller;
    if (caller !== null && caller.livenessCalls === request.call) caller.livenessUntilMs = Math.min(caller.livenessUntilMs, host.sim.now);
    if (client.epoch !== request.epoch) {
      if (request.kind === 'registration') {
        request.node.registrationsFailed++;
        host.registrationFailed(client, entry.instance);
      }
      return;
    }
    host.replied(client, host.servers.reply(request.node, host.sim.now, request.replyBytes));
    switch (request.kind) {
      case 'liveness': {
        host.heard(entry, false);
        const along = request.along;
        if (along !== null) for (let i = 0; i < along.length; i++) host.heard(along[i]!, false);
        break;
      }
      case 'registration':
        host.heard(entry, true);
        break;
      case 'deregistration':
        request.then!();
        break;
    }
  }
}
