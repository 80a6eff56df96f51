/**
 * Dubbo's URL: protocol, credentials, host, port, path and parameters, with Dubbo's lookups
 * (method-level parameters, identity string, service key, address). `ServiceAddressURL` is the
 * consumer-side view of a provider URL (interface-level discovery): consumer value first, provider
 * value as fallback, method level before interface level on each side, except for the keys the
 * provider owns. Follows dubbo-common `URL.java`, `url/component/URLParam.java`,
 * `url/component/ServiceAddressURL.java` and `DubboServiceAddressURL.java`.
 */
import { hashMapKeyOrder, stringHashCode } from './directory/java-hash-order.js';

// DefaultProviderFirstParams (dubbo-registry-api `support/DefaultProviderFirstParams.java`): removed from
// the consumer URL before it is paired with provider URLs (`FailbackRegistry.removeParamsFromConsumer`).
const PROVIDER_FIRST = new Set(['release', 'dubbo', 'methods', 'timestamp', 'dubbo.tag']);
const METHODS_KEY = 'methods';
// CommonConstants.DEFAULT_KEY_PREFIX: Dubbo 2.6 providers register their <dubbo:provider> defaults as `default.k`.
const DEFAULT_KEY_PREFIX = 'default.';

/**
 * `URLParam.parse` (3.3 URLParam.java:989-997, :1034-1042; 2.7 URL.java:261-264): a `default.k`
 * parameter also sets `k` unless the URL has `k` of its own, so every reader (weights, timeouts, tags,
 * condition rules) sees it. Returns `params` itself when it holds no such key.
 */
function withDefaultKeys(params: ReadonlyMap<string, string>): ReadonlyMap<string, string> {
  let out: Map<string, string> | undefined;
  for (const [k, v] of params) {
    if (!k.startsWith(DEFAULT_KEY_PREFIX)) continue;
    const plain = k.slice(DEFAULT_KEY_PREFIX.length);
    // Only the keys as given: a `default.k` set from `default.default.k` does not set `k` in turn.
    if (!params.has(plain) && out?.has(plain) !== true) (out ??= new Map(params)).set(plain, v);
  }
  return out ?? params;
}

/** Thrown where Dubbo's `Integer.parseInt` / `Long.parseLong` would throw `NumberFormatException`. */
export class NumberFormatException extends Error {
  override readonly name = 'NumberFormatException';
}

const JAVA_INTEGER = /^[+-]?\d+$/;

/**
 * Java `Integer.parseInt` (`bits` 32) or `Long.parseLong` (`bits` 64): an optional sign and decimal
 * digits within range, nothing else (no fraction, exponent or blanks); otherwise NumberFormatException
 * `For input string: "<s>"`.
 */
// DIVERGENCE: ASCII digits only (Java also accepts other Unicode digits); longs beyond 2^53 lose precision.
export function parseJavaInt(s: string, bits: 32 | 64 = 32): number {
  const n = JAVA_INTEGER.test(s) ? Number(s) : NaN;
  const limit = bits === 32 ? 2 ** 31 : 2 ** 63;
  if (!(n >= -limit && n < limit)) throw new NumberFormatException(`For input string: "${s}"`);
  return n === 0 ? 0 : n;
}

/** What the method-parameter memo holds for a parameter that is absent. */
const ABSENT_VALUE: unique symbol = Symbol('absent');

interface ParameterMemos {
  readonly method: Map<string, Map<string, string | typeof ABSENT_VALUE>>;
  /** `getAnyMethodParameter` by key (made on first use: most URLs are never asked). */
  anyMethod: Map<string, string | typeof ABSENT_VALUE> | null;
  readonly methodNumber: Map<string, Map<string, number>>;
  readonly number: Map<string, number>;
}

function newMemos(): ParameterMemos {
  return { method: new Map(), anyMethod: null, methodNumber: new Map(), number: new Map() };
}

const memosByParams = new WeakMap<ReadonlyMap<string, string>, ParameterMemos>();
/** ServiceAddressURL's consumer URLs without the provider-first keys, by consumer URL. */
const strippedConsumerUrls = new WeakMap<URL, URL>();
/** ServiceAddressURL memos by (consumer parameters, provider parameters). */
const memosByParamPair = new WeakMap<ReadonlyMap<string, string>, WeakMap<ReadonlyMap<string, string>, ParameterMemos>>();

