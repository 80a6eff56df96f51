/**
 * The normalized scenario: what `load.ts` produces from a YAML/JSON file after validation and
 * defaults. Durations are milliseconds, rates are per second, distributions are `DistSpec`.
 * Every later layer reads this shape, never the raw file.
 */
import type { ThreadPoolName } from './thread-pool.js';
import type { DistSpec } from '../engine/distributions.js';
import type { DubboProfile, DubboProfileSettings } from './dubbo-profile.js';

export interface Scenario {
  name: string;
  description: string;
  seed: number;
  durationMs: number;
  warmupMs: number;
  /** Timeline bucket width (SPEC 4.1; default 1000 ms). */
  bucketMs: number;
  zones: Record<string, ZoneSpec>;
  network: NetworkSpec;
  /** The default registry (SPEC `registry:`). */
  registry: RegistrySpec;
  /** Extra registries for multi-registry set-ups (SPEC 2.5 `registries:`), by name. */
  registries: Record<string, RegistrySpec>;
  services: Record<string, ServiceSpec>;
  providers: ProviderGroupSpec[];
  consumers: ConsumerGroupSpec[];
  routers: RouterSpec[];
  faults: FaultSpec[];
  strategies: Record<string, StrategySpec>;
  /** SPEC 2.7 `propagation:` for every provider group (a group's own entry wins); absent = Dubbo's rule. */
  propagation?: PropagationSpec;
  /** SPEC 2.11 top-level `dubbo:` settings as written (each group's resolved profile is its `dubbo`). */
  dubbo?: DubboProfileSettings;
  /** SPEC 2.12: present when some group had `repeat: N`; what the lists hold after expansion (for `--dry-run`). */
  templates?: Record<'providers' | 'consumers', TemplateCounts>;
  /** SPEC 2.13: Sentinel rules every application's JVMs load (a group's own `sentinel:` replaces them kind by kind). */
  sentinel?: SentinelSpec;
}

/** One list's groups after `repeat:` expansion, and the `repeat` of each template in it, in file order. */
export interface TemplateCounts {
  groups: number;
  repeats: number[];
}

/**
 * SPEC 2.7 `propagation`: the tag-carrying filter full-link gray and lane set-ups install. Without
 * it, Dubbo's ContextFilter drops `dubbo.tag` and downstream calls carry no tag.
 */
export interface PropagationSpec {
  /** `true`: the incoming `dubbo.tag` goes on every outgoing call; a key: that incoming attachment becomes `dubbo.tag`; `false`: off. */
  tag?: boolean | string;
}

export interface ZoneSpec {
  cidr: string;
}

export interface RttPair {
  from: string;
  to: string;
  /** `a<->b` gives two entries (a->b and b->a) with the same dist. */
  dist: DistSpec;
}

export interface NetworkSpec {
  /** Round trip within a zone (default 0.2 ms constant). */
  sameZone: DistSpec;
  /** Round trip for unlisted pairs (default 2 ms constant). */
  default: DistSpec;
  /** Explicit pairs; a directed entry overrides a symmetric one. */
  pairs: RttPair[];
}

export interface RegistrySpec {
  type: 'nacos' | 'zookeeper' | 'static';
  zone?: string;
  pushLag: DistSpec;
  heartbeatMs: number;
  unhealthyAfterMs: number;
  removeAfterMs: number;
  sessionTimeoutMs: number;
  emptyProtection: boolean;
  /** Explicit `registration` for every group; unset: each group's Dubbo profile decides (register-mode, migration step). */
  registration?: 'interface' | 'application';
  registerDelayMs: number;
  /** Nacos 2.x: ephemeral instances follow the gRPC connection instead of heartbeats. */
  connectionBound?: boolean;
  /** SPEC 2.5: the registry's nodes (ZooKeeper ensemble, Nacos cluster) per zone; unset: one node, unlimited unless `capacity`. */
  servers?: Record<string, number>;
  /** SPEC 2.5: per-node capacity; unset: unlimited (today's behaviour, byte-identical). */
  capacity?: RegistryCapacitySpec;
  /** SPEC 2.5 push rate control: changes to one list within `intervalMs` are merged into one push per subscriber. */
  pushRate?: { intervalMs: number };
  /** Nacos `nacos.naming.push.pushTaskDelay` (ms): the server's push delay; unset: 500 ms when the registry is a server. */
  pushDelayMs?: number;
  /** `dubbo.registry.simplified`: interface-level provider URLs carry only the keys Dubbo keeps (and `extraKeys`). */
  simplified?: boolean;
  /** `dubbo.registry.extra-keys`: parameters a simplified URL keeps besides Dubbo's own. */
  extraKeys?: string[];
  /** ZooKeeper `jute.maxbuffer` in bytes (unset: ZooKeeper's default). */
  juteMaxBufferBytes?: number;
  /** Multi-registry: `preferred=true` on the registry URL. */
  preferred: boolean;
  /** Multi-registry: registry URL `weight`. */
  weight: number;
}

