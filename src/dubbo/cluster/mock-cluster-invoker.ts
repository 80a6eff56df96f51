/**
 * MockClusterInvoker: Dubbo's service degradation around a cluster invoker (MockClusterWrapper
 * wraps every cluster a registry directory or a group of a multi-group reference is joined with).
 * It reads `mock` from the consumer URL for the call's method: none, `force…` (answer from the mock
 * without calling any provider) or anything else, a fail mock (call the cluster; a non-business
 * RpcException, thrown or carried by the result, is answered by the mock). The mock answer itself
 * is MockInvoker's (mock-invoker.ts). A mocked Result carries `mocked` (or, for a `throw` mock's
 * RpcException, the cause `mock:<mode>:throw`) so that the request ends as outcome `mock`.
 * Follows dubbo-cluster `support/wrapper/MockClusterInvoker.java` (3.3; 2.7.23 where noted).
 */
import type { Proc } from '../../engine/simulation.js';
import { RpcCode } from '../constants.js';
import type { Directory } from '../directory/directory.js';
import { invokeMock, MOCK_KEY, type MockAnswer } from '../mock-invoker.js';
import { isBiz, isClusterInvoker, type ClusterInvokerLike, type Invoker, type Result, type RpcError, type RpcInvocation } from '../rpc.js';
import { INVOCATION_NEED_MOCK } from '../router/mock-invokers-selector.js';
import type { DubboRuntime } from '../runtime.js';
import type { URL } from '../url.js';
import { invokeAtStart } from './abstract-cluster-invoker.js';

/** `force` (no provider is called) or `fail` (the mock answers a failed call). */
export type MockMode = 'force' | 'fail';

/** The prefix of the RpcError cause of a `throw` mock's RpcException (see `mockCauseOf`). */
export const MOCK_CAUSE_PREFIX = 'mock:';
const FORCE_KEY = 'force';
const MOCK_PROTOCOL = 'mock';
/**
 * Error causes that stand for a Throwable other than RpcException, which `catch (RpcException e)`
 * lets through unmocked: forking's poll timeout (a NullPointerException in the cluster filter chain)
 * and the zone-aware cluster's `registry_zone_force` (IllegalStateException).
 */
const NOT_RPC_EXCEPTION_CAUSES: ReadonlySet<string> = new Set(['forking:pollTimeout', 'registry:zone-force']);

/**
 * The `mockCauses` key of a mocked request: `<mode>:<kind>` with kind `return`, `throw` or `impl`
 * (the mock implementation class answered).
 */
export function mockCause(mode: MockMode, kind: 'return' | 'throw' | 'impl'): string {
  return `${mode}:${kind}`;
}

/**
 * Whether a consumer URL sets `mock` at interface or method level (any value): without it every
 * call goes straight to the cluster, so the stack leaves the wrapper out.
 */
export function mockConfigured(consumerUrl: URL): boolean {
  for (const key of consumerUrl.params.keys()) if (key === MOCK_KEY || key.endsWith(`.${MOCK_KEY}`)) return true;
  return false;
}

/**
 * Whether a mock value means "no mock": 3.3 `ConfigUtils.isEmpty` (empty, `false`, `0`, `null`,
 * `N/A`, any case; MockClusterInvoker.java:105); 2.7.23 only empty or `false` (its
 * MockClusterInvoker.java:96), so `0` is a fail mock there, with implementation class `0`.
 */
export function isNoMock(value: string, version: DubboRuntime['release']['version']): boolean {
  const v = value.toLowerCase();
  if (value === '' || v === 'false') return true;
  return version !== '2.7' && (v === '0' || v === 'null' || v === 'n/a');
}

/** Dubbo's `MockClusterInvoker`. */
export class MockClusterInvoker implements ClusterInvokerLike {
  readonly #directory: Directory;
  readonly #invoker: ClusterInvokerLike;
  readonly #runtime: DubboRuntime;
  // PERF: the consumer URL never changes, so each method's mode is worked out once (null: no mock).
  readonly #modes = new Map<string, MockMode | null>();