function sharedMemosOf(params: ReadonlyMap<string, string>): ParameterMemos {
  return memosByParams.get(params) ?? newMemos();
}

/**
 * One parameter map per distinct content from `table`, so that URLs built on equal parameters share
 * one map and its lookup memos (thousands of consumer instances of a group have the same reference
 * parameters and differ only by host). The maps are never changed afterwards.
 */
export function internParams(table: Map<string, ReadonlyMap<string, string>>, params: Record<string, string>): ReadonlyMap<string, string> {
  const entries = Object.entries(params);
  const key = JSON.stringify(entries);
  let map = table.get(key);
  if (map === undefined) {
    map = new Map(entries);
    table.set(key, map);
    memosByParams.set(map, newMemos());
  }
  return map;
}

/** An immutable Dubbo URL. */
export class URL {
  readonly protocol: string;
  readonly username: string;
  readonly password: string;
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly params: ReadonlyMap<string, string>;
  #text: string | undefined;
  #identity: string | undefined;
  // PERF: made on the first read: most URLs of a large estate (the provider side's, 10^5 processes times their
  // exports) are never read by method, and three maps each were a large share of such a world's heap.
  #memos: ParameterMemos | undefined;
  // PERF: read on every round-robin and consistent-hash pick; URLs are immutable.
  #serviceKey: string | undefined;
  #serviceInterface: string | undefined;

  constructor(parts: {
    protocol: string;
    host: string;
    port?: number;
    path?: string;
    username?: string;
    password?: string;
    params?: ReadonlyMap<string, string> | Record<string, string>;
    text?: string;
  }) {
    this.protocol = parts.protocol;
    this.username = parts.username ?? '';
    this.password = parts.password ?? '';
    this.host = parts.host;
    this.port = parts.port ?? 0;
    this.path = parts.path ?? '';
    const p = parts.params;
    this.params = withDefaultKeys(p instanceof Map ? p : new Map(Object.entries((p as Record<string, string>) ?? {})));
    this.#text = parts.text;
  }

  // PERF: the memos depend on the parameters only, so plain URLs built on one parameter map (the
  // consumer URLs of a group's instances, see `internParams`) share them; a subclass reads more than
  // its own parameters and keeps its own.
  #memosOf(): ParameterMemos {
    return (this.#memos ??= this.constructor === URL ? sharedMemosOf(this.params) : this.ownMemos());
  }

  /** The lookup memos of a subclass that reads more than its own parameters: its own, unless it knows better. */
  protected ownMemos(): ParameterMemos {
    return newMemos();
  }

  /** Parses `protocol://[user[:pass]@]host[:port][/path][?k=v&...]`; the text is kept for `toString`. */
  static valueOf(text: string, paramsByQuery?: Map<string, ReadonlyMap<string, string>>): URL {
    const trimmed = text.trim();
    if (trimmed.length === 0) throw new Error('url is empty');
    let rest = trimmed;
    let params = new Map<string, string>();
    const q = rest.indexOf('?');
    // PERF: `paramsByQuery`: URLs with one query text share one parameter map (and, through it, their
    // lookup memos): the provider URLs of a group's processes differ by host only.
    const query = q >= 0 ? rest.slice(q + 1) : '';
    const known = paramsByQuery?.get(query);
    if (known !== undefined) {
      params = known as Map<string, string>;
      rest = rest.slice(0, q >= 0 ? q : rest.length);
    } else if (q >= 0) {
      for (const part of query.split('&')) {
        if (part.length === 0) continue;
        const eq = part.indexOf('=');
        if (eq < 0) {
          params.set(part, part);
          continue;
        }
        const key = part.slice(0, eq);
        const value = part.slice(eq + 1);
        params.set(key, value);
        // URLStrParser.java:291-294 (`putIfAbsent` as it goes): the first `default.k` sets `k`, a later `k` replaces it.
        if (key.startsWith(DEFAULT_KEY_PREFIX) && !params.has(key.slice(DEFAULT_KEY_PREFIX.length))) params.set(key.slice(DEFAULT_KEY_PREFIX.length), value);
      }
      rest = rest.slice(0, q);
    }
    if (known === undefined && paramsByQuery !== undefined) {
      const shared = withDefaultKeys(params);
      paramsByQuery.set(query, shared);
      params = shared as Map<string, string>;
    }
    let protocol = '';
    const sep = rest.indexOf('://');
    if (sep >= 0) {
      protocol = rest.slice(0, sep);
      rest = rest.slice(sep + 3);
    } else if (rest.startsWith('file:/')) {
      protocol = 'file';
      rest = rest.slice(5);
    }
    let path = '';
    const slash = rest.indexOf('/');
    if (slash >= 0) {
      path = rest.slice(slash + 1);
      rest = rest.slice(0, slash);
    }
    let username = '';
    let password = '';
    const at = rest.lastIndexOf('@');
    if (at >= 0) {
      const cred = rest.slice(0, at);
      rest = rest.slice(at + 1);
      const colon = cred.indexOf(':');
      if (colon >= 0) {
        username = cred.slice(0, colon);
        password = cred.slice(colon + 1);
      } else username = cred;
    }
    let host = rest;
    let port = 0;
    const colon = rest.lastIndexOf(':');
    if (colon >= 0 && colon < rest.length - 1 && !rest.includes(']', colon)) {
      const n = Number(rest.slice(colon + 1));
      if (Number.isInteger(n) && n >= 0) {
        port = n;
        host = rest.slice(0, colon);
      }
    }
    return new URL({ protocol, username, password, host, port, path, params, text: trimmed });
  }

