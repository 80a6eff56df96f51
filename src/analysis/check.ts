/**
 * `zonesim check`: a pre-flight for routing rules and topology (SPEC 1, 4.2). The fault timeline
 * is cut into phases at every fault boundary. For each phase a world is built without traffic and
 * run to the phase's last millisecond (probe time = phase end - 1 ms, so the registry has had the
 * whole phase to react: health checks, removal, pushes), then, for the first instance of every
 * consumer group and every service and method it calls, the providers its directory holds are
 * routed through its router chain once per attachment variant. A variant that leaves zero
 * providers is a problem naming the router, its rule and why; smells that do not empty a list are
 * warnings (check-warnings.ts). The scenario as written is checked, then each strategy checked
 * (`--strategies`, default the scenario's own) with its overrides applied as `compare` applies
 * them; a strategy's findings carry its name. Output: SPEC 4.2 JSON, or text (report/check-format.ts).
 * This is the check itself, without file I/O: the command (cli/check.ts) imports only the router
 * plugins on those routes (on a worker thread, under the plugin time budget); load-balancer and
 * cluster plugins never are, since check routes and never invokes (`checkClusterStandIns`).
 */
import { DubboConsumerStack } from '../stack/consumer-stack.js';
import { DubboInvoker } from '../stack/dubbo-invoker.js';
import { RouterRuleError } from '../dubbo/router/router-rule-error.js';
import type { RouteTraceEntry } from '../dubbo/router/router.js';
import { RpcInvocation } from '../dubbo/rpc.js';
import type { URL } from '../dubbo/url.js';
import { Recorder } from '../metrics/recorder.js';
import { buildWorld, type Plugins } from '../scenario/run.js';
import { applyStrategy, strategiesFor } from '../scenario/strategies.js';
import type { ConsumerGroupSpec, Scenario, StrategySpec } from '../model/types.js';
import { faultBoundaries, faultLabel, type PhaseSpan } from '../world/faults.js';
import type { World } from '../world/world.js';
import { calledMethods, configurationWarnings, type CheckWarning } from './check-warnings.js';
import { registryLoadWarnings, type RegistryLoadWarning } from './check-registry-load.js';
import { UsageError } from '../scenario/io.js';
import { pluginRefs } from '../scenario/plugin-refs.js';
import type { ClusterFactory } from '../dubbo/cluster/abstract-cluster-invoker.js';
import { clusters } from '../dubbo/extensions.js';
import type { ClusterInvokerLike } from '../dubbo/rpc.js';

export { p99 } from './check-warnings.js';
export type { CheckWarning } from './check-warnings.js';

/** A case that leaves a consumer with zero providers (SPEC 4.2). */
export interface CheckProblem {
  consumer: string;
  zone: string;
  service: string;
  phase: PhaseSpan;
  /** The router that emptied the list, or `registry` when no provider reached the routers. */
  router: string;
  providersBefore: number;
  providersAfter: number;
  message: string;
  /** The strategy whose check found it; absent for the scenario as written. */
  strategy?: string;
}

/** One router's step, as in `route --json`. */
export interface CheckTraceStep {
  router: string;
  rule?: string;
  before: number;
  after: number;
  note?: string;
  steps?: CheckTraceStep[];
}

/** How the providers of one service fare for one consumer group, some methods and one attachment variant. */
export interface CheckRoute {
  consumer: string;
  zone: string;
  service: string;
  /** Methods with this exact outcome. */
  methods: string[];
  /** `no attachments`, or the attachments as `k=v, ...`. */
  variant: string;
  attachments: Record<string, string>;
  /** Providers in the consumer's directory (they reached it through the registry). */
  providers: number;
  /** Of those, how many are up (not crashed, stopped or black-holed). */
  providersUp: number;
  /** The registry pushed `empty://`: every call fails with the forbidden error. */
  forbidden: boolean;
  providersAfter: number;
  trace: CheckTraceStep[];
}