/** SPEC 2.5 `registry.capacity`, per node: each absent limit is unlimited. */
export interface RegistryCapacitySpec {
  /** Bytes per second, each NIC direction. */
  bandwidthBytesPerSec?: number;
  /** Requests served per second (registrations, deregistrations, beats, pings, reads). */
  requestsPerSec?: number;
}

export interface MethodSpec {
  serviceTime: DistSpec;
  idempotent: boolean;
  /** Share of executions that end in a business exception (outcome `biz`); default 0. */
  bizErrorRate: number;
  /** Call graph: downstream calls made while executing (SPEC 2.10). */
  calls: DownstreamCallSpec[];
  /** Fan-out the downstream calls in parallel instead of sequentially. */
  parallel: boolean;
}

export interface DownstreamCallSpec {
  service: string;
  method: string;
  /** `<dubbo:reference>` attributes for this downstream reference. */
  reference: ReferenceSpec;
}

export interface ServiceSpec {
  methods: Record<string, MethodSpec>;
}

/** Per-service settings of a provider application (SPEC 2.3 `exports.<service>`). */
export interface ExportSpec {
  /** Dubbo 3.2+ thread-pool isolation: the service's own executor. */
  executor?: { threads: number; queues: number };
  /** ExecuteLimitFilter `executes` (service level). */
  executes?: number;
  /** TpsLimitFilter `tps` and `tps.interval` (ms). */
  tps?: number;
  tpsIntervalMs?: number;
  /** Extra parameters on this service's registered URL. */
  params: Record<string, string>;
  /** Method-level `executes`. */
  methods: Record<string, { executes?: number }>;
}

/** Dynamic isolation (not a Dubbo built-in; SPEC 2.3 `isolation.dynamic`). */
export interface DynamicIsolationSpec {
  concurrency: number;
  rtMs: number;
  threads: number;
  windowMs: number;
  restoreAfterMs: number;
}

export interface ProviderGroupSpec {
  name: string;
  /** The first exported service (the only one for `service: A`). */
  service: string;
  /** Every service each process exports on its one port (sharing its pool unless isolated). */
  services: string[];
  /** Per-service settings, by service (only services with settings). */
  exports: Record<string, ExportSpec>;
  isolation?: { dynamic?: DynamicIsolationSpec };
  zone: string;
  count: number;
  /** Dubbo `threadpool` of the shared pool; absent = fixed. */
  threadpool?: ThreadPoolName;
  /** The pool size (fixed) or maximum (eager), defaults applied. */
  threads: number;
  /** As written: what the pool makes of it is `queueLimit` (thread-pool.ts). */
  queues: number;
  weight: number;
  warmupMs: number;
  /** Application name on the registered URL (default `<service simple name>-provider`). */
  application: string;
  /** Which registries it registers with (default: every registry). */
  registries?: string[];
  params: Record<string, string>;
  /** SPEC 2.7 `propagation:` of this group's processes (wins over the top-level one). */
  propagation?: PropagationSpec;
  /** The group's Dubbo profile (SPEC 2.11), resolved: release defaults, top-level switches, its own. */
  dubbo: DubboProfile;
  /** Its own `dubbo:` settings as written (strategies re-resolve from them). */
  dubboSettings?: DubboProfileSettings;
  /** SPEC 2.13: the Sentinel rules its JVMs load, kind by kind over the top-level ones. */
  sentinel?: SentinelSpec;
}

