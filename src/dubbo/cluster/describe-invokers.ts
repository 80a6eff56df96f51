/**
 * How Dubbo prints invokers inside messages ("No provider available in [...]", "Failed to forking
 * invoke provider [...]"): Java's `List.toString` over each invoker's `toString`. It owns message
 * text only; no strategy logic lives here. Follows dubbo-rpc-api `protocol/AbstractInvoker.java`
 * (`interface -> address`) and dubbo-cluster `support/AbstractClusterInvoker.java`
 * (`interface -> consumer URL`) `toString`.
 */
import { isClusterInvoker, type Invoker } from '../rpc.js';

/** `[iface -> address, ...]` for provider invokers, `iface -> url` for nested cluster invokers. */
export function describeInvokers(invokers: readonly Invoker[]): string {
  return `[${invokers.map(describeInvoker).join(', ')}]`;
}

/** One invoker as Dubbo's `toString` prints it. */
export function describeInvoker(invoker: Invoker): string {
  const url = invoker.getUrl();
  if (isClusterInvoker(invoker)) return `${url.getServiceInterface()} -> ${url.toString()}`;
  return `${url.getServiceInterface()} -> ${url.getAddress()}`;
}