/** One phase of the report. */
export interface CheckPhase extends PhaseSpan {
  /** When the world was probed (phase end - 1 ms). */
  probeMs: number;
  /** Timeline entries that take effect at the phase start (`start: label` / `end: label`). */
  events: string[];
  routes: CheckRoute[];
}

/** The phases of one strategy's check (its problems and warnings are in the report's lists, tagged). */
export interface CheckStrategy {
  name: string;
  description: string;
  phases: CheckPhase[];
}

/** The whole `check --json` document: `phases` are the scenario as written's. */
export interface CheckReport {
  problems: CheckProblem[];
  phases: CheckPhase[];
  warnings: CheckWarning[];
  strategies: CheckStrategy[];
}

/** The strategies `check` applies: `names` (built-in names allowed), or by default the scenario's own. */
export function checkedStrategies(scenario: Scenario, names: readonly string[] | undefined): Record<string, StrategySpec> {
  const wanted = names ?? Object.keys(scenario.strategies);
  if (wanted.length === 0) return {};
  try {
    return strategiesFor(scenario, [...wanted]);
  } catch (error) {
    throw new UsageError(`--strategies: ${(error as Error).message}`);
  }
}

/** A strategy applied to the scenario; one naming a provider group the scenario lacks is bad input, as in `compare`. */
export function applyCheckedStrategy(scenario: Scenario, name: string, strategy: StrategySpec): Scenario {
  try {
    return applyStrategy(scenario, strategy);
  } catch (error) {
    throw new UsageError(`strategy ${name}: ${(error as Error).message}`);
  }
}

/** One world `check` runs through the fault timeline: a scenario, and whether its check reports keyed-rule warnings. */
export interface CheckJob {
  scenario: Scenario;
  ruleKeys: boolean;
}

/**
 * What `checkWithStrategies` checks: the scenario as written (first job), then each named strategy applied to it,
 * a job of its own unless it changes nothing (`job` null: it shares the scenario's findings). Keyed-rule warnings
 * come from the scenario's own check, which covers every strategy's routers. The jobs are independent.
 */
export interface CheckPlan {
  jobs: CheckJob[];
  strategies: Array<{ name: string; description: string; job: number | null }>;
}

/**
 * The plan of a check of `scenario` and the strategies `names` (undefined: the scenario's own; see CheckPlan); a
 * strategy that cannot apply is bad input.
 */
export function planCheck(scenario: Scenario, names: readonly string[] | undefined): CheckPlan {
  const jobs: CheckJob[] = [{ scenario, ruleKeys: true }];
  const checked = Object.entries(checkedStrategies(scenario, names));
  if (checked.length === 0) return { jobs, strategies: [] };
  const asWritten = JSON.stringify({ ...scenario, strategies: {} });
  const strategies = checked.map(([name, strategy]) => {
    const copy = applyCheckedStrategy(scenario, name, strategy);
    const same = JSON.stringify(copy) === asWritten;
    if (!same) jobs.push({ scenario: copy, ruleKeys: false });
    return { name, description: strategy.description ?? '', job: same ? null : jobs.length - 1 };
  });
  return { jobs, strategies };
}

/** The report of a plan from its jobs' reports (in the plan's order): each strategy's findings carry its name. */
export function mergeCheck(plan: CheckPlan, reports: readonly CheckReport[]): CheckReport {
  const own = reports[0]!;
  const report: CheckReport = { ...own, problems: [...own.problems], warnings: [...own.warnings], strategies: [] };
  // What the scenario's own check found, for strategies that change nothing.
  const shared = { problems: own.problems, phases: own.phases, warnings: own.warnings.filter((w) => w.kind !== 'rule-key-unmatched' && w.kind !== 'measured-distribution') };
  for (const { name, description, job } of plan.strategies) {
    const r = job === null ? shared : reports[job]!;
    // Loops, not push(...): a strategy of a wide estate may find more problems than a call takes arguments.
    for (const p of r.problems) report.problems.push({ ...p, strategy: name });
    for (const w of r.warnings) report.warnings.push({ ...w, strategy: name });
    report.strategies.push({ name, description, phases: r.phases });
  }
  return report;
}

