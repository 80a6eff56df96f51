/**
 * Sentinel's rules in its own JSON field names (what a Nacos or file datasource holds), their
 * defaults and validity checks, and the constants of `RuleConstant`. Follows sentinel-core
 * `slots/block/RuleConstant.java`, `flow/FlowRule.java` and `flow/FlowRuleUtil.isValidRule`,
 * `degrade/DegradeRule.java` and `DegradeRuleManager.isValidRule`, `system/SystemRule.java`, and
 * sentinel-parameter-flow-control `ParamFlowRule.java`.
 */

export const FLOW_GRADE_THREAD = 0;
export const FLOW_GRADE_QPS = 1;
export const STRATEGY_DIRECT = 0;
export const CONTROL_BEHAVIOR_DEFAULT = 0;
export const CONTROL_BEHAVIOR_WARM_UP = 1;
export const CONTROL_BEHAVIOR_RATE_LIMITER = 2;
export const CONTROL_BEHAVIOR_WARM_UP_RATE_LIMITER = 3;
export const DEGRADE_GRADE_RT = 0;
export const DEGRADE_GRADE_EXCEPTION_RATIO = 1;
export const DEGRADE_GRADE_EXCEPTION_COUNT = 2;
export const LIMIT_APP_DEFAULT = 'default';
export const LIMIT_APP_OTHER = 'other';
/** `ColdFactorProperty.coldFactor`'s default (`csp.sentinel.flow.cold.factor`). */
export const DEFAULT_COLD_FACTOR = 3;

/** A flow rule (`FlowRule`), every field set. `coldFactor` stands for the JVM-wide `csp.sentinel.flow.cold.factor`. */
export interface FlowRule {
  resource: string;
  limitApp: string;
  grade: number;
  count: number;
  strategy: number;
  controlBehavior: number;
  warmUpPeriodSec: number;
  maxQueueingTimeMs: number;
  coldFactor: number;
}

/** A degrade rule (`DegradeRule`), every field set. */
export interface DegradeRule {
  resource: string;
  limitApp: string;
  grade: number;
  count: number;
  timeWindow: number;
  minRequestAmount: number;
  slowRatioThreshold: number;
  statIntervalMs: number;
}

/** A system rule (`SystemRule`): -1 leaves a threshold off. */
export interface SystemRule {
  highestSystemLoad: number;
  highestCpuUsage: number;
  qps: number;
  avgRt: number;
  maxThread: number;
}

/** A hot-parameter rule (`ParamFlowRule`, QPS grade, default behaviour), every field set. */
export interface ParamFlowRule {
  resource: string;
  limitApp: string;
  grade: number;
  paramIdx: number;
  count: number;
  controlBehavior: number;
  maxQueueingTimeMs: number;
  burstCount: number;
  durationInSec: number;
  paramFlowItemList: { object: string; classType?: string; count: number }[];
}

/** Every rule kind a `sentinel:` block holds. */
export interface SentinelRules {
  flowRules: FlowRule[];
  degradeRules: DegradeRule[];
  systemRules: SystemRule[];
  paramFlowRules: ParamFlowRule[];
}

/** FlowRule's field defaults (FlowRule.java, AbstractRule.limitApp). */
export function flowRule(r: Partial<FlowRule> & { resource: string }): FlowRule {
  return {
    limitApp: LIMIT_APP_DEFAULT,
    grade: FLOW_GRADE_QPS,
    count: 0,
    strategy: STRATEGY_DIRECT,
    controlBehavior: CONTROL_BEHAVIOR_DEFAULT,
    warmUpPeriodSec: 10,
    maxQueueingTimeMs: 500,
    coldFactor: DEFAULT_COLD_FACTOR,
    ...r,
  };
}

