/**
 * The one span shape every trace format is read into (trace-formats.ts reads Zipkin, Jaeger, OTLP and
 * SkyWalking; trace-graph.ts infers the estate from these), and the rules that turn a span's name and
 * attributes into a Dubbo interface and method as each tracer writes them. Reading files is not here.
 */

/** A span as the importer needs it, whatever tracer wrote it. */
export interface TraceSpan {
  traceId: string;
  /** Unique within its trace (SkyWalking: `segmentId/spanId`; Zipkin's shared server half: `id#server`). */
  id: string;
  /** The parent's `id` within the same trace; absent for a root. */
  parentId?: string;
  /** server: Zipkin SERVER, OTel kind 2, Jaeger span.kind=server, SkyWalking Entry; client likewise; the rest internal. */
  kind: 'server' | 'client' | 'internal';
  /** The application (the tracer's service name of the process). */
  app: string;
  /** Dubbo interface and method: what a server span serves, what a client span calls (undefined for HTTP and the like). */
  iface?: string;
  method?: string;
  startUs: number;
  endUs: number;
  /** The process instance (IP, host name or instance id) for counting provider and consumer instances. */
  host?: string;
  zone?: string;
  /** Where the span is in its file: `file` plus a JSON pointer (and the line for line-delimited files). */
  at: string;
}

/** Attributes of a span as string key/value pairs (values of other types stringified). */
export type Attributes = Map<string, string>;

/** `com.example.Svc/method` (Dubbo's and Brave's RPC span names, gRPC style) or SkyWalking's `com.example.Svc.method(java.lang.String)`. */
export function rpcOfName(name: string): { iface: string; method: string } | undefined {
  const n = name.trim();
  const slash = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\/([A-Za-z_$][\w$]*)(?:\(.*\))?$/.exec(n);
  if (slash) return { iface: slash[1]!, method: slash[2]! };
  // SkyWalking's Dubbo plugin names the operation interface.method(parameter types).
  const call = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\.([A-Za-z_$][\w$]*)\(.*\)$/.exec(n);
  if (call) return { iface: call[1]!, method: call[2]! };
  return undefined;
}

/**
 * The Dubbo interface and method of a span: the OTel RPC attributes (`rpc.service`, `rpc.method`, which
 * Dubbo's own tracing and Brave's RPC parser write too), else the span name. `rpc.service` may be the
 * simple name while the span name carries the full interface: the name wins when it ends the same way.
 */
export function rpcOf(name: string, attrs: Attributes): { iface: string; method: string } | undefined {
  const byName = rpcOfName(name);
  const service = attrs.get('rpc.service');
  const method = attrs.get('rpc.method');
  if (service !== undefined && method !== undefined && service !== '' && method !== '') {
    if (byName !== undefined && byName.method === method && byName.iface.endsWith(service)) return byName;
    return { iface: service, method };
  }
  return byName;
}

/** The zone a span's attributes name: `cloud.availability_zone` (OTel) or `zone` (Dubbo's URL parameter). */
export function zoneOf(...sources: Attributes[]): string | undefined {
  for (const key of ['cloud.availability_zone', 'zone']) {
    for (const s of sources) {
      const v = s.get(key);
      if (v !== undefined && v !== '') return v;
    }
  }
  return undefined;
}

/** The first of `keys` that `attrs` holds, non-empty. */
export function firstOf(attrs: Attributes, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = attrs.get(k);
    if (v !== undefined && v !== '') return v;
  }
  return undefined;
}
