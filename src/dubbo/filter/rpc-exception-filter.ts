/**
 * RpcExceptionFilter (Dubbo 3.2.5+, `@Activate(group = CONSUMER)`, so on by default): a result that
 * carries an RpcException instead of a value (TpsLimitFilter's refusal, DubboInvoker's
 * TIMEOUT_TERMINATE, a provider rethrowing a downstream RpcException) is rethrown by its listener.
 * FilterChainBuilder then hands that exception to the listeners outside it as `onError`, so
 * ActiveLimitFilter ends its count as a failure and AdaptiveLoadBalanceFilter counts an error. The
 * cluster still sees the returned result (no failover retry). Follows dubbo-rpc-api
 * `filter/RpcExceptionFilter.java` and dubbo-cluster `filter/FilterChainBuilder.java`; 2.7 has no
 * such filter (`DubboRelease.rpcExceptionFilter`).
 */
import { RpcCode } from '../constants.js';
import type { Result, RpcError } from '../rpc.js';

/**
 * The RpcException a result carries instead of a value, if any (Java's `appResponse.getException()
 * instanceof RpcException`): TIMEOUT_TERMINATE, a provider's rethrown downstream RpcException, or
 * TpsLimitFilter's refusal (`new RpcException(message)`, code 0). A plain biz exception is not one.
 */
export function carriedRpcException(result: Result): RpcError | undefined {
  if (result.kind !== 'ok') return undefined;
  if (result.rpcException !== undefined) return result.rpcException;
  if (result.remoteRpcException !== undefined) return result.remoteRpcException;
  if (result.limited !== undefined) return { code: RpcCode.UNKNOWN_EXCEPTION, message: result.bizException ?? '', cause: 'tps:limit' };
  return undefined;
}

/**
 * What the consumer filters outside RpcExceptionFilter see of an attempt's result
 * (RpcExceptionFilter.java:44-52 rethrows in `onResponse`; FilterChainBuilder.java:242-243 makes the
 * rethrown exception the outer listeners' `t`, so they get `onError`): an error for a result carrying
 * an RpcException, else the result itself.
 */
export function seenOutsideRpcExceptionFilter(result: Result): Result {
  const carried = carriedRpcException(result);
  return carried === undefined ? result : { kind: 'error', error: carried };
}