/** DegradeRule's field defaults (DegradeRule.java). */
export function degradeRule(r: Partial<DegradeRule> & { resource: string }): DegradeRule {
  return {
    limitApp: LIMIT_APP_DEFAULT,
    grade: DEGRADE_GRADE_RT,
    count: 0,
    timeWindow: 0,
    minRequestAmount: 5,
    slowRatioThreshold: 1.0,
    statIntervalMs: 1000,
    ...r,
  };
}

/** SystemRule's field defaults: every threshold -1 (off). */
export function systemRule(r: Partial<SystemRule>): SystemRule {
  return { highestSystemLoad: -1, highestCpuUsage: -1, qps: -1, avgRt: -1, maxThread: -1, ...r };
}

/** ParamFlowRule's field defaults (ParamFlowRule.java). */
export function paramFlowRule(r: Partial<ParamFlowRule> & { resource: string }): ParamFlowRule {
  return {
    limitApp: LIMIT_APP_DEFAULT,
    grade: FLOW_GRADE_QPS,
    paramIdx: 0,
    count: 0,
    controlBehavior: CONTROL_BEHAVIOR_DEFAULT,
    maxQueueingTimeMs: 0,
    burstCount: 0,
    durationInSec: 1,
    paramFlowItemList: [],
    ...r,
  };
}

/**
 * Why a flow rule is invalid, or null (`FlowRuleUtil.isValidRule` for the direct strategy, no
 * cluster mode): Sentinel drops an invalid rule silently; zonesim refuses it at load.
 */
export function flowRuleProblem(rule: FlowRule): string | null {
  if (rule.resource.trim() === '') return 'resource must not be blank';
  if (!(rule.count >= 0)) return 'count must be >= 0';
  if (rule.grade !== FLOW_GRADE_QPS && rule.grade !== FLOW_GRADE_THREAD) return 'grade must be 0 (thread) or 1 (QPS)';
  if (rule.strategy !== STRATEGY_DIRECT) return 'strategy: only 0 (direct) is modelled (relate and chain need other resources)';
  if (rule.controlBehavior < 0 || rule.controlBehavior > 3) return 'controlBehavior must be 0, 1, 2 or 3';
  if (rule.grade === FLOW_GRADE_QPS && (rule.controlBehavior === CONTROL_BEHAVIOR_WARM_UP || rule.controlBehavior === CONTROL_BEHAVIOR_WARM_UP_RATE_LIMITER) && !(rule.warmUpPeriodSec > 0))
    return 'warmUpPeriodSec must be > 0 for a warm-up behaviour';
  if (rule.grade === FLOW_GRADE_QPS && rule.controlBehavior >= CONTROL_BEHAVIOR_RATE_LIMITER && !(rule.maxQueueingTimeMs >= 0))
    return 'maxQueueingTimeMs must be >= 0';
  if (!(rule.coldFactor > 1)) return 'coldFactor must be > 1';
  return null;
}

/** Why a degrade rule is invalid, or null (`DegradeRuleManager.isValidRule`). */
export function degradeRuleProblem(rule: DegradeRule): string | null {
  if (rule.resource.trim() === '') return 'resource must not be blank';
  if (!(rule.count >= 0)) return 'count must be >= 0';
  if (!(rule.timeWindow > 0)) return 'timeWindow must be > 0 (seconds)';
  if (rule.grade < DEGRADE_GRADE_RT || rule.grade > DEGRADE_GRADE_EXCEPTION_COUNT) return 'grade must be 0 (slow ratio), 1 (error ratio) or 2 (error count)';
  if (!(rule.minRequestAmount > 0)) return 'minRequestAmount must be > 0';
  if (!(rule.statIntervalMs > 0)) return 'statIntervalMs must be > 0';
  if (rule.grade === DEGRADE_GRADE_RT && !(rule.slowRatioThreshold >= 0 && rule.slowRatioThreshold <= 1)) return 'slowRatioThreshold must be in [0, 1]';
  if (rule.grade === DEGRADE_GRADE_EXCEPTION_RATIO && !(rule.count <= 1)) return 'count of an error-ratio rule must be <= 1';
  return null;
}