/** Checks one job of a plan (`planCheck`). */
export function checkJob(job: CheckJob, options: { plugins?: Plugins } = {}): CheckReport {
  return checkScenario(job.scenario, { ...options, ruleKeys: job.ruleKeys });
}

/**
 * Checks the scenario as written, then each named strategy applied to it, one after another in this thread
 * (no file I/O); `check` runs the plan's jobs on several threads (parallel/check-jobs.ts).
 */
export function checkWithStrategies(scenario: Scenario, names: readonly string[], options: { plugins?: Plugins } = {}): CheckReport {
  const plan = planCheck(scenario, names);
  return mergeCheck(plan, plan.jobs.map((job) => checkJob(job, options)));
}

/** Checks one normalized scenario (no file I/O): phases, routes, problems and warnings. */
export function checkScenario(scenario: Scenario, options: { plugins?: Plugins; ruleKeys?: boolean } = {}): CheckReport {
  const quiet: Scenario = { ...scenario, consumers: scenario.consumers.map((c) => ({ ...c, ratePerSec: 0 })) };
  // Consumer stacks build their cluster invokers as they subscribe; check never invokes, so cluster
  // plugins are stood in for (plugins.ts), not imported.
  const plugins: Plugins = { ...options.plugins, clusters: { ...checkClusterStandIns(scenario), ...options.plugins?.clusters } };
  const bounds = faultBoundaries(scenario);
  const phases: CheckPhase[] = [];
  const problems: CheckProblem[] = [];
  // The invoker URLs of the first phase (consumer group index, service): what Dubbo reads `loadbalance` and `actives` from.
  const invokerUrls = new Map<string, URL[]>();
  // The first phase's push-load warnings: its provider groups' URLs size the registry's pushes (check-registry-load.ts).
  let registryLoad: RegistryLoadWarning[] | undefined;
  const recorder = new Recorder({
    warmupMs: quiet.warmupMs,
    durationMs: quiet.durationMs,
    bucketMs: quiet.bucketMs,
    providerGroups: quiet.providers.map((p) => ({ name: p.name, instances: p.count, threads: p.threads, services: p.services })),
  });
  // Without traffic: a `traffic` fault that sets a rate would start requests (and invoke) in the probe.
  const probed: Scenario = { ...quiet, faults: quiet.faults.filter((f) => f.action.kind !== 'traffic') };
  // One world for every phase, run on from one probe to the next: a world built afresh and run to a
  // phase's probe time is in the state this one reaches there (the run is deterministic, and a probe
  // only routes). PERF: the phases cost one run of the timeline, not one run from 0 per phase (a
  // rolling release day of twenty restarts at the seed scale was twenty-three builds of 10^5 providers).
  const world = withRuleErrors(() => buildWorld(probed, scenario.seed, recorder, plugins));
  for (let i = 0; i + 1 < bounds.length; i++) {
    const span = { fromMs: bounds[i]!, toMs: bounds[i + 1]! };
    const probeMs = Math.max(span.fromMs, span.toMs - 1);
    withRuleErrors(() => world.sim.run({ until: probeMs }));
    const first = i === 0 ? (g: number, service: string, urls: URL[]) => invokerUrls.set(`${g}\u0000${service}`, urls) : undefined;
    const phase = probePhase(world, quiet, span, probeMs, first);
    if (i === 0) registryLoad = registryLoadWarnings(scenario, world.providerGroups);
    phases.push(phase);
    for (const p of phaseProblems(phase, new Set(scenario.providers.flatMap((p) => p.services)))) problems.push(p);
  }
  return { problems, phases, warnings: configurationWarnings(scenario, invokerUrls, { ruleKeys: options.ruleKeys, registryLoad }), strategies: [] };
}

