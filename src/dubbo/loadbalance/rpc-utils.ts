/**
 * The invocation helpers the load balancers share: the method name and arguments of a call with
 * generic `$invoke` / `$invokeAsync` unwrapped. Owns nothing else. Follows dubbo-rpc-api
 * `support/RpcUtils.java` (`getMethodName`, `getArguments`).
 */
import type { RpcInvocation } from '../rpc.js';

const $INVOKE = '$invoke';
const $INVOKE_ASYNC = '$invokeAsync';

function isGeneric(invocation: RpcInvocation): boolean {
  const m = invocation.methodName;
  return m === $INVOKE || m === $INVOKE_ASYNC;
}

/** Dubbo `RpcUtils.getMethodName`: for a generic call, the real method name in `args[0]`. */
export function getMethodName(invocation: RpcInvocation): string {
  const args = invocation.arguments;
  if (isGeneric(invocation) && args.length > 0 && typeof args[0] === 'string') return args[0];
  return invocation.methodName;
}

/** Dubbo `RpcUtils.getArguments`: for a generic call, the real arguments in `args[2]`. */
export function getArguments(invocation: RpcInvocation): unknown[] {
  const args = invocation.arguments;
  if (isGeneric(invocation) && args.length > 2 && Array.isArray(args[2])) return args[2] as unknown[];
  return args;
}
