/**
 * The provider's ContextFilter as far as calls made while executing see it: which incoming
 * attachments stay in the server attachment (everything but UNLOADING_KEYS) and the timeout
 * countdown it starts from the caller's `_TO`. What the downstream call then does with them is
 * `consumer-context-filter.ts`. Follows dubbo-rpc-api `filter/ContextFilter.java` (Dubbo 3.3,
 * `UNLOADING_KEYS` lines 75-135, `invoke` lines 138-172) and `support/TrieTree.java`.
 */
import { TIMEOUT_KEY } from '../constants.js';
import { TimeoutCountDown } from '../timeout-count-down.js';

/** `CommonConstants.TIMEOUT_ATTACHMENT_KEY`: the time budget a caller hands to the provider. */
export const TIMEOUT_ATTACHMENT_KEY = '_TO';
/** `CommonConstants.TIMEOUT_ATTACHMENT_KEY_LOWER`, read when `_TO` is absent. */
export const TIMEOUT_ATTACHMENT_KEY_LOWER = '_to';
/** `CommonConstants.TIME_COUNTDOWN_KEY`: the server attachment holding the countdown. */
export const TIME_COUNTDOWN_KEY = 'timeout-countdown';
/** `CommonConstants.ENABLE_TIMEOUT_COUNTDOWN_KEY`: the (method-level) URL switch. */
export const ENABLE_TIMEOUT_COUNTDOWN_KEY = 'enable-timeout-countdown';

/**
 * ContextFilter's `UNLOADING_KEYS`, as written in Dubbo: path, interface, group, version, dubbo,
 * token, timeout, `_TO`, async, dubbo.tag, dubbo.force.tag and HTTP request headers.
 */
export const UNLOADING_KEYS: readonly string[] = [
  'path', 'interface', 'group', 'version', 'dubbo', 'token', TIMEOUT_KEY, TIMEOUT_ATTACHMENT_KEY,
  'async', 'dubbo.tag', 'dubbo.force.tag',
  'accept', 'accept-charset', 'accept-datetime', 'accept-encoding', 'accept-language',
  'access-control-request-headers', 'access-control-request-method', 'authorization', 'cache-control',
  'connection', 'content-length', 'content-md5', 'content-type', 'cookie', 'date', 'dnt', 'expect',
  'forwarded', 'from', 'host', 'http2-settings', 'if-match', 'if-modified-since', 'if-none-match',
  'if-range', 'if-unmodified-since', 'max-forwards', 'origin', 'pragma', 'proxy-authorization', 'range',
  'referer', 'sec-fetch-dest', 'sec-fetch-mode', 'sec-fetch-site', 'sec-fetch-user', 'te', 'trailer',
  'upgrade', 'upgrade-insecure-requests', 'user-agent',
];

// TrieTree's alphabet: a-z (either case), '-', '_', '.'. A word with any other character stops
// being inserted at that character, so `content-md5` and `http2-settings` are never matched.
const TRIE_CHARS = /^[A-Za-z._-]+$/;
const UNLOADED = new Set(UNLOADING_KEYS.filter((k) => TRIE_CHARS.test(k)).map((k) => k.toLowerCase()));

/**
 * `UNLOADING_KEYS.search(key)`: case-insensitive, and false for any key with a character outside
 * the trie's alphabet (a digit, a space, ...) or for the empty key.
 */
export function isUnloadingKey(key: string): boolean {
  return TRIE_CHARS.test(key) && UNLOADED.has(key.toLowerCase());
}

/** The server attachment ContextFilter leaves while the provider executes: the incoming attachments minus UNLOADING_KEYS. */
export function serverAttachments(incoming: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of incoming) if (!isUnloadingKey(k)) out.set(k, v);
  return out;
}

/**
 * The countdown ContextFilter puts in the server attachment (`TIME_COUNTDOWN_KEY`) when the call
 * carries a time budget: `RpcUtils.getTimeout(invocation, -1)` reads `_TO`, else `_to`; the
 * deadline starts when the filter runs, on the provider thread (`startedMs`), so the request's
 * network transit and queueing are not taken off. Null when there is no budget.
 */
export function serverCountDown(incoming: ReadonlyMap<string, string>, startedMs: number): TimeoutCountDown | null {
  const raw = incoming.get(TIMEOUT_ATTACHMENT_KEY) ?? incoming.get(TIMEOUT_ATTACHMENT_KEY_LOWER);
  if (raw === undefined) return null;
  // RpcUtils.convertToNumber: Long.parseLong, the default (-1: no countdown) when it does not parse.
  const timeoutMs = /^[+-]?\d+$/.test(raw) ? Number(raw) : -1;
  if (timeoutMs === -1) return null;
  return TimeoutCountDown.newCountDown(timeoutMs, startedMs);
}