/** `<dubbo:reference>` attributes (SPEC 2.4). Values stay as Dubbo writes them on the consumer URL. */
export interface ReferenceSpec {
  timeoutMs?: number;
  retries?: number;
  loadbalance?: string;
  cluster?: string;
  forks?: number;
  sticky?: boolean;
  actives?: number;
  tag?: string;
  /** Dubbo `mock` as written (MockClusterInvoker reads it from the consumer URL). */
  mock?: string;
  parameters: Record<string, string>;
  methods: Record<string, Omit<ReferenceSpec, 'methods'>>;
}

export type AttachmentSpec =
  | { kind: 'all'; value: string }
  | { kind: 'fraction'; value: string; fraction: number }
  | { kind: 'when'; value: string; when: string };

export interface ConsumerGroupSpec {
  application: string;
  zone: string;
  instances: number;
  ratePerSec: number;
  arrival: 'poisson' | 'constant';
  /** `service.method` → weight. */
  calls: Record<string, number>;
  /** Per service. */
  reference: Record<string, ReferenceSpec>;
  /** Group-level defaults (`consumerDefaults:`), below interface and method level. */
  consumerDefaults: Omit<ReferenceSpec, 'methods'>;
  attachments: Record<string, AttachmentSpec>;
  /** Registries the group subscribes to (default: all). */
  registries?: string[];
  /** Number of distinct user ids for `when:` attachment expressions (default 1_000_000). */
  userIds: number;
  /** Entry pool per instance (SPEC 2.4 `threads`): requests served at once; absent = unbounded. */
  threads?: number;
  /** The group's Dubbo profile (SPEC 2.11), resolved: release defaults, top-level switches, its own. */
  dubbo: DubboProfile;
  /** Its own `dubbo:` settings as written (strategies re-resolve from them). */
  dubboSettings?: DubboProfileSettings;
  /** SPEC 2.13: the Sentinel rules its JVMs load, kind by kind over the top-level ones. */
  sentinel?: SentinelSpec;
  /** SPEC 2.12: simulate the instances as one cohort (`on`), each alone (`off`), or decide (`auto`, the default). */
  cohorts?: 'auto' | 'on' | 'off';
  /** A cohort's representative instances (default 32): each stands for an equal share of the group's instances. */
  representatives?: number;
}

/**
 * SPEC 2.13: a `sentinel:` block: rules in Sentinel's own JSON field names, as validated (defaults are
 * Sentinel's and filled in by the port, `sentinel/rules.ts`), and the adapter's fallback.
 */
export interface SentinelSpec {
  flowRules?: SentinelRuleSpec[];
  degradeRules?: SentinelRuleSpec[];
  systemRules?: SentinelRuleSpec[];
  paramFlowRules?: SentinelRuleSpec[];
  /**
   * What the adapter's fallback does with a blocked call (`DubboAdapterGlobalConfig.setConsumerFallback` /
   * `setProviderFallback`): `default` (DefaultDubboFallback: a result carrying the block exception),
   * `throw` (an RpcException thrown), `return null` or `return <value>` (a value: the call is answered).
   */
  fallback?: string;
}

/** One Sentinel rule as written (field names and values of Sentinel's JSON). */
export type SentinelRuleSpec = Readonly<Record<string, string | number | boolean | ReadonlyArray<unknown> | Readonly<Record<string, unknown>>>>;

export type RouterSpec =
  | { type: 'condition'; rule: string | Record<string, unknown>; force?: boolean; service?: string }
  | { type: 'tag'; rule: string | Record<string, unknown>; service?: string }
  /** `fallback`: true = all, false = strict, `nearest` = nearest zone with providers (median RTT), a list = that order (zonesim extension). */
  | { type: 'zone'; fallback: boolean | 'nearest' | string[]; zoneFrom: 'attachment' | 'local'; service?: string }
  | { type: 'plugin'; module: string; options: Record<string, unknown>; service?: string };