// Routes every (consumer group, service, method, variant) of `world`, run to the probe time.
function probePhase(
  world: World,
  scenario: Scenario,
  span: PhaseSpan,
  probeMs: number,
  onInvokers?: (groupIndex: number, service: string, urls: URL[]) => void,
): CheckPhase {
  const routes: CheckRoute[] = [];
  for (const [groupIndex, group] of world.consumerGroups.entries()) {
    const instance = group.instances[0];
    if (instance === undefined || !(instance.stack instanceof DubboConsumerStack)) continue;
    const stack = instance.stack;
    for (const [service, methods] of calledMethods(group.spec)) {
      const ref = stack.references.get(service);
      if (ref === undefined) continue;
      const directory = ref.directory;
      const invokers = directory.getAllInvokers();
      onInvokers?.(groupIndex, service, invokers.filter((inv) => inv instanceof DubboInvoker).map((inv) => inv.getUrl()));
      const providersUp = invokers.filter((inv) => inv instanceof DubboInvoker && inv.provider.state === 'up').length;
      const chain = directory.getRouterChain();
      const byOutcome = new Map<string, CheckRoute>();
      for (const variant of attachmentVariants(group.spec)) {
        for (const method of methods) {
          const invocation = new RpcInvocation({ methodName: method, serviceName: service, attachments: { ...variant.attachments } });
          const routed = withRuleErrors(() => chain.route(ref.consumerUrl, invokers, invocation));
          const trace = routed.trace.map(traceStep);
          const key = `${variant.label}\u0000${JSON.stringify(trace)}`;
          const seen = byOutcome.get(key);
          if (seen !== undefined) {
            seen.methods.push(method);
            continue;
          }
          byOutcome.set(key, {
            consumer: group.spec.application,
            zone: group.spec.zone,
            service,
            methods: [method],
            variant: variant.label,
            attachments: variant.attachments,
            providers: invokers.length,
            providersUp,
            forbidden: directory.isForbidden(),
            providersAfter: routed.invokers.length,
            trace,
          });
        }
      }
      for (const r of byOutcome.values()) routes.push(r);
    }
  }
  return { ...span, probeMs, events: phaseEvents(scenario, span.fromMs), routes };
}

// A rule that does not parse is bad input (exit 2), not a failure while running.
function withRuleErrors<T>(f: () => T): T {
  try {
    return f();
  } catch (error) {
    if (error instanceof RouterRuleError) throw new UsageError(`routing rule: ${error.message}`);
    throw error;
  }
}

function traceStep(e: RouteTraceEntry): CheckTraceStep {
  const out: CheckTraceStep = e.rule !== undefined
    ? { router: e.router, rule: e.rule, before: e.before, after: e.after }
    : { router: e.router, before: e.before, after: e.after };
  if (e.note !== undefined) out.note = e.note;
  if (e.steps !== undefined) out.steps = e.steps.map(traceStep);
  return out;
}

/**
 * The attachment sets a request of the group can carry: the always-present ones alone, then with
 * each sometimes-present attachment (fraction or `when:`) added.
 */
function attachmentVariants(spec: ConsumerGroupSpec): Array<{ label: string; attachments: Record<string, string> }> {
  const base: Record<string, string> = {};
  const optional: Array<[string, string]> = [];
  for (const [key, a] of Object.entries(spec.attachments)) {
    if (a.kind === 'all') base[key] = a.value;
    else optional.push([key, a.value]);
  }
  const label = (att: Record<string, string>) =>
    Object.keys(att).length === 0 ? 'no attachments' : Object.entries(att).map(([k, v]) => `${k}=${v}`).join(', ');
  const variants = [{ label: label(base), attachments: base }];
  for (const [key, value] of optional) {
    const att = { ...base, [key]: value };
    variants.push({ label: label(att), attachments: att });
  }
  return variants;
}

