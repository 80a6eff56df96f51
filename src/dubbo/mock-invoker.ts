/**
 * MockInvoker: the local answer of a degraded call, read from the `mock` parameter of its URL
 * (`return <value>`, `throw [<exception class>]`, or a mock implementation class: `true`/`default`
 * means `<interface>Mock`). It answers at once, on the consumer, without a remote call. Not where
 * mocking is decided (MockClusterInvoker). Follows dubbo-rpc-api `support/MockInvoker.java`
 * (3.3 and 2.7.23 agree line for line on what is ported here).
 */
import { RpcCode } from './constants.js';
import type { RpcError, RpcInvocation } from './rpc.js';
import type { URL } from './url.js';

/** The `mock` parameter (rpc `Constants.MOCK_KEY`). */
export const MOCK_KEY = 'mock';
const RETURN_PREFIX = 'return ';
const THROW_PREFIX = 'throw';
const FAIL_PREFIX = 'fail:';
const FORCE_PREFIX = 'force:';
const RETURN_KEY = 'return';
/** The message of a `throw` mock without a class (MockInvoker.java:125). */
export const DEGRADATION_MESSAGE = 'mocked exception for service degradation.';

/**
 * What MockInvoker.invoke ends with: a returned value (`return`), the implementation class's answer
 * (`impl`), or the RpcException it throws (`thrown`; `degradation` marks the one a `throw` mock
 * means, the others are failures of the mock itself).
 */
export type MockAnswer =
  | { kind: 'return'; value: unknown }
  | { kind: 'impl' }
  | { kind: 'thrown'; error: RpcError; degradation: boolean };

/** `ConfigUtils.isDefault`: `true` or `default`, any case. */
export function isDefaultMock(value: string): boolean {
  const v = value.toLowerCase();
  return v === 'true' || v === 'default';
}

/**
 * `MockInvoker.normalizeMock` (MockInvoker.java:233-265): `return` → `return null`; `true`,
 * `default`, `fail`, `force` → `default`; the `fail:` then `force:` prefix stripped; backticks of a
 * `return`/`throw` mock become double quotes.
 */
export function normalizeMock(mock: string): string {
  mock = javaTrim(mock);
  if (mock.length === 0) return mock;
  if (mock.toLowerCase() === RETURN_KEY) return `${RETURN_PREFIX}null`;
  const lower = mock.toLowerCase();
  if (isDefaultMock(mock) || lower === 'fail' || lower === 'force') return 'default';
  if (mock.startsWith(FAIL_PREFIX)) mock = javaTrim(mock.slice(FAIL_PREFIX.length));
  if (mock.startsWith(FORCE_PREFIX)) mock = javaTrim(mock.slice(FORCE_PREFIX.length));
  if (mock.startsWith(RETURN_PREFIX) || mock.startsWith(THROW_PREFIX)) mock = mock.replaceAll('`', '"');
  return mock;
}

/**
 * `MockInvoker.invoke` (MockInvoker.java:100-138) over `url`'s `mock` for the invocation's method.
 * DIVERGENCE: a `return` value is not parsed (zonesim carries no return types or values): Dubbo
 * fails a value its JSON library cannot read, or cannot realize as the method's return type, with
 * "mock return invoke error"; zonesim answers it. A class named by `throw <class>` or by an
 * implementation mock is taken to exist (with the constructor Dubbo needs) when its name is a Java
 * class name, and to be missing otherwise (`0`, `N/A`, `return`, ...), as no class can have such a
 * name (a Spring bean of that name, which Dubbo also looks up for an implementation, is not modelled).
 */
export function invokeMock(url: URL, invocation: RpcInvocation): MockAnswer {
  const method = invocation.getMethodName();
  const raw = url.getMethodParameter(method, MOCK_KEY);
  if (raw === undefined || raw.trim() === '') {
    // new RpcException(new IllegalAccessException(...)): the message is the cause's toString().
    return failure(`java.lang.IllegalAccessException: mock can not be null. url :${url.toString()}`);
  }
  const decoded = urlDecode(raw);
  if (decoded === undefined) {
    // URLDecoder throws IllegalArgumentException, which no catch of MockInvoker sees.
    return failure('URLDecoder: Illegal hex characters in escape (%) pattern');
  }
  let mock = normalizeMock(decoded);
  if (mock.startsWith(RETURN_PREFIX)) {
    mock = javaTrim(mock.slice(RETURN_PREFIX.length));
    return { kind: 'return', value: mock === 'null' ? null : mock };
  }
  if (mock.startsWith(THROW_PREFIX)) {
    mock = javaTrim(mock.slice(THROW_PREFIX.length));
    if (mock === '') return { kind: 'thrown', error: { code: RpcCode.UNKNOWN_EXCEPTION, message: DEGRADATION_MESSAGE }, degradation: true };
    // getThrowable: the class with a String constructor, given the degradation message; else "argument error".
    if (!isJavaClassName(mock)) return failure(`mock throw error :${mock} argument error.`);
    // new RpcException(BIZ_EXCEPTION, t): the caller gets t.
    return { kind: 'thrown', error: { code: RpcCode.BIZ_EXCEPTION, message: `${mock}: ${DEGRADATION_MESSAGE}` }, degradation: true };
  }
  // An implementation: `<interface>Mock` for `default`, else the class (or Spring bean) named.
  const mockService = isDefaultMock(mock) ? `${url.getServiceInterface()}Mock` : mock;
  if (isJavaClassName(mockService)) return { kind: 'impl' };
  return failure(`Failed to create mock implementation class ${mock}`);
}

function failure(message: string): MockAnswer {
  return { kind: 'thrown', error: { code: RpcCode.UNKNOWN_EXCEPTION, message }, degradation: false };
}

/** Java's `String.trim`: strips every char <= U+0020 at both ends. */
function javaTrim(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) <= 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) <= 0x20) end--;
  return s.slice(start, end);
}

/** `URL.decode` (URLDecoder, UTF-8): `+` is a space, `%xx` a byte; undefined where URLDecoder throws. */
function urlDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

// Java's reserved words and literals: no class, and no package segment, can carry one of these names.
const JAVA_RESERVED = new Set(
  (
    'abstract assert boolean break byte case catch char class const continue default do double else enum extends final ' +
    'finally float for goto if implements import instanceof int interface long native new package private protected ' +
    'public return short static strictfp super switch synchronized this throw throws transient try void volatile while ' +
    'true false null _'
  ).split(' '),
);
const JAVA_IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

/** A binary class name as `Class.forName` could load one: dot-separated Java identifiers, none a reserved word. */
export function isJavaClassName(name: string): boolean {
  return name.split('.').every((part) => JAVA_IDENTIFIER.test(part) && !JAVA_RESERVED.has(part));
}
