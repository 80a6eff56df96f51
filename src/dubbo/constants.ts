/**
 * Dubbo's constants that the consumer-side port needs: RpcException codes, parameter keys and
 * defaults, with Dubbo's names. Values are from Dubbo 3.3 (`CommonConstants`, `cluster/Constants`,
 * `rpc/Constants`, `RpcException`).
 */

/** RpcException codes. */
export const RpcCode = {
  UNKNOWN_EXCEPTION: 0,
  NETWORK_EXCEPTION: 1,
  TIMEOUT_EXCEPTION: 2,
  BIZ_EXCEPTION: 3,
  FORBIDDEN_EXCEPTION: 4,
  SERIALIZATION_EXCEPTION: 5,
  NO_INVOKER_AVAILABLE_AFTER_FILTER: 6,
  LIMIT_EXCEEDED_EXCEPTION: 7,
  TIMEOUT_TERMINATE: 8,
  REGISTRY_EXCEPTION: 9,
  ROUTER_CACHE_NOT_BUILD: 10,
  METHOD_NOT_FOUND: 11,
  VALIDATION_EXCEPTION: 12,
  AUTHORIZATION_EXCEPTION: 13,
} as const;

export const DUBBO_VERSION = '3.3.2';

export const DEFAULT_TIMEOUT = 1000;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_FAILBACK_TIMES = 3;
export const DEFAULT_FAILBACK_TASKS = 100;
export const RETRY_FAILED_PERIOD = 5000;
export const DEFAULT_FORKS = 2;
export const DEFAULT_WEIGHT = 100;
export const DEFAULT_WARMUP = 10 * 60 * 1000;
export const DEFAULT_RESELECT_COUNT = 10;
export const DEFAULT_LOADBALANCE = 'random';
export const DEFAULT_CLUSTER = 'failover';
export const DEFAULT_PORT = 20880;

export const TIMEOUT_KEY = 'timeout';
export const RETRIES_KEY = 'retries';
export const LOADBALANCE_KEY = 'loadbalance';
export const CLUSTER_KEY = 'cluster';
export const WEIGHT_KEY = 'weight';
export const WARMUP_KEY = 'warmup';
export const TIMESTAMP_KEY = 'timestamp';
export const STICKY_KEY = 'sticky';
export const CLUSTER_AVAILABLE_CHECK_KEY = 'cluster.availablecheck';
export const FORKS_KEY = 'forks';
export const ACTIVES_KEY = 'actives';
export const EXECUTES_KEY = 'executes';
export const TPS_LIMIT_RATE_KEY = 'tps';
export const TPS_LIMIT_INTERVAL_KEY = 'tps.interval';
export const DEFAULT_TPS_LIMIT_INTERVAL = 60 * 1000;
export const METHODS_KEY = 'methods';
export const TAG_KEY = 'dubbo.tag';
export const FORCE_USE_TAG = 'dubbo.force.tag';
export const REGISTRY_ZONE = 'registry_zone';
export const REGISTRY_ZONE_FORCE = 'registry_zone_force';
export const PREFERRED_KEY = 'preferred';
export const ZONE_KEY = 'zone';
export const BROADCAST_FAIL_PERCENT_KEY = 'broadcast.fail.percent';
export const FAIL_BACK_TASKS_KEY = 'failbacktasks';
export const HASH_NODES = 'hash.nodes';
export const HASH_ARGUMENTS = 'hash.arguments';
export const MERGER_KEY = 'merger';
export const ASYNC_KEY = 'async';
export const REGISTRY_SERVICE = 'org.apache.dubbo.registry.RegistryService';
