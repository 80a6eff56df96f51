/**
 * How many bytes a registry notification carries (SPEC 4 `pushBytes`). Interface-level
 * registration pushes every provider's full URL; application-level registration (Dubbo 3 service
 * discovery) pushes each instance's `ip:port` and instance metadata, and the consumer fetches the
 * service metadata (MetadataInfo) once per new revision. This module only measures: when a push is
 * sent, and to whom, is the registry model's business.
 *
 * Sizes come from realistic strings, built the way Dubbo and the registries build them (interface
 * level: the URL the registry holds, which `dubbo.registry.simplified` shortens):
 * - Nacos, interface level: each instance carries the URL's parameters as metadata; its size is
 *   the full URL's length. The envelope is the ServiceInfo JSON around the hosts (service name
 *   `providers:<interface>:<version>:<group>`, cacheMillis, lastRefTime, checksum, ...).
 * - ZooKeeper, interface level: the children of `/dubbo/<interface>/providers` are the URL-encoded
 *   full URLs (`URL.encode(url.toFullString())`), so each child costs its encoded length plus a
 *   4-byte length prefix; the envelope is the watch event plus the getChildren2 reply header
 *   (path twice and 92 bytes of header and Stat).
 * - Application level (both): one list per provider application, whatever the number of services
 *   its processes export: the envelope with the application's name (`/services/<app>` for
 *   ZooKeeper), then per process (not per export) `ip:port` plus the instance metadata JSON
 *   (`dubbo.endpoints`, `dubbo.metadata-service.url-params`, `dubbo.metadata.revision`,
 *   `dubbo.metadata.storage-type`, `meta-v`, `timestamp`; Dubbo 3's default `metadata-type=local`).
 *   A consumer fetches the MetadataInfo JSON of each revision from a provider of it
 *   (`MetadataRevision.bytes`, counted apart from the pushes: it does not cross the registry).
 */
import type { ProviderExport, ProviderInstance } from './provider.js';

/** SPEC `registration`. */
export type Registration = 'interface' | 'application';

/** One revision of a provider application's metadata and the bytes of fetching it once. */
export interface MetadataRevision {
  readonly revision: string;
  readonly bytes: number;
}

/** Fixed part of a ZooKeeper getChildren2 answer to a watch: reply header, Stat, event header. */
const ZK_REPLY_FIXED_BYTES = 92;
/** Each ZooKeeper child name is length-prefixed (jute string). */
const ZK_CHILD_PREFIX_BYTES = 4;

/** Measures registry notifications for one registry. */
export class PushSizer {
  readonly #registration: Registration;
  readonly #registryType: 'nacos' | 'zookeeper';
  readonly #instanceBytes = new WeakMap<ProviderExport, number>();
  readonly #processBytes = new WeakMap<ProviderInstance, number>();
  readonly #revisions = new WeakMap<ProviderInstance, MetadataRevision>();

  /** The URL the registry holds for an export (`dubbo.registry.simplified` shortens it). */
  readonly #urlOf: (p: ProviderExport) => string;

  constructor(registration: Registration, registryType: 'nacos' | 'zookeeper', urlOf: (p: ProviderExport) => string = (p) => p.url) {
    this.#registration = registration;
    this.#registryType = registryType;
    this.#urlOf = urlOf;
  }

  get registration(): Registration {
    return this.#registration;
  }

  /**
   * Bytes of one full-list notification for `service` carrying `providers` (no metadata fetch).
   * At application level the list is the processes' (each counted once, whatever it exports).
   */
  listBytes(service: string, providers: readonly ProviderExport[], nacosName?: string): number {
    if (this.#registration === 'application') {
      const application = providers[0]?.group.spec.application ?? service;
      return this.instanceListBytes(application, [...new Set(providers.map((p) => p.instance))]);
    }
    let bytes = this.envelopeBytes(service, service, nacosName);
    for (const p of providers) bytes += this.instanceBytes(p);
    return bytes;
  }

  /** Application level: bytes of one notification of `application`'s instance list (no metadata fetch). */
  instanceListBytes(application: string, instances: readonly ProviderInstance[]): number {
    let bytes = this.envelopeBytes(application, application);
    for (const p of instances) bytes += this.processBytes(p);
    return bytes;
  }

  /**
   * The fixed part of a notification (an empty list costs only this). `nacosName` is the Nacos
   * service an interface-level list belongs to (`providers:<iface>:<version>:<group>`); default
   * the one of no version and no group.
   */
  envelopeBytes(service: string, application = service, nacosName?: string): number {
    const interfaceLevel = this.#registration === 'interface';
    if (this.#registryType === 'zookeeper') {
      const path = interfaceLevel ? `/dubbo/${service}/providers` : `/services/${application}`;
      return 2 * utf8Length(path) + ZK_REPLY_FIXED_BYTES;
    }
    const name = interfaceLevel ? (nacosName ?? `providers:${service}::`) : application;
    return utf8Length(
      `{"name":"DEFAULT_GROUP@@${name}","groupName":"DEFAULT_GROUP","clusters":"","cacheMillis":10000,"hosts":[],` +
        `"lastRefTime":1767225600000,"checksum":"","allIPs":false,"reachProtectionThreshold":false,"valid":true}`,
    );
  }