  constructor(directory: Directory, invoker: ClusterInvokerLike, runtime: DubboRuntime) {
    this.#directory = directory;
    this.#invoker = invoker;
    this.#runtime = runtime;
  }

  /** The directory's consumer URL, where `mock` is read (MockClusterInvoker.java:63-66). */
  getUrl(): URL {
    return this.#directory.getConsumerUrl();
  }
  getRegistryUrl(): URL {
    return this.#directory.getUrl();
  }
  getDirectory(): Directory {
    return this.#directory;
  }
  /** The wrapped cluster invoker. */
  get invoker(): ClusterInvokerLike {
    return this.#invoker;
  }
  isDestroyed(): boolean {
    return this.#directory.isDestroyed();
  }
  isAvailable(): boolean {
    return this.#directory.isAvailable();
  }
  destroy(): void {
    this.#invoker.destroy?.();
  }

  /** MockClusterInvoker.invoke (MockClusterInvoker.java:99-152). */
  *invoke(invocation: RpcInvocation): Proc<Result> {
    const mode = this.#modeOf(invocation);
    if (mode === null) return yield* invokeAtStart(this.#invoker, invocation);
    if (mode === 'force') return yield* this.#doMockInvoke(invocation, null, mode);
    const result = yield* invokeAtStart(this.#invoker, invocation);
    return yield* this.#afterFailMock(invocation, result);
  }

  /**
   * The call when what the wrapped invoker's ClusterFilter chain runs first (ConsumerContextFilter's
   * timeout countdown, which zonesim runs before the reference's invoker) already ended it with
   * `result`: a force mock answers without it, a fail mock treats it as the cluster's result.
   */
  *invokeEnded(invocation: RpcInvocation, result: Result): Proc<Result> {
    const mode = this.#modeOf(invocation);
    if (mode === null) return result;
    if (mode === 'force') return yield* this.#doMockInvoke(invocation, null, mode);
    return yield* this.#afterFailMock(invocation, result);
  }

  // MockClusterInvoker.java:102-108: the method's (else the interface's) `mock`, default "false", trimmed.
  #modeOf(invocation: RpcInvocation): MockMode | null {
    const method = invocation.getMethodName();
    let mode = this.#modes.get(method);
    if (mode === undefined) {
      const raw = this.getUrl().getMethodParameter(method, MOCK_KEY);
      const value = (raw === undefined || raw === '' ? 'false' : raw).trim();
      mode = isNoMock(value, this.#runtime.release.version) ? null : value.startsWith(FORCE_KEY) ? 'force' : 'fail';
      this.#modes.set(method, mode);
    }
    return mode;
  }

  // MockClusterInvoker.java:121-149: a business RpcException goes to the caller, any other one is mocked.
  *#afterFailMock(invocation: RpcInvocation, result: Result): Proc<Result> {
    if (result.kind === 'error') {
      if (isBiz(result.error) || NOT_RPC_EXCEPTION_CAUSES.has(result.error.cause ?? '')) return result;
      return yield* this.#doMockInvoke(invocation, result.error, 'fail');
    }
    // "fix:#4585": a result that carries an RpcException (TpsLimitFilter's refusal, TIMEOUT_TERMINATE).
    const carried = carriedRpcException(result);
    if (carried === null) return result;
    if (isBiz(carried)) return { kind: 'error', error: carried };
    return yield* this.#doMockInvoke(invocation, carried, 'fail');
  }

  /** MockClusterInvoker.doMockInvoke (MockClusterInvoker.java:155-186). */
  *#doMockInvoke(invocation: RpcInvocation, e: RpcError | null, mode: MockMode): Proc<Result> {
    const mockInvokers = this.#selectMockInvoker(invocation);
    const first = mockInvokers?.[0];
    if (first === undefined || (!isClusterInvoker(first) && first.getUrl().protocol === MOCK_PROTOCOL)) {
      // No mock provider: `new MockInvoker(getUrl(), ...)`; a mock:// provider is one (MockProtocol.refer).
      return answerOf(invokeMock(first?.getUrl() ?? this.getUrl(), invocation), e, mode);
    }
    // A list that is not mock invokers only (a multi-group directory lists its groups' clusters without
    // routing): Dubbo invokes the first one, which runs its own mock.
    const result = yield* invokeAtStart(first, invocation);
    if (result.kind === 'ok') return result;
    if (isBiz(result.error)) return { kind: 'ok', bizException: result.error.message, mocked: mockCause(mode, 'throw') };
    return { kind: 'error', error: { code: result.error.code, message: mockErrorMessage(e, result.error.message), cause: result.error.cause } };
  }

