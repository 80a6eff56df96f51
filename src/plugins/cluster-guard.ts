/**
 * A plugin's cluster behind the guard: its factory runs as one timed call with the plugin's
 * runtime, each step of its `invoke` generator is a plugin call whose yields must be simulation
 * events and whose result must be a Result, and its other invoker methods are plugin calls too.
 */
import type { ClusterFactory } from '../dubbo/cluster/abstract-cluster-invoker.js';
import type { ClusterInvokerLike, RpcInvocation } from '../dubbo/rpc.js';
import { describeValue } from './describe-value.js';
import { bad, guarded, guardSteps } from './plugin-guard.js';
import { guardedFactory, pluginRuntime } from './plugin-runtime.js';

/** Why `r` is not a Result, or undefined when it is one (each field read once: it may be a getter). */
export function resultProblem(r: unknown): string | undefined {
  const shape = "a result ({ kind: 'ok', value } or { kind: 'error', error: { code, message } })";
  if (r === null || typeof r !== 'object') return `returned ${describeValue(r)}, not ${shape}`;
  const kind = (r as { kind?: unknown }).kind;
  if (kind === 'ok') return undefined;
  if (kind === 'error') {
    const error = (r as { error?: unknown }).error as { code?: unknown; message?: unknown } | null | undefined;
    if (error === null || typeof error !== 'object' || typeof error.code !== 'number' || typeof error.message !== 'string') {
      return 'returned an error result without error.code (a number) and error.message (a string)';
    }
    return undefined;
  }
  return `returned ${describeValue(r)} with kind ${describeValue(kind)}, not ${shape}`;
}

const CLUSTER_METHODS = ['getUrl', 'isAvailable', 'getRegistryUrl', 'isDestroyed', 'destroy'] as const;

function guardCluster(plugin: string, invoker: unknown): ClusterInvokerLike {
  const inner = (invoker !== null && typeof invoker === 'object' ? invoker : {}) as Partial<ClusterInvokerLike>;
  const invoke = inner.invoke;
  const methods = new Map(CLUSTER_METHODS.map((name) => [name, inner[name]]));
  if (invoker !== inner || typeof invoke !== 'function' || typeof methods.get('getUrl') !== 'function') {
    throw bad(plugin, 'createCluster', `returned ${describeValue(invoker)}, not a cluster invoker { invoke(invocation), getUrl(), isAvailable(), ... }`);
  }
  const g: Record<string, unknown> = {
    invoke: (invocation: RpcInvocation) => guarded(plugin, 'invoke', () => guardSteps(plugin, 'invoke', invoke.call(inner, invocation), resultProblem)),
  };
  for (const [name, method] of methods) {
    if (typeof method !== 'function') continue;
    g[name] = (...a: unknown[]) => guarded(plugin, name, () => (method as (...a: unknown[]) => unknown).apply(inner, a));
  }
  return g as unknown as ClusterInvokerLike;
}

/** A cluster factory whose invokers report their calls and have their results checked. */
export function guardClusterFactory(plugin: string, factory: Function): ClusterFactory {
  return (directory, runtime) =>
    guardedFactory(plugin, 'createCluster', runtime, () => factory(directory, pluginRuntime(plugin, runtime)), (invoker) => guardCluster(plugin, invoker));
}
