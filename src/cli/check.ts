/**
 * `zonesim check`: a pre-flight for routing rules and topology (SPEC 1, 4.2). The fault timeline
 * is cut into phases at every fault boundary. For each phase a world is built without traffic and
 * run to the phase's last millisecond (probe time = phase end - 1 ms, so the registry has had the
 * whole phase to react: health checks, removal, pushes), then, for the first instance of every
 * consumer group and every service and method it calls, the providers its directory holds are
 * routed through its router chain once per attachment variant. A variant that leaves zero
 * providers is a problem naming the router, its rule and why. Configuration smells that do not
 * empty a list (load balancers without `actives`, timeouts below the P99, group/version
 * mismatches, services without providers, keyed rules whose key names nothing here) are warnings. Output: SPEC 4.2 JSON or text.
 * Only the router plugins on those routes are imported (on a worker thread, under the plugin time
 * budget); load-balancer and cluster plugins never are, since check routes and never invokes.
 */
import { resolve } from 'node:path';
import { quantile, sampler, Z99, type DistSpec } from '../engine/distributions.js';
import { RandomStreams } from '../engine/random.js';
import { DubboConsumerStack } from '../dubbo/consumer/consumer-stack.js';
import { DEFAULT_LOADBALANCE, DEFAULT_TIMEOUT, LOADBALANCE_KEY } from '../dubbo/constants.js';
import { hasActivesParameter } from '../dubbo/filter/active-limit-filter.js';
import { DubboInvoker } from '../dubbo/protocol/dubbo-invoker.js';
import { RouterRuleError } from '../dubbo/router/router-rule-error.js';
import { overloadedPools } from '../scenario/pool-load.js';
import { measuredDistributionNotes } from '../scenario/measured-fit.js';
import type { RouteTraceEntry } from '../dubbo/router/router.js';
import { RpcInvocation } from '../dubbo/rpc.js';
import type { URL } from '../dubbo/url.js';
import { Recorder } from '../metrics/recorder.js';
import { loadScenarioWithRaw } from '../scenario/load.js';
import { buildWorld, type Plugins } from '../scenario/run.js';
import type { ConsumerGroupSpec, ReferenceSpec, Scenario } from '../scenario/types.js';
import { faultBoundaries, faultLabel } from '../world/faults.js';
import { ruleKeyWarnings } from './check-rule-keys.js';
import { guardCost } from './cost-guard.js';
import { UsageError, type Io } from './io.js';
import { runWatchedJob } from './plugin-watchdog.js';
import { pluginPolicy } from './plugin-policy.js';
import { checkClusterStandIns, checkRouterPlugins, preflightPlugins } from './plugins.js';

/** Options of `zonesim check` (the yargs command in main.ts passes them). */
export interface CheckOptions {
  scenario: string;
  set: string[];
  json: boolean;
  /** Exit 1 when there is any problem. */
  strict: boolean;
  /** Check even when the worlds it builds would not fit in memory (cost-guard.ts). */
  force?: boolean;
}

/** A phase of the fault timeline: `[fromMs, toMs)`. */
export interface PhaseSpan {
  fromMs: number;
  toMs: number;
}

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
}

/**
 * A configuration smell that does not leave anyone without providers. `rule-key-unmatched`: a
 * keyed rule that no consumer subscribes to (`consumer`/`zone` empty, `service` the rule's
 * service key for `scope: service`, `rule` where it is written).
 */