  /** `host:port`, or `host` when the port is 0. */
  getAddress(): string {
    return this.port > 0 ? `${this.host}:${this.port}` : this.host;
  }

  getParameter(key: string): string | undefined;
  getParameter(key: string, defaultValue: string): string;
  /** A parameter's value, or `defaultValue` when absent or empty. */
  getParameter(key: string, defaultValue?: string): string | undefined {
    const v = this.params.get(key);
    return v === undefined || v === '' ? defaultValue : v;
  }

  /** The provider's (original) parameter, never merged with the consumer's. */
  getOriginalParameter(key: string): string | undefined {
    return this.params.get(key);
  }

  /** A parameter as a number, or `defaultValue` when absent, empty or not numeric. */
  getNumber(key: string, defaultValue: number): number {
    // PERF: parsed once per key (URLs are immutable); NaN marks "absent or not numeric".
    const numbers = this.#memosOf().number;
    let n = numbers.get(key);
    if (n === undefined) {
      const v = this.getParameter(key);
      n = v === undefined ? NaN : Number(v);
      if (!Number.isFinite(n)) n = NaN;
      numbers.set(key, n);
    }
    return Number.isNaN(n) ? defaultValue : n;
  }

  /**
   * Method-level value first, then the interface-level `key` (`URLParam.getMethodParameter`). The
   * method-level value is `getMethodParameterStrict`'s.
   */
  getMethodParameter(method: string | undefined, key: string): string | undefined {
    // PERF: URLs are immutable and the same (method, key) pairs are read on every call.
    const m = method ?? '';
    const byMethod = this.#memosOf().method;
    let byKey = byMethod.get(m);
    if (byKey === undefined) byMethod.set(m, (byKey = new Map()));
    // An absent value is memoized as ABSENT_VALUE: one lookup per read, not `has` and `get`.
    const memo = byKey.get(key);
    if (memo !== undefined) return memo === ABSENT_VALUE ? undefined : memo;
    const v = this.lookupMethodParameter(method, key);
    byKey.set(key, v ?? ABSENT_VALUE);
    return v;
  }

  /** The uncached lookup behind `getMethodParameter`. */
  protected lookupMethodParameter(method: string | undefined, key: string): string | undefined {
    return this.getMethodParameterStrict(method, key) ?? this.getParameter(key);
  }

  /**
   * `URLParam.getMethodParameterStrict`: `<method>.<key>` only, and nothing when the URL lists its
   * `methods` and the list (as text: `String.contains`) does not contain `method`. Empty is absent.
   */
  getMethodParameterStrict(method: string | undefined, key: string): string | undefined {
    // DIVERGENCE: Dubbo 2.7's URL.toMethodParameters takes `<m>.k` only for a method listed whole in `methods`;
    // zonesim follows 3.3 (the list as text) under every release profile.
    if (!method) return undefined;
    const methods = this.params.get(METHODS_KEY);
    if (methods !== undefined && methods !== '' && !methods.includes(method)) return undefined;
    const v = this.params.get(`${method}.${key}`);
    return v === '' ? undefined : v;
  }

