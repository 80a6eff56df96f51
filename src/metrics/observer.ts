/**
 * What the world reports as it runs, as an interface the metrics layer implements: requests
 * starting and ending, attempts, executions, rejections, orphaned executions, registry pushes,
 * counters and fault markers. It sits in metrics/, below the world: the world and the stack report
 * through it and never import the recorder that implements it.
 */

/** The one outcome of a request (SPEC 4). */
export type Outcome = 'ok' | 'timeout' | 'noProvider' | 'rejected' | 'network' | 'forbidden' | 'biz' | 'mock' | 'blocked' | 'lost';

/**
 * Whether the caller got a value: `ok`, or `mock` answered by a `return` or an implementation mock
 * (a `throw` mock's cause ends in `:throw`: its caller gets an exception). A provider whose downstream
 * call did not answer fails the call it is executing. A `blocked` call answered by a Sentinel fallback
 * with a value (cause ending in `:fallback`) counts as answered too.
 */
export function answeredWithValue(outcome: Outcome, cause: string | undefined): boolean {
  return (
    outcome === 'ok' ||
    (outcome === 'mock' && !(cause ?? '').endsWith(':throw')) ||
    (outcome === 'blocked' && (cause ?? '').endsWith(BLOCKED_ANSWERED_SUFFIX))
  );
}

/** The suffix of a `blocked` cause whose Sentinel fallback answered the call with a value. */
export const BLOCKED_ANSWERED_SUFFIX = ':fallback';

/**
 * The `cause` of an `ok` ending that is Dubbo's empty result: a cluster (failsafe, failback,
 * mergeable) swallowed a failure and returned null, so the request may have had no attempt.
 */
export const EMPTY_RESULT_CAUSE = 'cluster:empty-result';

/** The observer's per-request handle; the world only reads `ended`. */
export interface RequestHandle {
  readonly ended: boolean;
}

/** A registry notification's discovery level (world/discovery-levels.ts `DiscoveryLevel`). */
export type DiscoveryLevelName = 'interface' | 'application';

// A consumer instance id ends in `#<index>` (world/consumer.ts); a downstream side's ends in `/<ip:port>` (world/world.ts).
const CONSUMER_INSTANCE_ID = /#\d+$/;

/**
 * The consumer group key of a registry subscriber's instance id (summary `registry.byConsumerGroup`):
 * a consumer instance `<application>@<zone>#<index>` belongs to `<application>@<zone>`; a provider's
 * downstream side `<provider group>/<ip:port>` (call graphs) to its provider group; any other id is its own group.
 */
export function consumerGroupKey(instanceId: string): string {
  if (CONSUMER_INSTANCE_ID.test(instanceId)) return instanceId.slice(0, instanceId.lastIndexOf('#'));
  const slash = instanceId.lastIndexOf('/');
  return slash > 0 ? instanceId.slice(0, slash) : instanceId;
}

// PERF: a subscriber's key is parsed once, not on each of its pushes (a regex and a new string each time).
const groupKeys = new WeakMap<object, string>();

/** `consumerGroupKey` of a subscriber's `id`, remembered per subscriber. */
export function consumerGroupOf(subscriber: { readonly id: string }): string {
  let key = groupKeys.get(subscriber);
  if (key === undefined) groupKeys.set(subscriber, (key = consumerGroupKey(subscriber.id)));
  return key;
}

/** Receives the world's events. */
export interface WorldObserver<R extends RequestHandle = RequestHandle> {
  startRequest(init: {
    consumerGroup: string;
    consumerZone: string;
    service: string;
    method: string;
    idempotent: boolean;
    startMs: number;
  }): R;
  /** One attempt on a provider of `providerGroup` in `providerZone` (`crossZone`: another zone than the consumer's). */
  attempt(req: R, info: { crossZone: boolean; stale: boolean; providerGroup: string; providerZone: string }): void;
  execution(req: R, providerGroup: string, service: string): void;
  rejected(providerGroup: string, service: string): void;
  orphaned(req: R): void;
  endRequest(req: R, outcome: Outcome, endMs: number, cause?: string): void;
  /**
   * One registry notification delivered to a consumer instance of `consumerGroup` (its key, `consumerGroupOf`);
   * `level`: the discovery level it belongs to (default interface). `members`: how many real instances the
   * subscriber stands for (a cohort's representative; 1 otherwise): each of them received this push.
   */
  push(consumerInstance: string, consumerGroup: string, bytes: number, level?: DiscoveryLevelName, members?: number): void;
  /**
   * The registry as a server (`servers` or `capacity` set): one push reported at `atMs` (now: when it
   * is sent, or when the node answers a ZooKeeper watch's read) reaches its consumer instance `lagMs` later (node queueing + transmission + network `pushLag`; with ZooKeeper's watch, the
   * change to the list read back). Optional: observers that do not measure registry servers leave it out.
   */
  registryPushLag?(lagMs: number, atMs: number): void;
  count(name: string, by?: number): void;
  marker(m: { tMs: number; kind: 'start' | 'end'; label: string }): void;
}