export interface CheckWarning {
  kind: 'loadbalance-without-actives' | 'timeout-below-p99' | 'group-version-mismatch' | 'no-provider-group' | 'pool-overload' | 'rule-key-unmatched' | 'measured-distribution';
  consumer: string;
  zone: string;
  service: string;
  /** rule-key-unmatched: where the rule is written (`routers[0]`, `faults[1].rule`, ...). */
  rule?: string;
  method?: string;
  /** pool-overload: the provider group and its pool (`shared`, or the service of an isolated executor). */
  providerGroup?: string;
  pool?: string;
  message: string;
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

/** The whole `check --json` document. */
export interface CheckReport {
  problems: CheckProblem[];
  phases: CheckPhase[];
  warnings: CheckWarning[];
}

/** Runs `zonesim check`; returns the exit code (1 with `strict` when there is a problem). */
export async function runCheck(opts: CheckOptions, io: Io): Promise<number> {
  const path = resolve(io.cwd, opts.scenario);
  const { scenario } = loadScenarioWithRaw(path, opts.set);
  // Each phase builds the whole world (instances, providers, timeline) with no traffic: its memory is checked first.
  const built: Scenario = { ...scenario, consumers: scenario.consumers.map((c) => ({ ...c, ratePerSec: 0 })), faults: scenario.faults.filter((f) => f.action.kind !== 'traffic') };
  guardCost('check', [{ label: 'each phase', scenario: built, count: 1 }], { force: opts.force, maxRequests: Infinity }, io);
  preflightPlugins(scenario, path);
  // Check routes and never invokes: only the router plugins its routes go through are imported, on a
  // worker thread under the plugin time budget; nothing is imported when no route goes through one.
  const routers = checkRouterPlugins(scenario);
  const report =
    routers.length === 0
      ? checkScenario(scenario)
      : await runWatchedJob<CheckReport>(
          { kind: 'check', scenario, scenarioPath: path, routers },
          [...new Set(routers.map((r) => r.module))],
          pluginPolicy().timeoutMs,
        );
  io.stdout(opts.json ? JSON.stringify(report, null, 2) + '\n' : formatCheckReport(scenario, report));
  return opts.strict && report.problems.length > 0 ? 1 : 0;
}

/** Checks a normalized scenario (no file I/O): phases, routes, problems and warnings. */
export function checkScenario(scenario: Scenario, options: { plugins?: Plugins } = {}): CheckReport {
  const quiet: Scenario = { ...scenario, consumers: scenario.consumers.map((c) => ({ ...c, ratePerSec: 0 })) };
  // Consumer stacks build their cluster invokers as they subscribe; check never invokes, so cluster
  // plugins are stood in for (plugins.ts), not imported.
  const plugins: Plugins = { ...options.plugins, clusters: { ...checkClusterStandIns(scenario), ...options.plugins?.clusters } };
  const bounds = faultBoundaries(scenario);
  const phases: CheckPhase[] = [];
  const problems: CheckProblem[] = [];
  // The invoker URLs of the first phase (consumer group index, service): what Dubbo reads `loadbalance` and `actives` from.
  const invokerUrls = new Map<string, URL[]>();
  for (let i = 0; i + 1 < bounds.length; i++) {
    const span = { fromMs: bounds[i]!, toMs: bounds[i + 1]! };
    const phase = probePhase(quiet, span, plugins, i === 0 ? (g, service, urls) => invokerUrls.set(`${g}\u0000${service}`, urls) : undefined);
    phases.push(phase);
    problems.push(...phaseProblems(phase, new Set(scenario.providers.flatMap((p) => p.services))));
  }
  return { problems, phases, warnings: configurationWarnings(scenario, invokerUrls) };
}

// Builds a fresh world, runs it to the probe time and routes every (consumer group, service, method, variant).
function probePhase(
  scenario: Scenario,
  span: PhaseSpan,
  plugins: Plugins | undefined,
  onInvokers?: (groupIndex: number, service: string, urls: URL[]) => void,
): CheckPhase {
  const probeMs = Math.max(span.fromMs, span.toMs - 1);
  const recorder = new Recorder({
    warmupMs: scenario.warmupMs,
    durationMs: scenario.durationMs,
    bucketMs: scenario.bucketMs,
    providerGroups: scenario.providers.map((p) => ({ name: p.name, instances: p.count, threads: p.threads, services: p.services })),
  });
  // Without traffic: a `traffic` fault that sets a rate would start requests (and invoke) in the probe.
  const probed: Scenario = { ...scenario, faults: scenario.faults.filter((f) => f.action.kind !== 'traffic') };
  const world = withRuleErrors(() => {
    const w = buildWorld(probed, scenario.seed, recorder, plugins);
    w.sim.run({ until: probeMs });
    return w;
  });
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
      routes.push(...byOutcome.values());
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

/** Service → methods the group calls, in the order of `calls:`. */
function calledMethods(spec: ConsumerGroupSpec): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const key of Object.keys(spec.calls)) {
    const dot = key.lastIndexOf('.');
    const service = key.slice(0, dot);
    const list = out.get(service) ?? [];
    list.push(key.slice(dot + 1));
    out.set(service, list);
  }
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

// ---- configuration warnings ----

type MethodReference = Omit<ReferenceSpec, 'methods'>;

/** A reference attribute with Dubbo's precedence: method level, interface level, consumer defaults. */
function attribute<K extends keyof MethodReference>(spec: ConsumerGroupSpec, service: string, method: string, key: K): MethodReference[K] {
  const ref = spec.reference[service];
  return ref?.methods[method]?.[key] ?? ref?.[key] ?? spec.consumerDefaults[key];
}

/**
 * Whether `method` balances by active calls (leastactive, shortestresponse) over providers whose
 * URL leaves ActiveLimitFilter out; undefined when not. Read from the invoker URLs (consumer value
 * first, then the provider's) as Dubbo reads them: the balancer named on the first invoker's URL,
 * the filter per invoker (`hasActivesParameter`). Without invokers, from the consumer's reference.
 */
function activeCounting(
  c: ConsumerGroupSpec,
  service: string,
  method: string,
  urls: readonly URL[],
): { lb: string; without: number; of: number } | undefined {
  if (urls.length === 0) {
    const lb = attribute(c, service, method, 'loadbalance');
    const actives = attribute(c, service, method, 'actives');
    return (lb === 'leastactive' || lb === 'shortestresponse') && !(actives !== undefined && actives > 0) ? { lb, without: 1, of: 1 } : undefined;
  }
  const lb = urls[0]!.getMethodParameter(method, LOADBALANCE_KEY) ?? DEFAULT_LOADBALANCE;
  if (lb !== 'leastactive' && lb !== 'shortestresponse') return undefined;
  const without = urls.filter((u) => !hasActivesParameter(u)).length;
  return without === 0 ? undefined : { lb, without, of: urls.length };
}

function configurationWarnings(scenario: Scenario, invokerUrls: ReadonlyMap<string, URL[]>): CheckWarning[] {
  const warnings: CheckWarning[] = [];
  for (const [groupIndex, c] of scenario.consumers.entries()) {
    const at = { consumer: c.application, zone: c.zone };
    for (const [service, methods] of calledMethods(c)) {
      const groups = scenario.providers.filter((p) => p.services.includes(service));
      if (groups.length === 0) {
        warnings.push({
          kind: 'no-provider-group',
          ...at,
          service,
          message: `${c.application} (${c.zone}) calls ${service}, but no provider group serves it: every call fails with "No provider available"`,
        });
        continue;
      }
      warnings.push(...groupVersionWarnings(c, service, groups));
      const urls = invokerUrls.get(`${groupIndex}\u0000${service}`) ?? [];
      for (const method of methods) {
        const counting = activeCounting(c, service, method, urls);
        if (counting !== undefined) {
          const { lb, without, of } = counting;
          warnings.push({
            kind: 'loadbalance-without-actives',
            ...at,
            service,
            method,
            message:
              `${c.application} (${c.zone}) ${service}.${method}: loadbalance ${lb} without actives` +
              (without < of ? ` on ${without} of ${of} providers` : '') +
              ': in Dubbo 3.3 only ActiveLimitFilter (active when the URL has actives) counts active calls and response times, so ' +
              (without < of ? 'the providers without it always look idle' : 'it behaves as weighted random'),
          });
        }
        const timeout = timeoutWarning(scenario, c, service, method, groups);
        if (timeout !== undefined) warnings.push(timeout);
      }
    }
  }
  warnings.push(...poolWarnings(scenario));
  warnings.push(...measuredDistributionNotes(scenario));
  for (const w of ruleKeyWarnings(scenario)) {
    warnings.push({ kind: 'rule-key-unmatched', consumer: '', zone: '', service: w.scope === 'service' ? w.key : '', rule: w.where, message: w.message });
  }
  return warnings;
}

// A provider pool offered more threads than it has (scenario as written or during a slowdown): its
// calls get "thread pool is EXHAUSTED", also those of services that are not slow (a shared pool).
function poolWarnings(scenario: Scenario): CheckWarning[] {
  return overloadedPools(scenario).map((p) => {
    const top = [...p.contributions].sort((a, b) => b.threads - a.threads);
    const worst = top[0]!;
    const parts = top
      .filter((c) => c.threads >= 0.5)
      .map((c) => `${c.service}.${c.method} from ${c.consumer} ${c.threads.toFixed(0)} (${c.attemptsPerCall.toFixed(2)} attempts per call)`);
    const services = [...new Set(p.contributions.map((c) => c.service))];
    return {
      kind: 'pool-overload' as const,
      consumer: worst.consumer,
      zone: worst.zone,
      service: worst.service,
      method: worst.method,
      providerGroup: p.group,
      pool: p.pool,
      message:
        `provider group ${p.group}: ${p.pool === 'shared' ? 'its shared pool' : `the ${p.pool} executor`} is offered ` +
        `${p.offered.toFixed(0)} threads of its ${p.capacity} ${p.phase} (${parts.join(', ')}): calls are rejected with ` +
        `"thread pool is EXHAUSTED"` +
        (services.length > 1 ? `, those of ${services.filter((s) => s !== worst.service).join(', ')} too` : ''),
    };
  });
}

// Dubbo matches group and version of the subscription (UrlUtils.isMatch): `*` or a listed value matches.
function groupVersionWarnings(c: ConsumerGroupSpec, service: string, groups: Scenario['providers']): CheckWarning[] {
  const params = c.reference[service]?.parameters ?? {};
  const wantGroup = params.group ?? '';
  const wantVersion = params.version ?? '';
  const groupOk = (g: string) => wantGroup === '*' || wantGroup === g || (wantGroup.includes(',') && wantGroup.split(',').includes(g));
  const versionOk = (v: string) => wantVersion === '*' || wantVersion === v;
  const out: CheckWarning[] = [];
  for (const p of groups) {
    const group = p.params.group ?? '';
    const version = p.params.version ?? '';
    if (groupOk(group) && versionOk(version)) continue;
    const show = (v: string) => (v === '' ? '(none)' : v);
    out.push({
      kind: 'group-version-mismatch',
      consumer: c.application,
      zone: c.zone,
      service,
      message:
        `provider group ${p.name} registers ${service} with group ${show(group)}, version ${show(version)}, but ` +
        `${c.application}'s reference asks for group ${show(wantGroup)}, version ${show(wantVersion)}: the registry never ` +
        'hands this consumer those providers (Dubbo UrlUtils.isMatch)',
    });
  }
  return out;
}

// The consumer timeout against the provider's P99 service time plus the P99 RTT to each provider zone.
function timeoutWarning(
  scenario: Scenario,
  c: ConsumerGroupSpec,
  service: string,
  method: string,
  groups: Scenario['providers'],
): CheckWarning | undefined {
  const serviceTime = scenario.services[service]?.methods[method]?.serviceTime;
  if (serviceTime === undefined) return undefined;
  const p99ServiceMs = p99(serviceTime);
  const consumerTimeout = attribute(c, service, method, 'timeoutMs');
  const short: string[] = [];
  let timeoutShown = consumerTimeout ?? DEFAULT_TIMEOUT;
  const seenZones = new Set<string>();
  for (const g of groups) {
    // A consumer value wins over the provider's; otherwise the provider URL's, otherwise Dubbo's default.
    const providerTimeout = Number(g.params[`${method}.timeout`] ?? g.params.timeout);
    const timeoutMs = consumerTimeout ?? (Number.isFinite(providerTimeout) ? providerTimeout : DEFAULT_TIMEOUT);
    const key = `${g.zone}\u0000${timeoutMs}`;
    if (seenZones.has(key)) continue;
    seenZones.add(key);
    const p99RttMs = p99(rttDist(scenario, c.zone, g.zone));
    if (timeoutMs < p99ServiceMs + p99RttMs) {
      timeoutShown = timeoutMs;
      short.push(`${g.zone} (P99 service ${ms(p99ServiceMs)} + P99 RTT ${ms(p99RttMs)} = ${ms(p99ServiceMs + p99RttMs)})`);
    }
  }
  if (short.length === 0) return undefined;
  return {
    kind: 'timeout-below-p99',
    consumer: c.application,
    zone: c.zone,
    service,
    method,
    message:
      `${c.application} (${c.zone}) ${service}.${method}: timeout ${ms(timeoutShown)} is below the provider P99 plus the P99 RTT ` +
      `to ${short.join(', ')}: more than 1% of those attempts time out`,
  };
}

/** The RTT distribution from zone `a` to zone `b`, as the network resolves it (later pair entries win). */
function rttDist(scenario: Scenario, a: string, b: string): DistSpec {
  let dist = a === b ? scenario.network.sameZone : scenario.network.default;
  for (const p of scenario.network.pairs) if (p.from === a && p.to === b) dist = p.dist;
  return dist;
}

/** The 99th percentile of a distribution: closed form where there is one, else 20 000 seeded draws. */
export function p99(spec: DistSpec): number {
  switch (spec.dist) {
    case 'lognormal':
      return 'p99' in spec ? spec.p99 : Math.exp(spec.mu + Z99 * spec.sigma);
    case 'normal':
      return Math.max(0, spec.mean + Z99 * spec.stddev);
    case 'empirical':
      return spec.p99;
    default: {
      const exact = quantile(spec, 0.99);
      if (exact !== undefined) return exact;
      const draw = sampler(spec, new RandomStreams(0).stream('check/p99'));
      const draws = Array.from({ length: 20_000 }, draw).sort((x, y) => x - y);
      return draws[Math.floor(0.99 * draws.length)]!;
    }
  }
}

// ---- text output ----

function ms(v: number): string {
  if (v === 0) return '0s';
  if (v >= 1000 && v % 1000 === 0) return `${v / 1000}s`;
  if (v >= 1000) return `${+(v / 1000).toFixed(3)}s`;
  return `${+v.toFixed(2)}ms`;
}

/** The human report: per phase, per consumer group and service, providers after each router; then problems and warnings. */
export function formatCheckReport(scenario: Scenario, report: CheckReport): string {
  const lines: string[] = [];
  lines.push(`check ${scenario.name}: ${report.phases.length} phase${report.phases.length === 1 ? '' : 's'}, ${scenario.consumers.length} consumer group${scenario.consumers.length === 1 ? '' : 's'}`);
  report.phases.forEach((phase, i) => {
    lines.push('');
    const events = phase.events.length > 0 ? `  [${phase.events.join('; ')}]` : '';
    lines.push(`phase ${i + 1}: ${ms(phase.fromMs)} - ${ms(phase.toMs)} (probed at ${ms(phase.probeMs)})${events}`);
    let last = '';
    for (const r of phase.routes) {
      const head = `${r.consumer} (${r.zone}) -> ${r.service}`;
      if (head !== last) {
        const state = r.forbidden ? ', forbidden (empty:// pushed)' : r.providersUp < r.providers ? `, ${r.providersUp} up` : '';
        lines.push(`  ${head}: ${r.providers} provider${r.providers === 1 ? '' : 's'}${state}`);
        last = head;
      }
      const steps = r.trace.map((s) => `${s.router} ${s.after}`).join(' -> ');
      const mark = r.providersAfter === 0 ? '  <-- NO PROVIDER' : '';
      lines.push(`    ${r.methods.join(', ')} [${r.variant}]: ${steps === '' ? `${r.providersAfter}` : steps}${mark}`);
    }
  });
  lines.push('');
  if (report.problems.length === 0) lines.push('problems: none');
  else {
    lines.push(`problems (${report.problems.length}):`);
    for (const p of report.problems) {
      lines.push(`  ${p.consumer} (${p.zone}) -> ${p.service}, ${ms(p.phase.fromMs)} - ${ms(p.phase.toMs)}, ${p.router}: ${p.message}`);
    }
  }
  if (report.warnings.length > 0) {
    lines.push(`warnings (${report.warnings.length}):`);
    for (const w of report.warnings) lines.push(`  ${w.message}`);
  }
  return lines.join('\n') + '\n';
}
