/**
 * The registry server's record of one registration, as a discovery registry keeps it: an export
 * (interface level) or a provider process (application level), with what the server knows of it
 * (held, listed, dropped, when last heard). The records are kept and changed by `DiscoveryRegistry`
 * and its detection (Nacos, ZooKeeper); push delivery reads the listed ones.
 */
import type { ProviderExport, ProviderInstance } from './provider.js';

/** One registration as the registry server knows it: an export (interface level) or a process (application level). */
export interface RegistryEntry {
  /** The registered export; at application level, the process's first one (the record stands for the process). */
  readonly provider: ProviderExport;
  /** The provider process. */
  readonly instance: ProviderInstance;
  /** The exports this record lists: one at interface level, every export of the process at application level. */
  readonly exports: readonly ProviderExport[];
  /**
   * The name it is listed under: its service (interface level; with Nacos, the service's Nacos
   * name `providers:<iface>:<version>:<group>`) or its application (application level).
   */
  readonly service: string;
  /** The server holds the instance (a Nacos instance, a ZooKeeper ephemeral node). */
  registered: boolean;
  /**
   * The instance is in the lists pushed to consumers: registered. A Nacos instance marked unhealthy
   * stays listed, as Dubbo's NacosRegistry keeps it (`healthy`).
   */
  listed: boolean;
  /** Nacos 1.x: the server's health flag (no beat for `unhealthyAfter` clears it); true for every other registry. */
  healthy: boolean;
  /**
   * The registry has dropped it from the lists it pushes (deregistered, deleted, expired, ejected):
   * attempts to it are stale calls. An unhealthy but listed Nacos instance is not gone.
   */
  gone: boolean;
  /** Deregistered on purpose (graceful stop): its client never registers it again. */
  left: boolean;
  /** When the server last heard from the client (heartbeat, keepalive, ping, registration). */
  lastHeardMs: number;
  /** Its place in the order the server took its records in (the order its scans walk them): set when it is registered. */
  registeredOrder: number;
  /** ZooKeeper: the expiry bucket it is filed under (`ExpiryBuckets`), or -1 while not filed. */
  expiryBucketMs: number;
  /**
   * ZooKeeper: the server still holds it under a session Curator gave up (its injected expiration), until the
   * server expires that session, unless a registration under the new session takes it over first.
   */
  abandoned: boolean;
  /**
   * The registry as a server, a client whose liveness call waits for its answer (Nacos 1.x's beat of this
   * record): the last call's number, and until when it waits (the node processes the call, or it times out).
   */
  livenessCalls: number;
  livenessUntilMs: number;
}