  /** What one provider adds to a notification (at application level, its process's part). */
  instanceBytes(p: ProviderExport): number {
    if (this.#registration === 'application') return this.processBytes(p.instance);
    // The export's own slot when this sizer took it first; a second registry's sizer keeps its figures here.
    if (p.pushBytesOf === this) return p.pushBytes;
    let bytes = this.#instanceBytes.get(p);
    if (bytes === undefined) {
      if (this.#registryType === 'zookeeper') {
        // encodeURIComponent percent-encodes UTF-8, so the result is ASCII: length = bytes.
        bytes = encodeURIComponent(this.#urlOf(p)).length + ZK_CHILD_PREFIX_BYTES;
      } else {
        bytes = utf8Length(this.#urlOf(p));
      }
      if (p.pushBytesOf === null) {
        p.pushBytesOf = this;
        p.pushBytes = bytes;
      } else this.#instanceBytes.set(p, bytes);
    }
    return bytes;
  }

  /** Application level: what one process adds to its application's list (`ip:port` and instance metadata). */
  processBytes(p: ProviderInstance): number {
    let bytes = this.#processBytes.get(p);
    if (bytes === undefined) {
      bytes = utf8Length(p.address) + utf8Length(instanceMetadata(p, metadataRevisionOf(this.#revisions, p).revision));
      this.#processBytes.set(p, bytes);
    }
    return bytes;
  }

  /** Application level: the metadata revision the process of `p` announces; undefined at interface level. */
  revisionOf(p: ProviderExport | ProviderInstance): MetadataRevision | undefined {
    if (this.#registration !== 'application') return undefined;
    return metadataRevisionOf(this.#revisions, 'exports' in p ? p : p.instance);
  }
}

function metadataRevisionOf(cache: WeakMap<ProviderInstance, MetadataRevision>, p: ProviderInstance): MetadataRevision {
  let rev = cache.get(p);
  if (rev === undefined) {
    rev = metadataRevision(p);
    cache.set(p, rev);
  }
  return rev;
}

/** Byte length of `s` in UTF-8. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The registered URL's query parameters, in order. */
function urlParams(url: string): Array<[string, string]> {
  const q = url.indexOf('?');
  if (q < 0) return [];
  return url
    .slice(q + 1)
    .split('&')
    .filter((kv) => kv !== '')
    .map((kv) => {
      const eq = kv.indexOf('=');
      return eq < 0 ? [kv, ''] : [kv.slice(0, eq), kv.slice(eq + 1)];
    });
}

// The revision covers every service the process exports (their parameters, not instance-specific
// ones such as the address or start timestamp), so every instance of one provider group shares it,
// as in Dubbo's MetadataInfo.
// DIVERGENCE: Dubbo's revision is an MD5 over the application's exported services; zonesim hashes
// the same content with a seeded FNV-1a (only its length and its changes matter here).
function metadataRevision(p: ProviderInstance): MetadataRevision {
  const app = p.group.spec.application;
  const perService = p.exports.map((e) => ({ service: e.service, params: urlParams(e.url).filter(([k]) => k !== 'timestamp') }));
  const revision = hex128(
    `${app}|${perService.map(({ service, params }) => `${service}|${p.port}|${params.map(([k, v]) => `${k}=${v}`).join('&')}`).join('||')}`,
  );
  const info = JSON.stringify({
    app,
    revision,
    services: Object.fromEntries(
      perService.map(({ service, params }) => [
        `${service}:dubbo`,
        { name: service, protocol: 'dubbo', port: p.port, path: service, params: Object.fromEntries(params) },
      ]),
    ),
  });
  return { revision, bytes: utf8Length(info) };
}

// Dubbo 3's ServiceInstance metadata as the registry stores it, with the default `metadata-type=local`:
// the service metadata stays in the provider, so the instance also carries its MetadataService's URL
// parameters (MetadataServiceURLParamsMetadataCustomizer: ServiceInstanceMetadataUtils.getMetadataServiceParameter,
// the provider-URL keys it keeps plus port and protocol) and the MetadataService version (`meta-v`).
function instanceMetadata(p: ProviderInstance, revision: string): string {
  // Every export of a process carries its start time: the first one's stands for the process.
  const timestamp = urlParams(p.exports[0]?.url ?? '').find(([k]) => k === 'timestamp')?.[1] ?? '0';
  const release = urlParams(p.exports[0]?.url ?? '').find(([k]) => k === 'release')?.[1] ?? '3.3.2';
  return JSON.stringify({
    'dubbo.endpoints': JSON.stringify([{ port: p.port, protocol: 'dubbo' }]),
    'dubbo.metadata-service.url-params': JSON.stringify({
      version: '1.0.0',
      dubbo: '2.0.2',
      release,
      side: 'provider',
      port: String(p.port),
      protocol: 'dubbo',
    }),
    'dubbo.metadata.revision': revision,
    'dubbo.metadata.storage-type': 'local',
    'meta-v': '1.0.0',
    timestamp,
  });
}

// 32 hex digits (the length of Dubbo's MD5 revision) from four seeded FNV-1a passes.
function hex128(s: string): string {
  let out = '';
  for (const seed of [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x85ebca6b]) {
    let h = seed >>> 0;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    out += h.toString(16).padStart(8, '0');
  }
  return out;
}