  // MockClusterInvoker.selectMockInvoker (:205-228): the directory listed with invocation.need.mock=true
  // (MockInvokersSelector then keeps only mock:// providers); a failure to list is null.
  #selectMockInvoker(invocation: RpcInvocation): Invoker[] | null {
    invocation.setAttachment(INVOCATION_NEED_MOCK, 'true');
    const listed = this.#directory.list(invocation);
    return Array.isArray(listed) ? listed : null;
  }

  toString(): string {
    return `invoker :${String(this.#invoker)},directory: ${String(this.#directory)}`;
  }
}

/** The RpcException a successful-looking result carries instead of a value, or null. */
function carriedRpcException(result: Extract<Result, { kind: 'ok' }>): RpcError | null {
  if (result.rpcException !== undefined) return result.rpcException;
  // TpsLimitFilter returns `new RpcException("Failed to invoke service ... exceed max service tps.")`: code 0.
  if (result.limited !== undefined) return { code: RpcCode.UNKNOWN_EXCEPTION, message: result.bizException ?? '' };
  return null;
}

// doMockInvoke's handling of MockInvoker's answer: a business RpcException becomes a result carrying its
// cause, any other is rethrown as "mock error : ..." with its code.
function answerOf(answer: MockAnswer, e: RpcError | null, mode: MockMode): Result {
  switch (answer.kind) {
    case 'return':
      return { kind: 'ok', value: answer.value, mocked: mockCause(mode, 'return') };
    case 'impl':
      return { kind: 'ok', value: null, mocked: mockCause(mode, 'impl') };
    case 'thrown': {
      const error = answer.error;
      if (isBiz(error)) return { kind: 'ok', bizException: error.message, mocked: mockCause(mode, 'throw') };
      const message = mockErrorMessage(e, error.message);
      // The RpcException a `throw` mock means still ends the call as outcome mock; a failing mock is an error.
      const cause = answer.degradation ? `${MOCK_CAUSE_PREFIX}${mockCause(mode, 'throw')}` : undefined;
      return { kind: 'error', error: cause === undefined ? { code: error.code, message } : { code: error.code, message, cause } };
    }
  }
}

/**
 * getMockExceptionMessage (MockClusterInvoker.java:188-194): "mock error : <mock's message>", then
 * ", invoke error is :" and the call's own exception when there was one.
 * DIVERGENCE: `StringUtils.toString(e)` appends the exception's stack trace; zonesim prints its class and message.
 */
function mockErrorMessage(e: RpcError | null, mockMessage: string): string {
  const msg = `mock error : ${mockMessage}`;
  return e === null ? msg : `${msg}, invoke error is :org.apache.dubbo.rpc.RpcException: ${e.message}\n`;
}

/** The outcome cause of a mocked Result (`force:return`, ...), or undefined when the mock did not answer it. */
export function mockCauseOf(result: Result): string | undefined {
  if (result.kind === 'ok') return result.mocked;
  const cause = result.error.cause;
  return cause !== undefined && cause.startsWith(MOCK_CAUSE_PREFIX) ? cause.slice(MOCK_CAUSE_PREFIX.length) : undefined;
}
