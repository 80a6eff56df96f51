/**
 * One JVM's Sentinel: the rules by resource, the statistic nodes, and an entry's path through the
 * slot chain in Sentinel's order (SystemSlot -5000, ParamFlowSlot -3000, FlowSlot -2000, DegradeSlot
 * -1000, with StatisticSlot counting around them), and its exit. Pure: time comes in as `nowMs`
 * (whole ms); a rate limiter's sleep comes back as `waitMs`, which the caller waits in simulated time
 * before `afterWait` runs the rest of the chain. Follows sentinel-core `CtSph.java`, `Tracer.java`,
 * `slots/statistic/StatisticSlot.java`, `slots/block/flow/FlowSlot.java` and `FlowRuleChecker.java`,
 * `slots/block/degrade/DegradeSlot.java` and `DegradeRuleManager.java`, `slots/system/SystemSlot.java`,
 * and sentinel-parameter-flow-control `ParamFlowSlot.java`.
 */
import { AbstractCircuitBreaker, type StateChangeObserver } from './degrade/abstract-circuit-breaker.js';
import { ExceptionCircuitBreaker } from './degrade/exception-circuit-breaker.js';
import { ResponseTimeCircuitBreaker } from './degrade/response-time-circuit-breaker.js';
import { DefaultController } from './flow/default-controller.js';
import { ThrottlingController } from './flow/throttling-controller.js';
import type { TrafficShapingController } from './flow/traffic-shaping-controller.js';
import { WarmUpController } from './flow/warm-up-controller.js';
import { WarmUpRateLimiterController } from './flow/warm-up-rate-limiter-controller.js';
import { ParamFlowChecker } from './param-flow-checker.js';
import {
  CONTROL_BEHAVIOR_RATE_LIMITER,
  CONTROL_BEHAVIOR_WARM_UP,
  CONTROL_BEHAVIOR_WARM_UP_RATE_LIMITER,
  DEGRADE_GRADE_RT,
  FLOW_GRADE_QPS,
  LIMIT_APP_DEFAULT,
  LIMIT_APP_OTHER,
  type DegradeRule,
  type FlowRule,
  type SentinelRules,
} from './rules.js';
import { StatisticNode } from './statistic-node.js';
import { SystemRuleManager, type SystemUsage } from './system-rule-manager.js';

/** `EntryType`: IN for a provider's inbound call, OUT for a consumer's outbound one. */
export type EntryType = 'IN' | 'OUT';

/** Which slot blocked: FlowException, DegradeException, SystemBlockException, ParamFlowException. */
export type BlockCause = 'flow' | 'degrade' | 'system' | 'param';

const NO_USAGE: SystemUsage = Object.freeze({ load: 0, cpu: 0 });

/** `FlowRuleUtil.generateRater`. */
export function generateRater(rule: FlowRule): TrafficShapingController {
  if (rule.grade === FLOW_GRADE_QPS) {
    switch (rule.controlBehavior) {
      case CONTROL_BEHAVIOR_WARM_UP:
        return new WarmUpController(rule.count, rule.warmUpPeriodSec, rule.coldFactor);
      case CONTROL_BEHAVIOR_RATE_LIMITER:
        return new ThrottlingController(rule.maxQueueingTimeMs, rule.count);
      case CONTROL_BEHAVIOR_WARM_UP_RATE_LIMITER:
        return new WarmUpRateLimiterController(rule.count, rule.warmUpPeriodSec, rule.maxQueueingTimeMs, rule.coldFactor);
      default:
    }
  }
  return new DefaultController(rule.count, rule.grade);
}

/** What one resource holds in this JVM: its cluster node, origin nodes, rules and their state. */
class ResourceState {
  readonly clusterNode: StatisticNode;
  readonly originNodes = new Map<string, StatisticNode>();
  readonly #minuteWindow: boolean;
  flow: { rule: FlowRule; rater: TrafficShapingController }[] = [];
  breakers: AbstractCircuitBreaker[] = [];
  param: ParamFlowChecker[] = [];

  constructor(minuteWindow: boolean) {
    this.#minuteWindow = minuteWindow;
    this.clusterNode = new StatisticNode(minuteWindow);
  }

