/**
 * How routers read an invocation the way Dubbo does: the invoked method name with generic calls
 * unwrapped (`RpcUtils.getMethodName`), and arguments stringified as Java's `String.valueOf`.
 * Shared by the condition matchers and the route cache key so both see the same values.
 * Follows dubbo-rpc-api `support/RpcUtils.java`.
 */
import type { RpcInvocation } from '../rpc.js';

/** The method name a router sees: `$invoke`/`$invokeAsync` with a string first argument give that argument; empty gives undefined. */
export function getMethodName(invocation: RpcInvocation): string | undefined {
  const name = invocation.methodName;
  if ((name === '$invoke' || name === '$invokeAsync') && typeof invocation.arguments[0] === 'string') {
    return invocation.arguments[0];
  }
  // DIVERGENCE: RpcInvocation always has a string method name; an empty one stands for Java's null.
  return name === '' ? undefined : name;
}

/** Java `String.valueOf(arg)` for the values a simulated invocation carries. */
export function javaStringValueOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? String(value);
}