export type FaultAction =
  /** `zone` is set unless the target is a group or an instance (`zoneDown: { group | instance, mode }`). */
  | { kind: 'zoneDown'; zone: string; group?: string; instance?: string; mode: 'blackhole' | 'crash' }
  | { kind: 'zoneUp'; zone: string }
  | { kind: 'crash'; zone?: string; service?: string; group?: string; instance?: string; count?: number; fraction?: number; mode?: 'blackhole' | 'crash' }
  | { kind: 'restart'; zone?: string; service?: string; group?: string; instance?: string; count?: number; fraction?: number }
  | { kind: 'slowdown'; zone?: string; group?: string; instance?: string; service?: string; method?: string; factor: number }
  | { kind: 'partition'; zones: [string, string] }
  | { kind: 'heal'; zones: [string, string] }
  | { kind: 'registryPartition'; zone: string }
  | { kind: 'registryDown' }
  | { kind: 'rtt'; between: [string, string]; set: DistSpec }
  | { kind: 'scale'; zone?: string; service?: string; group?: string; count: number }
  | { kind: 'rule'; op: 'add' | 'replace' | 'remove'; router: RouterSpec; index?: number }
  | { kind: 'pushSwitch'; on: boolean }
  | { kind: 'rollingRestart'; service?: string; zone?: string; group?: string; instance?: string; batch: number; intervalMs: number }
  /** Sets (`ratePerSec`) or multiplies (`factor`) the arrival rate of the consumer groups of `consumer` (in `zone`). */
  | { kind: 'traffic'; consumer: string; zone?: string; ratePerSec?: number; factor?: number }
  /**
   * SPEC 2.8: the whole room goes dark (its providers, consumers and registry nodes); `shift` moves its
   * consumers' traffic to other rooms by weight (a GSLB), normalized to shares summing to 1.
   */
  | { kind: 'roomDown'; zone: string; shift?: Record<string, number> }
  | { kind: 'roomUp'; zone: string }
  /** SPEC 2.13: a Sentinel datasource update: the kinds of rules given replace those of `application`'s JVMs (all when absent). */
  | { kind: 'sentinel'; application?: string; rules: SentinelSpec };

export interface FaultSpec {
  atMs: number;
  /** Undo after this long (`for:`). */
  forMs?: number;
  action: FaultAction;
  /** Where the fault entry is in the file, for messages ("faults[2]"). */
  label: string;
}

/** Overrides applied to every consumer group's references and/or the routers (SPEC 2.9). */
export interface StrategySpec {
  description?: string;
  /** Merged into every reference of every consumer group (a `service` key limits it to one service). */
  reference?: Partial<ReferenceSpec>;
  /** Per-service reference overrides (`reference: { com.example.UserService: { retries: 0 } }`), merged after `reference`. */
  referenceByService?: Record<string, Partial<ReferenceSpec>>;
  /** Replaces the scenario's routers when present. */
  routers?: RouterSpec[];
  /** Appended to the scenario's routers (after `routers` when both are given). */
  addRouters?: RouterSpec[];
  /** Merged into the registry spec (e.g. `emptyProtection: true`). */
  registry?: Partial<RegistrySpec>;
  /** zonesim extension: provider-side overrides by provider group name (`exports` merge per service). */
  providers?: Record<string, ProviderOverrides>;
  /** SPEC 2.11: Dubbo release and switches applied to every group, over the groups' own settings. */
  dubbo?: DubboProfileSettings;
  /** SPEC 2.13: replaces the top-level `sentinel:` block (an empty one: no top-level rules). */
  sentinel?: SentinelSpec;
}

/** What a strategy may change on a provider group. */
export interface ProviderOverrides {
  /** Sets the pool's kind; `threads` keeps its value unless given too. */
  threadpool?: ThreadPoolName;
  threads?: number;
  queues?: number;
  exports?: Record<string, ExportSpec>;
  /** Replaces the group's isolation. */
  isolation?: { dynamic?: DynamicIsolationSpec };
}