  /**
   * `URLParam.getAnyMethodParameter`: with a `methods` list, the first listed method's non-empty
   * `<method>.<key>`; without one, the value of the first method (split at the first dot) in Java
   * HashMap order, empty or not. Empty is absent.
   */
  getAnyMethodParameter(key: string): string | undefined {
    const methods = this.params.get(METHODS_KEY);
    if (methods !== undefined && methods !== '') {
      for (const m of methods.split(',')) {
        const v = this.params.get(`${m}.${key}`);
        if (v !== undefined && v !== '') return v;
      }
      return undefined;
    }
    // PERF: without a `methods` list (a consumer URL) the search builds a map of every method-level key, and
    // a filter's activation asks it of every new invoker (through the reference's consumer URL): memoized
    // per parameter map. Provider URLs, which list their methods, are not (a memo each would cost more).
    const memos = this.#memosOf();
    const memo = (memos.anyMethod ??= new Map());
    let v = memo.get(key);
    if (v === undefined) memo.set(key, (v = this.#anyMethodWithoutList(key) ?? ABSENT_VALUE));
    return v === ABSENT_VALUE ? undefined : v;
  }

  #anyMethodWithoutList(key: string): string | undefined {
    const byMethod = new Map<string, string>();
    for (const [k, v] of this.params) {
      const dot = k.indexOf('.');
      if (dot > 0 && k.slice(dot + 1) === key && !byMethod.has(k.slice(0, dot))) byMethod.set(k.slice(0, dot), v);
    }
    if (byMethod.size === 0) return undefined;
    const v = byMethod.get(hashMapKeyOrder([...byMethod.keys()], stringHashCode)[0]!)!;
    return v === '' ? undefined : v;
  }

  /**
   * Java `getMethodParameter(method, key, int)`: the default when absent or empty, otherwise
   * `Integer.parseInt` of the value, which throws NumberFormatException on anything else ("2.5").
   */
  getMethodInt(method: string | undefined, key: string, defaultValue: number): number {
    const v = this.getMethodParameter(method, key);
    return v === undefined ? defaultValue : parseJavaInt(v);
  }

  /** Java `getParameter(key, int)` (`bits` 32) or `getParameter(key, long)` (`bits` 64), as `getMethodInt`. */
  getInt(key: string, defaultValue: number, bits: 32 | 64 = 32): number {
    const v = this.getParameter(key);
    return v === undefined ? defaultValue : parseJavaInt(v, bits);
  }

  /** `getMethodParameter` as a number. */
  getMethodNumber(method: string | undefined, key: string, defaultValue: number): number {
    // PERF: parsed once per (method, key).
    const m = method ?? '';
    const memo = this.#memosOf().methodNumber;
    let byKey = memo.get(m);
    if (byKey === undefined) memo.set(m, (byKey = new Map()));
    let n = byKey.get(key);
    if (n === undefined) {
      const v = this.getMethodParameter(method, key);
      n = v === undefined ? NaN : Number(v);
      if (!Number.isFinite(n)) n = NaN;
      byKey.set(key, n);
    }
    return Number.isNaN(n) ? defaultValue : n;
  }

  /** `getMethodParameter` as a boolean (`"true"`, case-insensitive). */
  getMethodBoolean(method: string | undefined, key: string, defaultValue: boolean): boolean {
    const v = this.getMethodParameter(method, key);
    return v === undefined ? defaultValue : v.toLowerCase() === 'true';
  }

  /** True when a method-level or interface-level value is present. */
  hasMethodParameter(method: string | undefined, key: string): boolean {
    return this.getMethodParameter(method, key) !== undefined;
  }

  /** protocol/username/password/host/port/path by name, otherwise the parameter (Dubbo `getRawParameter`). */
  getRawParameter(key: string): string | undefined {
    switch (key) {
      case 'protocol':
        return this.protocol;
      case 'username':
        return this.username;
      case 'password':
        return this.password;
      case 'host':
        return this.host;
      case 'port':
        return String(this.port);
      case 'path':
        return this.path;
      default:
        return this.getParameter(key);
    }
  }

  /** Original parameters plus protocol, username, password, host, port (> 0), path and address. */
  toOriginalMap(): Map<string, string> {
    const m = new Map(this.params);
    if (this.protocol) m.set('protocol', this.protocol);
    if (this.username) m.set('username', this.username);
    if (this.password) m.set('password', this.password);
    if (this.host) m.set('host', this.host);
    if (this.port > 0) m.set('port', String(this.port));
    if (this.path) m.set('path', this.path);
    m.set('address', this.getAddress());
    return m;
  }

  /** The service interface: the `interface` parameter, or the path. */
  getServiceInterface(): string {
    return (this.#serviceInterface ??= this.getParameter('interface') ?? this.path);
  }

  /** `group/interface:version`, parts omitted when empty. */
  getServiceKey(): string {
    return (this.#serviceKey ??= this.#buildServiceKey());
  }

  #buildServiceKey(): string {
    const group = this.getParameter('group');
    const version = this.getParameter('version');
    let key = this.getServiceInterface();
    if (group) key = `${group}/${key}`;
    if (version) key = `${key}:${version}`;
    return key;
  }

  /** `interface:version:group` with empty parts kept (the service condition-rule key). */
  getColonSeparatedKey(): string {
    return `${this.getServiceInterface()}:${this.getParameter('version') ?? ''}:${this.getParameter('group') ?? ''}`;
  }

  /** `protocol://[user:pass@]host:port/path`, no parameters: the identity round robin keys on. */
  toIdentityString(): string {
    if (this.#identity === undefined) {
      const cred = this.username ? `${this.username}${this.password ? ':' + this.password : ''}@` : '';
      this.#identity = `${this.protocol}://${cred}${this.getAddress()}/${this.path}`;
    }
    return this.#identity;
  }

  /** A copy with parameters added or replaced. */
  addParameters(extra: Record<string, string>): URL {
    const params = new Map(this.params);
    for (const [k, v] of Object.entries(extra)) params.set(k, v);
    return new URL({ ...this.#parts(), params });
  }

  /** The text the URL was parsed from, or a canonical rendering. */
  toString(): string {
    if (this.#text === undefined) {
      const q = [...this.params].map(([k, v]) => `${k}=${v}`).join('&');
      this.#text = `${this.toIdentityString()}${q ? '?' + q : ''}`;
    }
    return this.#text;
  }

  #parts() {
    return {
      protocol: this.protocol,
      username: this.username,
      password: this.password,
      host: this.host,
      port: this.port,
      path: this.path,
    };
  }
}

/**
 * A provider URL as the consumer sees it (interface-level discovery): `getParameter` answers with the
 * consumer's value first and the provider's as fallback, except for the keys the provider owns;
 * `getMethodParameter` looks at consumer method level, provider method level, consumer interface
 * level, provider interface level, in that order. So a provider's `sayHello.timeout=3000` wins over
 * a reference's `timeout=1000`. The consumer side is read without the DefaultProviderFirstParams
 * keys (`release`, `dubbo`, `methods`, `timestamp`, `dubbo.tag`), as Dubbo strips them from it.
 */
export class ServiceAddressURL extends URL {
  readonly consumerUrl: URL;
  readonly providerUrl: URL;
  #stripped: URL | undefined;

  // PERF: what this URL answers depends on the two parameter maps only (not on the host): the URLs of
  // one consumer parameter map and one provider parameter map (see `URL.valueOf`'s `paramsByQuery`)
  // share their lookup memos, one set per reference and provider configuration instead of one per
  // (consumer group, provider process).
  protected override ownMemos(): ParameterMemos {
    let byProvider = memosByParamPair.get(this.consumerUrl.params);
    if (byProvider === undefined) memosByParamPair.set(this.consumerUrl.params, (byProvider = new WeakMap()));
    let memos = byProvider.get(this.providerUrl.params);
    if (memos === undefined) byProvider.set(this.providerUrl.params, (memos = newMemos()));
    return memos;
  }

  constructor(providerUrl: URL, consumerUrl: URL) {
    super({
      protocol: providerUrl.protocol,
      username: providerUrl.username,
      password: providerUrl.password,
      host: providerUrl.host,
      port: providerUrl.port,
      path: providerUrl.path,
      params: providerUrl.params,
      text: providerUrl.toString(),
    });
    this.providerUrl = providerUrl;
    this.consumerUrl = consumerUrl;
  }

  /**
   * `ServiceAddressURL.getParameter` (lines 112-133): `group`, `version` and `application` (the
   * remote application) are the provider's, `side` the consumer's (`DubboServiceAddressURL.getSide`),
   * `category` is `providers`; any other key is the consumer's value when not empty, else the
   * provider's. `remote.application` is zonesim's name for `getRemoteApplication()`.
   */
  override getParameter(key: string, defaultValue?: string): string {
    switch (key) {
      case 'group':
      case 'version':
        return this.providerUrl.getParameter(key, defaultValue as string);
      case 'application':
      case 'remote.application':
        return this.providerUrl.getParameter('application', defaultValue as string);
      case 'side':
        return this.consumerUrl.getParameter('side', defaultValue as string);
      case 'category':
        return 'providers';
    }
    const v = this.#consumerParameter(key);
    if (v !== undefined) return v;
    return this.providerUrl.getParameter(key, defaultValue as string);
  }

  /**
   * `ServiceAddressURL.getMethodParameter` (lines 136-148): the consumer's method-level value, then the
   * provider's (`getMethodParameterStrict`, which honours the provider's `methods` list), then
   * `getParameter(key)`: consumer interface level, provider interface level.
   */
  protected override lookupMethodParameter(method: string | undefined, key: string): string | undefined {
    // The consumer URL has lost `methods` (a DefaultProviderFirstParams key), so no list check on its side.
    const c = method ? this.consumerUrl.params.get(`${method}.${key}`) : undefined;
    if (c !== undefined && c !== '') return c;
    return this.providerUrl.getMethodParameterStrict(method, key) ?? this.getParameter(key);
  }

  /** `ServiceAddressURL.getAnyMethodParameter` (lines 151-160): the consumer's, else the provider's. */
  override getAnyMethodParameter(key: string): string | undefined {
    return this.#strippedConsumerUrl().getAnyMethodParameter(key) ?? this.providerUrl.getAnyMethodParameter(key);
  }

  // The consumer URL as Dubbo pairs it with provider URLs: without the provider-first keys. PERF: one per
  // consumer URL, not one per (consumer URL, provider) pair (a parameter map each, 10^5 at the seed scale).
  #strippedConsumerUrl(): URL {
    if (this.#stripped === undefined) {
      const consumer = this.consumerUrl;
      let stripped = strippedConsumerUrls.get(consumer);
      if (stripped === undefined) {
        const params = new Map([...consumer.params].filter(([k]) => !PROVIDER_FIRST.has(k)));
        strippedConsumerUrls.set(consumer, (stripped = new URL({ protocol: consumer.protocol, host: consumer.host, path: consumer.path, params })));
      }
      this.#stripped = stripped;
    }
    return this.#stripped;
  }

  #consumerParameter(key: string): string | undefined {
    return PROVIDER_FIRST.has(key) ? undefined : this.consumerUrl.getParameter(key);
  }
}

/**
 * A provider as the consumer sees it under application-level discovery (Dubbo `InstanceAddressURL`,
 * dubbo-registry-api `client/InstanceAddressURL.java`). The order differs from ServiceAddressURL's:
 * the consumer's value comes first at both levels (`consumerUrl.getMethodParameter`: method, then
 * interface), then the provider's method level, then its interface level (lines 304-321 and 280-302).
 * So here a reference's `timeout=1000` wins over a provider's `sayHello.timeout=3000`. Provider-first
 * keys skip the consumer (`consumerParamFirst`). `group`, `version`, `interface`, `side` and
 * `remote.application` are special (lines 208-220); `application` is not, so it is the consumer's.
 */
// DIVERGENCE: DubboInvoker builds a ServiceAddressURL for every provider, also under `registration:
// application`, so application-level discovery reads parameters in ServiceAddressURL's order.
export class InstanceAddressURL extends ServiceAddressURL {
  override getParameter(key: string, defaultValue?: string): string {
    switch (key) {
      case 'group':
      case 'version':
      case 'interface':
        return this.providerUrl.getParameter(key, defaultValue as string);
      case 'remote.application':
        return this.providerUrl.getParameter('application', defaultValue as string);
      case 'side':
        return 'consumer';
    }
    if (!PROVIDER_FIRST.has(key)) {
      const v = this.consumerUrl.getParameter(key);
      if (v !== undefined) return v;
    }
    return this.providerUrl.getParameter(key, defaultValue as string);
  }

