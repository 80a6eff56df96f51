/**
 * `dubbo.registry.simplified`: the provider URL a registry with `simplified=true` holds at interface
 * level, as RegistryProtocol builds it. 3.3: `RegistryProtocol.customizeURL` hands `simplified` and
 * `extra-keys` to `DefaultServiceURLCustomizer.customize`, which keeps `DEFAULT_REGISTER_PROVIDER_KEYS`
 * plus the extra keys; 2.7: `RegistryProtocol.getUrlToRegistry` does the same with its own key list.
 * Both then call `URL.valueOf(url, keys, methods)`, which also keeps every parameter whose name starts
 * with one of the URL's `methods` (per-method settings such as `getUser.timeout`), and drops empty
 * values. `interface` is kept only when the path differs from it. Everything else (`zone`, `methods`,
 * `anyhost`, `retries`, in 3.3 also `timestamp` and `dubbo.tag`) is gone for every consumer.
 *
 * Only the key lists and the string rewrite; which registry simplifies is `DiscoveryRegistry`'s.
 */

/** 3.3 `RegistryProtocol.DEFAULT_REGISTER_PROVIDER_KEYS` (the constants' values). */
export const REGISTER_PROVIDER_KEYS_33: readonly string[] = [
  'application', 'codec', 'exchanger', 'serialization', 'prefer.serialization', 'cluster', 'connections',
  'deprecated', 'group', 'loadbalance', 'mock', 'path', 'timeout', 'token', 'version', 'warmup', 'weight',
  'dubbo', 'release', 'side', 'ipv6', 'serialize.packable.factory', 'auth', 'authenticator', 'username', 'password',
];

/** 2.7 `RegistryProtocol.DEFAULT_REGISTER_PROVIDER_KEYS`: no `side`, but `timestamp` and `dubbo.tag`. */
export const REGISTER_PROVIDER_KEYS_27: readonly string[] = [
  'application', 'codec', 'exchanger', 'serialization', 'cluster', 'connections', 'deprecated', 'group',
  'loadbalance', 'mock', 'path', 'timeout', 'token', 'version', 'warmup', 'weight', 'timestamp', 'dubbo',
  'release', 'dubbo.tag',
];

/** The keys a simplified provider URL of `release` keeps, before the per-method ones. */
export function simplifiedKeys(release: '2.7' | '3.3', extraKeys: readonly string[] = []): Set<string> {
  return new Set([...(release === '2.7' ? REGISTER_PROVIDER_KEYS_27 : REGISTER_PROVIDER_KEYS_33), ...extraKeys]);
}

/**
 * The registered URL `url` (`protocol://host:port/path?k=v&...`, unencoded) as a simplified registry
 * holds it. The kept parameters keep their order (Dubbo rebuilds the map; order does not change the bytes).
 */
export function simplifiedUrl(url: string, release: '2.7' | '3.3', extraKeys: readonly string[] = []): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const base = url.slice(0, q);
  const params = url
    .slice(q + 1)
    .split('&')
    .filter((kv) => kv !== '')
    .map((kv): [string, string] => {
      const eq = kv.indexOf('=');
      return eq < 0 ? [kv, ''] : [kv.slice(0, eq), kv.slice(eq + 1)];
    });
  const keep = simplifiedKeys(release, extraKeys);
  // The path is what follows host:port; `interface` stays when it differs (ZooKeeper's node is named by it).
  const path = base.slice(base.indexOf('/', base.indexOf('://') + 3) + 1);
  const iface = params.find(([k]) => k === 'interface')?.[1];
  if (iface !== undefined && iface !== path) keep.add('interface');
  const methods = (params.find(([k]) => k === 'methods')?.[1] ?? '').split(',').filter((m) => m !== '');
  const kept = params.filter(([k, v]) => v !== '' && (keep.has(k) || methods.some((m) => k.startsWith(m))));
  return kept.length === 0 ? base : `${base}?${kept.map(([k, v]) => `${k}=${v}`).join('&')}`;
}
