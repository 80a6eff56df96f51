/**
 * The warnings of `zonesim check` (SPEC 4.2): configuration smells that do not leave anyone
 * without providers. Read from the scenario (and from the invoker URLs the first phase's probe
 * saw): load balancers that count active calls without ActiveLimitFilter, timeouts below the P99,
 * group/version mismatches, services without providers, pools offered more threads than they have
 * (pool-load.ts, per phase, per group and per instance slowed on its own), keyed rules whose key
 * names nothing (check-rule-keys.ts) and faults that take down or cut off the zone a registry
 * lives in. Owns the warning texts; the phases and routes are check.ts's.
 */
import { quantile, sampler, Z99, type DistSpec } from '../engine/distributions.js';
import { RandomStreams } from '../engine/random.js';
import { DEFAULT_LOADBALANCE, DEFAULT_TIMEOUT, LOADBALANCE_KEY } from '../dubbo/constants.js';
import { hasActivesParameter } from '../dubbo/filter/active-limit-filter.js';
import type { URL } from '../dubbo/url.js';
import { referenceAttribute } from '../model/reference-attribute.js';
import { rttDist } from '../model/rtt-dist.js';
import { overloadedPools } from './pool-load.js';
import type { ConsumerGroupSpec, Scenario } from '../model/types.js';
import { measuredDistributionNotes } from './measured-fit.js';
import { ruleKeyWarnings } from './check-rule-keys.js';
import type { PhaseSpan } from '../world/faults.js';
import { registryZoneWarnings } from './check-registry-zone.js';
import { simplifiedKeyWarnings } from './check-simplified.js';
import type { RegistryLoadEstimate, RegistryLoadWarning } from './check-registry-load.js';
import { registryQuorumWarnings } from './check-registry-quorum.js';

/** A configuration smell that does not leave anyone without providers (SPEC 4.2 `warnings`). */
export interface CheckWarning {
  kind:
    | 'loadbalance-without-actives'
    | 'timeout-below-p99'
    | 'group-version-mismatch'
    | 'no-provider-group'
    | 'pool-overload'
    | 'rule-key-unmatched'
    | 'registry-zone-down'
    | 'registry-zone-cut'
    | 'registry-simplified-drops'
    | 'registry-push-overload'
    | 'registry-quorum-lost'
    | 'registry-unreachable'
    | 'measured-distribution';
  /** Empty for rule-key-unmatched and registry-*. */
  consumer: string;
  /** registry-zone-*: the registry's zone; registry-unreachable: the zone cut off; empty for rule-key-unmatched. */
  zone: string;
  service: string;
  /** rule-key-unmatched: where the rule is written (`routers[0]`, `faults[1].rule`, ...). */
  rule?: string;
  method?: string;
  /** pool-overload: the provider group and its pool (`shared`, or the service of an isolated executor). */
  providerGroup?: string;
  pool?: string;
  /** pool-overload: the instance (`s-a#3`) when the pool is one instance's, slowed on its own. */
  instance?: string;
  /** registry-*: the registry (`registry` or a `registries:` name) and the fault (`faults[2]`). */
  registry?: string;
  fault?: string;
  /** pool-overload: the first span of the phase with the worst load; registry-*: the fault's span. */
  phase?: PhaseSpan;
  /** registry-push-overload: the estimated push load of the fault. */
  estimate?: RegistryLoadEstimate;
  /** The strategy whose check found it (`--strategies`); absent for the scenario as written. */
  strategy?: string;
  message: string;
}

/** Service → methods the group calls, in the order of `calls:`. */
export function calledMethods(spec: ConsumerGroupSpec): Map<string, string[]> {
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
    const lb = referenceAttribute(c, service, method, 'loadbalance');
    const actives = referenceAttribute(c, service, method, 'actives');
    return (lb === 'leastactive' || lb === 'shortestresponse') && !(actives !== undefined && actives > 0) ? { lb, without: 1, of: 1 } : undefined;
  }
  const lb = urls[0]!.getMethodParameter(method, LOADBALANCE_KEY) ?? DEFAULT_LOADBALANCE;
  if (lb !== 'leastactive' && lb !== 'shortestresponse') return undefined;
  const without = urls.filter((u) => !hasActivesParameter(u)).length;
  return without === 0 ? undefined : { lb, without, of: urls.length };
}

/**
 * Every warning of one scenario. `invokerUrls`: the invoker URLs of the first phase by (consumer
 * group index, service). `ruleKeys: false` leaves out keyed-rule warnings (a strategy's check: the
 * scenario's own check already covers every strategy's routers). `registryLoad`: the push-load warnings
 * of a built world's provider groups (`registryLoadWarnings`: their URLs size the registry's pushes).
 */