  originNode(origin: string): StatisticNode | null {
    if (origin === '') return null;
    let node = this.originNodes.get(origin);
    if (node === undefined) this.originNodes.set(origin, (node = new StatisticNode(this.#minuteWindow)));
    return node;
  }
}

/** One entry into a resource (`CtEntry`): its times, error, block and terminate hooks. */
export class Entry {
  readonly resource: string;
  readonly type: EntryType;
  readonly createTimestamp: number;
  readonly state: ResourceState;
  readonly originNode: StatisticNode | null;
  readonly args: readonly unknown[];
  readonly usage: SystemUsage;
  /** Set by `traceEntry` (Tracer): the call failed. */
  error = false;
  blockError: BlockCause | null = null;
  /** Passed the checks and counted (thread, pass): exit must count it out. */
  passed = false;
  /** The nodes it is counted on (Sph's `#nodes`), once asked. */
  nodes: readonly StatisticNode[] | undefined = undefined;
  #hooks: ((blocked: boolean) => void)[] | null = null;

  constructor(resource: string, type: EntryType, createTimestamp: number, state: ResourceState, originNode: StatisticNode | null, args: readonly unknown[], usage: SystemUsage) {
    this.resource = resource;
    this.type = type;
    this.createTimestamp = createTimestamp;
    this.state = state;
    this.originNode = originNode;
    this.args = args;
    this.usage = usage;
  }

  /** `whenTerminate`: runs at exit with whether the entry was blocked. */
  whenTerminate(hook: (blocked: boolean) => void): void {
    (this.#hooks ??= []).push(hook);
  }

  /** Runs the terminate hooks (at exit). */
  terminate(): void {
    const hooks = this.#hooks;
    this.#hooks = null;
    if (hooks !== null) for (const h of hooks) h(this.blockError !== null);
  }
}

/** An entry passed (perhaps after `waitMs` of rate limiting), or was blocked. */
export type EntryResult = { entry: Entry; waitMs: number; blocked: null } | { entry: Entry; waitMs: 0; blocked: BlockCause };

/** A breaker's state change, for the simulation's counters and timeline. */
export type BreakerObserver = StateChangeObserver;

/**
 * What a JVM's rules can ever read (all the rules it may load, a datasource update's included): PERF,
 * statistics nothing reads are not kept. Absent: everything is kept.
 */
export interface SphScope {
  /** The resources any rule names: entries of other resources are not made (see `tracks`). */
  resources: ReadonlySet<string>;
  /** Whether a warm-up controller (the only reader of the minute window) may be loaded. */
  minuteWindow: boolean;
  /** Whether a system rule may be loaded (it reads every inbound entry). */
  system: boolean;
}

/** One JVM's Sentinel (`Env.sph`, the rule managers' statics and the node tree). */
export class Sph {
  readonly #resources = new Map<string, ResourceState>();
  /** `Constants.ENTRY_NODE`: every inbound entry. */
  readonly entryNode: StatisticNode;
  readonly #scope: SphScope | undefined;
  #system: SystemRuleManager = new SystemRuleManager([]);
  #rules: SentinelRules = { flowRules: [], degradeRules: [], systemRules: [], paramFlowRules: [] };
  readonly #observer: BreakerObserver | undefined;

  constructor(rules: SentinelRules, observer?: BreakerObserver, scope?: SphScope) {
    this.#observer = observer;
    this.#scope = scope;
    this.entryNode = new StatisticNode(scope?.minuteWindow ?? true);
    this.loadRules(rules);
  }

  /**
   * Whether an entry of `resource` (`type`) can change what any rule of this JVM will ever see: no rule
   * names the resource, and for an inbound entry no system rule counts it, means its entry, statistics and
   * exit change nothing, and the adapter may skip them.
   */
  tracks(resource: string, type: EntryType): boolean {
    const s = this.#scope;
    return s === undefined || s.resources.has(resource) || (type === 'IN' && s.system);
  }

  get rules(): SentinelRules {
    return this.#rules;
  }

  /**
   * The rule managers' `loadRules` (a datasource update): flow raters are rebuilt (their state starts
   * over, as FlowRuleUtil.buildFlowRuleMap does); a breaker whose rule equals a new one is kept with its
   * state (DegradeRuleManager.getExistingSameCbOrNew); system thresholds are recomputed.
   */
  loadRules(rules: SentinelRules): void {
    this.#rules = rules;
    const old = new Map<string, AbstractCircuitBreaker[]>();
    for (const [name, s] of this.#resources) {
      old.set(name, s.breakers);
      s.flow = [];
      s.breakers = [];
      s.param = [];
    }
    for (const rule of rules.flowRules) this.#state(rule.resource).flow.push({ rule, rater: generateRater(rule) });
    for (const rule of rules.degradeRules) {
      const kept = old.get(rule.resource)?.find((cb) => sameDegradeRule(cb.rule, rule));
      this.#state(rule.resource).breakers.push(kept ?? this.#newBreaker(rule));
    }
    for (const rule of rules.paramFlowRules) this.#state(rule.resource).param.push(new ParamFlowChecker(rule));
    this.#system = new SystemRuleManager(rules.systemRules);
  }

  #newBreaker(rule: DegradeRule): AbstractCircuitBreaker {
    return rule.grade === DEGRADE_GRADE_RT ? new ResponseTimeCircuitBreaker(rule, this.#observer) : new ExceptionCircuitBreaker(rule, this.#observer);
  }

  #state(resource: string): ResourceState {
    let s = this.#resources.get(resource);
    if (s === undefined) this.#resources.set(resource, (s = new ResourceState(this.#scope?.minuteWindow ?? true)));
    return s;
  }

  /** The breakers of every resource not CLOSED (OPEN or HALF_OPEN). */
  openBreakers(): number {
    let n = 0;
    for (const s of this.#resources.values()) for (const cb of s.breakers) if (cb.state() !== 'CLOSED') n++;
    return n;
  }

  /** The cluster node of a resource (statistics over every origin), created on first use. */
  clusterNode(resource: string): StatisticNode {
    return this.#state(resource).clusterNode;
  }

  /**
   * `SphU.entry(resource, type, count 1, args)` under a context with `origin` (`ContextUtil.enter`;
   * '' for none): System, ParamFlow and Flow checks; a rate limiter's wait comes back as `waitMs` and the
   * caller calls `afterWait` when it is over (the Degrade check and the pass counts). With no wait the
   * whole chain has run.
   */
  entry(resource: string, type: EntryType, origin: string, args: readonly unknown[], nowMs: number, nanoTime: number, usage: SystemUsage = NO_USAGE): EntryResult {
    const state = this.#state(resource);
    const entry = new Entry(resource, type, nowMs, state, state.originNode(origin), args, usage);
    // SystemSlot (-5000): inbound only.
    if (type === 'IN' && this.#system.checkSystemStatus && this.#system.checkSystem(this.entryNode, 1, nowMs, usage) !== null) return this.#block(entry, 'system', nowMs);
    // ParamFlowSlot (-3000): the method entry's arguments.
    for (const p of state.param) if (!p.passCheck(args, nowMs)) return this.#block(entry, 'param', nowMs);
    // FlowSlot (-2000): every rule of the resource, in order; the first that refuses blocks.
    let waitMs = 0;
    for (const { rule, rater } of state.flow) {
      const node = this.#selectNode(rule, origin, state, entry);
      if (node === null) continue;
      const r = rater.canPass(node, 1, nowMs, nanoTime);
      if (!r.pass) return this.#block(entry, 'flow', nowMs);
      // DIVERGENCE: Java sleeps inside canPass, so a second rate-limited rule of the resource is asked
      // after the first one's sleep; here both are asked at once and the waits add up.
      waitMs += r.waitMs;
    }
    if (waitMs > 0) return { entry, waitMs, blocked: null };
    const blocked = this.afterWait(entry, nowMs);
    return blocked === null ? { entry, waitMs: 0, blocked: null } : { entry, waitMs: 0, blocked };
  }

  /** The rest of the chain after the flow slot's wait: DegradeSlot, then StatisticSlot's pass counts. */
  afterWait(entry: Entry, nowMs: number): BlockCause | null {
    // DegradeSlot (-1000): every breaker of the resource; the first that refuses blocks.
    for (const cb of entry.state.breakers) {
      if (!cb.tryPass(nowMs, entry)) {
        this.#block(entry, 'degrade', nowMs);
        return 'degrade';
      }
    }
    // StatisticSlot after the checks passed: thread and pass on the resource, origin and inbound nodes.
    entry.passed = true;
    const nodes = this.#nodes(entry);
    for (let i = 0; i < nodes.length; i++) {
      nodes[i]!.increaseThreadNum();
      nodes[i]!.addPassRequest(1, nowMs);
    }
    return null;
  }

  /** `Tracer.traceEntry`: the call failed; counts an exception on the entry's nodes. */
  traceEntry(entry: Entry, nowMs: number): void {
    if (entry.blockError !== null) return;
    entry.error = true;
    const nodes = this.#nodes(entry);
    for (let i = 0; i < nodes.length; i++) nodes[i]!.increaseExceptionQps(1, nowMs);
  }

  /** `Entry.exit`: RT and success counted, thread released, breakers told, terminate hooks run. */
  exit(entry: Entry, nowMs: number): void {
    if (entry.blockError === null && entry.passed) {
      const rt = nowMs - entry.createTimestamp;
      const nodes = this.#nodes(entry);
      for (let i = 0; i < nodes.length; i++) {
        nodes[i]!.addRtAndSuccess(rt, 1, nowMs);
        nodes[i]!.decreaseThreadNum();
      }
      const breakers = entry.state.breakers;
      if (breakers.length > 0) {
        const done = { createTimestamp: entry.createTimestamp, completeTimestamp: nowMs, error: entry.error };
        for (const cb of breakers) cb.onRequestComplete(done, nowMs);
      }
    }
    entry.terminate();
  }

  #block(entry: Entry, cause: BlockCause, nowMs: number): EntryResult {
    entry.blockError = cause;
    const nodes = this.#nodes(entry);
    for (let i = 0; i < nodes.length; i++) nodes[i]!.increaseBlockQps(1, nowMs);
    // CtSph: a blocked entry exits at once (its terminate hooks reopen a half-open breaker).
    entry.terminate();
    return { entry, waitMs: 0, blocked: cause };
  }

  /** The nodes StatisticSlot counts an entry on: the resource's, its origin's, and all inbound traffic's. */
  #nodes(entry: Entry): readonly StatisticNode[] {
    // PERF: one array per entry, made once (an entry is counted at pass, exit, and maybe trace).
    return (entry.nodes ??= [entry.state.clusterNode, ...(entry.originNode !== null ? [entry.originNode] : []), ...(entry.type === 'IN' ? [this.entryNode] : [])]);
  }

  /** `FlowRuleChecker.selectNodeByRequesterAndStrategy` for the direct strategy. */
  #selectNode(rule: FlowRule, origin: string, state: ResourceState, entry: Entry): StatisticNode | null {
    const limitApp = rule.limitApp;
    if (limitApp === origin && origin !== LIMIT_APP_DEFAULT && origin !== LIMIT_APP_OTHER) return entry.originNode;
    if (limitApp === LIMIT_APP_DEFAULT) return state.clusterNode;
    // FlowRuleManager.isOtherOrigin: no rule of the resource names this origin.
    if (limitApp === LIMIT_APP_OTHER && origin !== '' && !state.flow.some((f) => f.rule.limitApp === origin)) return entry.originNode;
    return null;
  }
}

/** DegradeRule.equals: every field. */
function sameDegradeRule(a: DegradeRule, b: DegradeRule): boolean {
  return (
    a.resource === b.resource &&
    a.limitApp === b.limitApp &&
    a.grade === b.grade &&
    a.count === b.count &&
    a.timeWindow === b.timeWindow &&
    a.minRequestAmount === b.minRequestAmount &&
    a.slowRatioThreshold === b.slowRatioThreshold &&
    a.statIntervalMs === b.statIntervalMs
  );
}
