/**
 * What Sentinel's Dubbo adapters name and return, for zonesim's calls: the resource names
 * (DubboUtils), the rules of one JVM from the scenario's `sentinel:` blocks (with Sentinel's defaults,
 * `sentinel/rules.ts`), and the result the adapter's fallback makes of a blocked call. Follows
 * sentinel-apache-dubbo3-adapter `DubboUtils.java`, `fallback/DefaultDubboFallback.java` and
 * `config/DubboAdapterGlobalConfig.java` (the 2.7 adapter's are the same).
 */
import type { Scenario, SentinelRuleSpec, SentinelSpec } from '../model/types.js';
import { RpcCode } from '../dubbo/constants.js';
import type { Result } from '../dubbo/rpc.js';
import { degradeRule, flowRule, paramFlowRule, systemRule, type DegradeRule, type FlowRule, type ParamFlowRule, type SentinelRules, type SystemRule } from '../sentinel/rules.js';
import type { BlockCause } from '../sentinel/sph.js';

/** `DubboUtils.getInterfaceName`: the interface (no group or version: `csp.sentinel.dubbo.interface.group.version.enabled` off). */
export function interfaceResourceName(service: string): string {
  return service;
}

/**
 * `DubboUtils.getMethodResourceName`: `interface:method(paramTypes)`. zonesim's methods have no
 * parameter types, so the name is `interface:method()`.
 */
// DIVERGENCE: a rule naming `interface:method(<any types>)` (as pasted from Sentinel) applies to
// `method` whatever the types say (`canonicalResource`); two overloads of one method are one resource.
export function methodResourceName(service: string, method: string): string {
  return `${service}:${method}()`;
}

const METHOD_RESOURCE = /^(.+):([^:()]+)\((.*)\)$/;

/** A rule's resource as zonesim names it: the parameter types of a method resource dropped. */
export function canonicalResource(resource: string): string {
  const m = METHOD_RESOURCE.exec(resource);
  return m === null ? resource : `${m[1]}:${m[2]}()`;
}

/** The rules of one JVM: the group's own kinds over the top-level ones (each kind replaces, as a datasource per application). */
export function effectiveSentinel(top: SentinelSpec | undefined, own: SentinelSpec | undefined): SentinelSpec {
  return {
    flowRules: own?.flowRules ?? top?.flowRules ?? [],
    degradeRules: own?.degradeRules ?? top?.degradeRules ?? [],
    systemRules: own?.systemRules ?? top?.systemRules ?? [],
    paramFlowRules: own?.paramFlowRules ?? top?.paramFlowRules ?? [],
    fallback: own?.fallback ?? top?.fallback ?? 'default',
  };
}

/** True when a spec holds any rule. */
export function hasSentinelRules(s: SentinelSpec | undefined): boolean {
  return s !== undefined && [s.flowRules, s.degradeRules, s.systemRules, s.paramFlowRules].some((r) => r !== undefined && r.length > 0);
}

/** The applications whose JVMs `sentinel` faults load rules into (undefined: every JVM). */
export function sentinelFaultTargets(s: Scenario): Set<string | undefined> {
  return new Set(s.faults.flatMap((f) => (f.action.kind === 'sentinel' ? [f.action.application] : [])));
}

/**
 * Whether a JVM of `application` whose effective rules are `spec` loads Sentinel at all: rules of its own, or a
 * `sentinel` fault (`targets`, see `sentinelFaultTargets`) that may give it some.
 */
export function loadsSentinel(spec: SentinelSpec, application: string, targets: ReadonlySet<string | undefined>): boolean {
  return hasSentinelRules(spec) || targets.has(undefined) || targets.has(application);
}

// The rule fields as written are validated by the schema (scenario/schema-sentinel.ts); here they only take Sentinel's defaults.
const withResource = <T>(r: SentinelRuleSpec): Partial<T> & { resource: string } => ({ ...(r as Partial<T>), resource: canonicalResource(String(r.resource)) });

/** The port's rules (defaults filled in, resources canonical) of a spec. */
export function sentinelRules(s: SentinelSpec): SentinelRules {
  return {
    flowRules: (s.flowRules ?? []).map((r) => flowRule(withResource<FlowRule>(r))),
    degradeRules: (s.degradeRules ?? []).map((r) => degradeRule(withResource<DegradeRule>(r))),
    systemRules: (s.systemRules ?? []).map((r) => systemRule(r as Partial<SystemRule>)),
    paramFlowRules: (s.paramFlowRules ?? []).map((r) => paramFlowRule(withResource<ParamFlowRule>(r))),
  };
}

/** The BlockException subclass of each slot (its simple name is in the fallback's message). */
const EXCEPTIONS: Record<BlockCause, string> = { flow: 'FlowException', degrade: 'DegradeException', system: 'SystemBlockException', param: 'ParamFlowException' };

/** `BlockException.toRuntimeException()`'s message: `SentinelBlockException: <SimpleName>`. */
export function blockMessage(cause: BlockCause): string {
  return `SentinelBlockException: ${EXCEPTIONS[cause]}`;
}

/** The adapter's fallback, parsed: what a blocked call becomes. */
export type Fallback = { kind: 'default' } | { kind: 'throw' } | { kind: 'return'; value: unknown };

/** Parses `default`, `throw`, `return null` or `return <value>` (validated by the schema). */
export function parseFallback(text: string | undefined): Fallback {
  const t = (text ?? 'default').trim();
  if (t === 'default') return { kind: 'default' };
  if (t === 'throw') return { kind: 'throw' };
  const v = t.slice('return'.length).trim();
  return { kind: 'return', value: v === 'null' ? null : v };
}

/**
 * The result of a blocked call on the consumer: DefaultDubboFallback's `AsyncRpcResult` carrying the
 * RuntimeException (the caller gets it; no cluster retries it: the filter sits outside the cluster),
 * an RpcException thrown (`throw`), or a value (`return`, the call is answered).
 */
export function consumerFallbackResult(fallback: Fallback, cause: BlockCause): Result {
  const tag = `consumer:${cause}`;
  switch (fallback.kind) {
    case 'default':
      return { kind: 'ok', bizException: `java.lang.RuntimeException: ${blockMessage(cause)}`, sentinelBlocked: tag };
    case 'throw':
      return { kind: 'error', error: { code: RpcCode.UNKNOWN_EXCEPTION, message: blockMessage(cause), cause: `sentinel:${tag}` } };
    case 'return':
      return { kind: 'ok', value: fallback.value, sentinelBlocked: `${tag}:fallback` };
  }
}

/** The `blocked` cause of a result, or undefined when Sentinel did not block the call. */
export function sentinelBlockOf(result: Result): string | undefined {
  if (result.kind === 'ok') return result.sentinelBlocked;
  const c = result.error.cause;
  return c !== undefined && c.startsWith('sentinel:') ? c.slice('sentinel:'.length) : undefined;
}