export function configurationWarnings(
  scenario: Scenario,
  invokerUrls: ReadonlyMap<string, URL[]>,
  options: { ruleKeys?: boolean; registryLoad?: readonly RegistryLoadWarning[] } = {},
): CheckWarning[] {
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
  if (options.ruleKeys !== false) {
    // Service times are the scenario's own (a strategy does not change them): listed once.
    warnings.push(...measuredDistributionNotes(scenario));
    for (const w of ruleKeyWarnings(scenario)) {
      warnings.push({ kind: 'rule-key-unmatched', consumer: '', zone: '', service: w.scope === 'service' ? w.key : '', rule: w.where, message: w.message });
    }
  }
  for (const w of [...registryZoneWarnings(scenario), ...registryQuorumWarnings(scenario)]) {
    warnings.push({ kind: w.kind, consumer: '', zone: w.zone, service: '', registry: w.registry, fault: w.fault, phase: w.phase, message: w.message });
  }
  for (const { key: _key, ...w } of simplifiedKeyWarnings(scenario, calledMethods)) warnings.push(w);
  for (const w of options.registryLoad ?? []) {
    warnings.push({ kind: w.kind, consumer: '', zone: w.zone, service: '', registry: w.registry, fault: w.fault, phase: w.phase, estimate: w.estimate, message: w.message });
  }
  return warnings;
}

// A provider pool offered more threads than it has in some phase (as written, or while slowdown or
// traffic faults are in force): its calls get "thread pool is EXHAUSTED", also those of services
// that are not slow (a shared pool). One instance slowed on its own is its own pool.
function poolWarnings(scenario: Scenario): CheckWarning[] {
  return overloadedPools(scenario).map((p) => {
    const top = [...p.contributions].sort((a, b) => b.threads - a.threads);
    const worst = top[0]!;
    const parts = top
      .filter((c) => c.threads >= 0.5)
      .map(
        (c) =>
          `${c.service}.${c.method} from ${c.consumer} (${c.callGraph ? `call graph, ${c.zone}` : c.zone}) ${c.threads.toFixed(0)} ` +
          `(${c.attemptsPerCall.toFixed(2)} attempts per call${c.downstreamMs >= 0.5 ? `, ${ms(c.downstreamMs)} waiting downstream` : ''}` +
          `${c.executes !== undefined ? `, capped by executes=${c.executes}` : ''})`,
      );
    const services = [...new Set(p.contributions.map((c) => c.service))];
    const group = scenario.providers.find((g) => g.name === p.group);
    const count = group?.count ?? p.instances;
    const whose =
      p.instance !== undefined
        ? `instance ${p.instance} (slowed on its own)`
        : p.instances < count
          ? `its ${p.instances} other instance${p.instances === 1 ? '' : 's'}`
          : undefined;
    const pool = p.pool === 'shared' ? 'shared pool' : `${p.pool} executor`;
    return {
      kind: 'pool-overload' as const,
      consumer: worst.consumer,
      zone: worst.zone,
      service: worst.service,
      method: worst.method,
      providerGroup: p.group,
      pool: p.pool,
      ...(p.instance !== undefined ? { instance: p.instance } : {}),
      phase: { fromMs: p.fromMs, toMs: p.toMs },
      message:
        `provider group ${p.group}: ${whose === undefined ? `its ${pool}` : `the ${pool} of ${whose}`} is offered ` +
        `${p.offered.toFixed(0)} threads of its ${p.capacity} ${p.phase} (${parts.join(', ')}): calls are rejected with ` +
        `"thread pool is EXHAUSTED"` +
        (services.length > 1 ? `, those of ${services.filter((s) => s !== worst.service).join(', ')} too` : '') +
        (group?.isolation?.dynamic !== undefined ? ' (unless dynamic isolation, which check does not model, moves a method to its own pool)' : ''),
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
  const consumerTimeout = referenceAttribute(c, service, method, 'timeoutMs');
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
    const p99RttMs = p99(rttDist(scenario.network, c.zone, g.zone));
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


/** A duration for the check report: `0s`, `30s`, `29.999s`, `52ms`. */
export function ms(v: number): string {
  if (v === 0) return '0s';
  if (v >= 1000 && v % 1000 === 0) return `${v / 1000}s`;
  if (v >= 1000) return `${+(v / 1000).toFixed(3)}s`;
  return `${+v.toFixed(2)}ms`;
}