// Fault starts and ends that happen exactly at `tMs`.
function phaseEvents(scenario: Scenario, tMs: number): string[] {
  const out: string[] = [];
  for (const f of scenario.faults) {
    if (f.atMs === tMs) out.push(`start: ${faultLabel(f.action)}`);
    if (f.forMs !== undefined && f.atMs + f.forMs === tMs) out.push(`end: ${faultLabel(f.action)}`);
  }
  return out;
}

/** Every route of the phase that leaves zero providers, merged over methods and variants with the same cause. */
function phaseProblems(phase: CheckPhase, servedServices: ReadonlySet<string>): CheckProblem[] {
  const merged = new Map<string, { problem: CheckProblem; cases: Array<[methods: string[], variant: string]>; reason: string }>();
  for (const r of phase.routes) {
    if (r.providersAfter > 0) continue;
    let router = 'registry';
    let before = 0;
    let reason: string;
    if (r.providers === 0 && !servedServices.has(r.service)) {
      reason =
        'no provider registered: no provider group serves this service' +
        (r.forbidden ? ' (the registry pushed empty://, so every call fails with the forbidden error, code 4)' : '');
    } else if (r.forbidden) {
      reason =
        'the registry pushed an empty list (empty://), so the directory is forbidden and every call fails with ' +
        '"No provider available from registry" (code 4)';
    } else if (r.providers === 0) {
      reason = 'no provider registered: the directory is empty, every call fails with "No provider available" (code 6)';
    } else {
      const emptied = r.trace.find((s) => s.after === 0) ?? r.trace[r.trace.length - 1];
      router = emptied?.router ?? 'router chain';
      before = emptied?.before ?? r.providers;
      const rule = emptied?.rule !== undefined ? ` rule "${emptied.rule}"` : '';
      reason = `${router}${rule} left 0 of ${before} providers${emptied?.note !== undefined ? `: ${emptied.note}` : ''}`;
    }
    const key = [r.consumer, r.zone, r.service, router, reason].join('\u0000');
    const entry = merged.get(key);
    if (entry !== undefined) {
      entry.cases.push([r.methods, r.variant]);
      continue;
    }
    merged.set(key, {
      cases: [[r.methods, r.variant]],
      reason,
      problem: {
        consumer: r.consumer,
        zone: r.zone,
        service: r.service,
        phase: { fromMs: phase.fromMs, toMs: phase.toMs },
        router,
        providersBefore: before,
        providersAfter: 0,
        message: '',
      },
    });
  }
  return [...merged.values()].map(({ problem, cases, reason }) => ({ ...problem, message: `${casesLabel(cases)}: ${reason}` }));
}

// `getUserById, updateUser (no attachments; dubbo.tag=canary)`: variants with the same methods share a label.
function casesLabel(cases: Array<[methods: string[], variant: string]>): string {
  const byVariant = new Map<string, Set<string>>();
  for (const [methods, variant] of cases) {
    const set = byVariant.get(variant) ?? new Set<string>();
    for (const m of methods) set.add(m);
    byVariant.set(variant, set);
  }
  const byMethods = new Map<string, string[]>();
  for (const [variant, methods] of byVariant) {
    const key = [...methods].join(', ');
    byMethods.set(key, [...(byMethods.get(key) ?? []), variant]);
  }
  return [...byMethods].map(([methods, variants]) => `${methods} (${variants.join('; ')})`).join('; ');
}

/**
 * What `check` builds worlds with in place of cluster plugins, which it never imports: a
 * failover cluster invoker (consumer stacks build their cluster when they subscribe) that throws
 * if anything invokes it.
 */
export function checkClusterStandIns(scenario: Scenario): Record<string, ClusterFactory> {
  const out: Record<string, ClusterFactory> = {};
  for (const r of pluginRefs(scenario)) {
    if (r.kind !== 'cluster') continue;
    out[r.module] = (directory, runtime) => {
      const standIn: ClusterInvokerLike = clusters.failover!(directory, runtime);
      standIn.invoke = () => {
        throw new Error(`zonesim check does not invoke: cluster plugin "${r.module}" is not loaded`);
      };
      return standIn;
    };
  }
  return out;
}