  protected override lookupMethodParameter(method: string | undefined, key: string): string | undefined {
    if (!PROVIDER_FIRST.has(key)) {
      const v = this.consumerUrl.getMethodParameter(method, key);
      if (v !== undefined) return v;
    }
    return this.providerUrl.getMethodParameterStrict(method, key) ?? this.getParameter(key);
  }

  /** InstanceAddressURL.getAnyMethodParameter (lines 555-580): the consumer's, else the first provider key ending in `.<key>`. */
  override getAnyMethodParameter(key: string): string | undefined {
    if (!PROVIDER_FIRST.has(key)) {
      const v = this.consumerUrl.getAnyMethodParameter(key);
      if (v !== undefined) return v;
    }
    const suffix = `.${key}`;
    for (const k of this.providerUrl.params.keys()) if (k.endsWith(suffix)) return this.getParameter(k);
    return undefined;
  }
}

// 2.7.23 DefaultProviderURLMergeProcessor.java:55-83: the provider's pool keys (and their `default.` forms),
// which a consumer never inherits.
const PROVIDER_POOL_KEYS_27 = ['threadname', 'threadpool', 'corethreads', 'threads', 'queues', 'alive', 'transporter'];
// :92-96: consumer keys that never override the provider's (group, version and generic only when the provider has them).
const CONSUMER_DROPPED_27 = ['release', 'dubbo', 'methods', 'timestamp', 'dubbo.tag'];
const IF_PROVIDER_HAS_27 = ['group', 'version', 'generic'];

/**
 * The invoker URL of Dubbo 2.7.23, which its routers and balancers read: `RegistryDirectory.mergeUrl`
 * (RegistryDirectory.java:352-381) = `ClusterUtils.mergeUrl` (DefaultProviderURLMergeProcessor.java:51-110:
 * the provider's parameters without its pool keys, the consumer's on top except `release`, `dubbo`,
 * `methods`, `timestamp`, `dubbo.tag` and, when the provider has them, `group`, `version`, `generic`;
 * `remote.application` = the provider's application; `reference.filter` and `invoker.listener` joined),
 * then `check=false`, and a `dubbo://` URL without a path gets the interface. 3.3 pairs the two URLs
 * instead (ServiceAddressURL), so a condition rule's then-part reads the provider's own parameters there
 * and the merged ones in 2.7 (`application` is the consumer's, `remote.application` the provider's).
 */
export function mergedUrl27(provider: URL, consumer: URL): URL {
  const map = new Map(provider.params);
  for (const k of PROVIDER_POOL_KEYS_27) {
    map.delete(k);
    map.delete(`${DEFAULT_KEY_PREFIX}${k}`);
  }
  const local = new Map(consumer.params);
  if (local.size > 0) {
    for (const k of IF_PROVIDER_HAS_27) if (map.has(k)) local.delete(k);
    for (const k of CONSUMER_DROPPED_27) local.delete(k);
    for (const [k, v] of local) map.set(k, v);
    // `map.put(REMOTE_APPLICATION_KEY, remoteMap.get(APPLICATION_KEY))`: a null value reads as absent.
    const app = provider.params.get('application');
    if (app !== undefined) map.set('remote.application', app);
    else map.delete('remote.application');
    for (const k of ['reference.filter', 'invoker.listener']) {
      const remote = provider.params.get(k);
      const mine = local.get(k);
      if (remote && mine) map.set(k, `${remote},${mine}`);
    }
  }
  map.set('check', 'false');
  let path = provider.path;
  if (path === '' && provider.protocol === 'dubbo') {
    const iface = consumer.params.get('interface');
    if (iface !== undefined) path = iface.slice(iface.indexOf('/') + 1).replace(/:[^:]*$/, '');
  }
  return new URL({ protocol: provider.protocol, username: provider.username, password: provider.password, host: provider.host, port: provider.port, path, params: map });
}
