/**
 * Infers a Dubbo estate from spans (trace-span.ts): the methods each application serves, the call
 * graph (which server span makes which client calls, how many per execution, in parallel or not),
 * each method's self time (its server span minus the union of its child calls' intervals), RTT
 * estimates per edge (client span minus server span), arrival rates of the calls that enter the graph
 * from outside it, and the instances and zones of providers and consumers. What cannot be used is
 * counted: orphan spans (parent not in the trace), clock-skewed spans (a child outside its parent),
 * negative self times and RTTs (clamped to 0, as tracer UIs clamp). Reading files and printing the
 * fragment are import-traces.ts's.
 */
import type { TraceSpan } from './trace-span.js';

/** One downstream call of a method: how many per execution on average. */
export interface InferredCall {
  service: string;
  method: string;
  /** Child calls seen over all executions of the parent method. */
  total: number;
  meanPerExecution: number;
  /** Mean start of the call after its parent's start (ms), which orders the calls. */
  meanOffsetMs: number;
}

/** A method as its server spans show it. */
export interface InferredMethod {
  service: string;
  method: string;
  /** Applications whose server spans serve it (normally one). */
  applications: string[];
  executions: number;
  /** Self times (ms), sorted; from client spans' durations when no server span was seen (`fromClientSide`). */
  selfTimeMs: number[];
  fromClientSide: boolean;
  calls: InferredCall[];
  /** Executions with two or more child calls, and those among them whose child calls overlap in time. */
  fanOutExecutions: number;
  overlappingExecutions: number;
  parallel: boolean;
}

/** Client span minus server span per (caller application, callee method). */
export interface InferredEdgeRtt {
  from: string;
  service: string;
  method: string;
  pairs: number;
  rttMs: { p50: number; p99: number };
}

/** Calls that enter the graph: from an application's HTTP handler, a job, or an uninstrumented caller. */
export interface InferredConsumer {
  application: string;
  zone: string | null;
  instances: number;
  requests: number;
  ratePerSec: number;
  calls: Record<string, number>;
}

/** Provider instances of one application in one zone. */
export interface InferredProvider {
  application: string;
  zone: string | null;
  services: string[];
  /** Distinct hosts seen (at least 1 when the spans name none). */
  count: number;
  hostsKnown: boolean;
}

/** What was read but not used, by reason. */
export interface DroppedSpans {
  /** Spans without start or duration (Zipkin incomplete spans). */
  incomplete: number;
  /** Spans whose id repeats one already seen in the trace. */
  duplicate: number;
  /** Spans whose parent is not in the trace, and the spans below them. */
  orphan: number;
  belowOrphans: number;
  /** Spans that start before their parent or end after it (clock skew between hosts). */
  skewed: number;
  /** Server spans whose child calls cover more than their own duration: self time clamped to 0. */
  negativeSelfTime: number;
  /** Client/server pairs where the server span is longer than the client span: RTT clamped to 0. */
  negativeRtt: number;
}

/** The estate inferred from a set of spans. */
export interface InferredEstate {
  traces: number;
  spans: number;
  windowStartUs: number;
  windowSec: number;
  methods: InferredMethod[];
  rtts: InferredEdgeRtt[];
  consumers: InferredConsumer[];
  providers: InferredProvider[];
  dropped: DroppedSpans;
}

const key = (service: string, method: string) => `${service}.${method}`;
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The q-quantile of sorted values, linear between order statistics (as `samples` draws them). */
export function quantileOf(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const h = q * (sorted.length - 1);
  const i = Math.floor(h);
  return i >= sorted.length - 1 ? sorted[sorted.length - 1]! : sorted[i]! + (h - i) * (sorted[i + 1]! - sorted[i]!);
}

/** Length covered by intervals, each clipped to [lo, hi]. */
function unionLength(intervals: Array<[number, number]>, lo: number, hi: number): number {
  const xs = intervals.map(([a, b]) => [Math.max(a, lo), Math.min(b, hi)] as [number, number]).filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let curA = -Infinity;
  let curB = -Infinity;
  for (const [a, b] of xs) {
    if (a > curB) {
      total += curB - curA > 0 ? curB - curA : 0;
      curA = a;
      curB = b;
    } else if (b > curB) curB = b;
  }
  return total + (curB - curA > 0 ? curB - curA : 0);
}

function overlaps(intervals: Array<[number, number]>): boolean {
  const xs = [...intervals].sort((x, y) => x[0] - y[0]);
  for (let i = 1; i < xs.length; i++) if (xs[i]![0] < xs[i - 1]![1]) return true;
  return false;
}

interface MethodAcc {
  service: string;
  method: string;
  apps: Set<string>;
  self: number[];
  clientDurations: number[];
  calls: Map<string, { service: string; method: string; total: number; offsetSum: number }>;
  fanOut: number;
  overlapping: number;
}

/** Infers the estate; `incomplete` is what the readers could not use (counted with the dropped spans). */
export function inferEstate(all: TraceSpan[], incomplete = 0): InferredEstate {
  const dropped: DroppedSpans = { incomplete, duplicate: 0, orphan: 0, belowOrphans: 0, skewed: 0, negativeSelfTime: 0, negativeRtt: 0 };
  const byTrace = new Map<string, Map<string, TraceSpan>>();
  for (const s of all) {
    let t = byTrace.get(s.traceId);
    if (t === undefined) byTrace.set(s.traceId, (t = new Map()));
    if (t.has(s.id)) dropped.duplicate++;
    else t.set(s.id, s);
  }
  const methods = new Map<string, MethodAcc>();
  const methodOf = (service: string, method: string): MethodAcc => {
    let m = methods.get(key(service, method));
    if (m === undefined) methods.set(key(service, method), (m = { service, method, apps: new Set(), self: [], clientDurations: [], calls: new Map(), fanOut: 0, overlapping: 0 }));
    return m;
  };
  const rtts = new Map<string, { from: string; service: string; method: string; values: number[] }>();
  const consumers = new Map<string, { application: string; zone: string | null; hosts: Set<string>; requests: number; calls: Map<string, number> }>();
  const providers = new Map<string, { application: string; zone: string | null; services: Set<string>; hosts: Set<string> }>();
  let lo = Infinity;
  let hi = -Infinity;

  const edgeCall = (application: string, zone: string | undefined, host: string | undefined, service: string, method: string) => {
    const k = JSON.stringify([application, zone ?? null]);
    let c = consumers.get(k);
    if (c === undefined) consumers.set(k, (c = { application, zone: zone ?? null, hosts: new Set(), requests: 0, calls: new Map() }));
    c.requests++;
    if (host !== undefined) c.hosts.add(host);
    c.calls.set(key(service, method), (c.calls.get(key(service, method)) ?? 0) + 1);
  };

  for (const spans of byTrace.values()) {
    const children = new Map<string, TraceSpan[]>();
    const roots: TraceSpan[] = [];
    for (const s of spans.values()) {
      if (s.parentId === undefined) roots.push(s);
      else if (!spans.has(s.parentId)) dropped.orphan++;
      else {
        let c = children.get(s.parentId);
        if (c === undefined) children.set(s.parentId, (c = []));
        c.push(s);
      }
    }
    // Walk down from the roots (no recursion: traces can be deep), each span with the nearest server span above it.
    const reached = new Set<string>();
    const stack: Array<{ span: TraceSpan; owner?: TraceSpan; parent?: TraceSpan }> = roots.map((span) => ({ span }));
    const owned = new Map<TraceSpan, TraceSpan[]>();
    while (stack.length > 0) {
      const { span, owner, parent } = stack.pop()!;
      reached.add(span.id);
      lo = Math.min(lo, span.startUs);
      hi = Math.max(hi, span.endUs);
      if (parent !== undefined && (span.startUs < parent.startUs || span.endUs > parent.endUs) && (span.kind !== 'internal' || parent.kind !== 'internal')) dropped.skewed++;
      if (span.kind === 'client' && span.iface !== undefined) {
        if (owner?.iface !== undefined) {
          let list = owned.get(owner);
          if (list === undefined) owned.set(owner, (list = []));
          list.push(span);
        } else edgeCall(span.app, span.zone, span.host, span.iface, span.method!);
        methodOf(span.iface, span.method!).clientDurations.push((span.endUs - span.startUs) / 1000);
      }
      if (span.kind === 'server' && span.iface !== undefined) {
        const m = methodOf(span.iface, span.method!);
        m.apps.add(span.app);
        const pk = JSON.stringify([span.app, span.zone ?? null]);
        let p = providers.get(pk);
        if (p === undefined) providers.set(pk, (p = { application: span.app, zone: span.zone ?? null, services: new Set(), hosts: new Set() }));
        p.services.add(span.iface);
        if (span.host !== undefined) p.hosts.add(span.host);
        if (parent?.kind === 'client') {
          const rk = JSON.stringify([parent.app, span.iface, span.method]);
          let r = rtts.get(rk);
          if (r === undefined) rtts.set(rk, (r = { from: parent.app, service: span.iface, method: span.method!, values: [] }));
          const rtt = (parent.endUs - parent.startUs - (span.endUs - span.startUs)) / 1000;
          if (rtt < 0) dropped.negativeRtt++;
          r.values.push(Math.max(0, rtt));
        } else if (owner === undefined || owner.iface === undefined) {
          // A Dubbo call whose caller left no client span (uninstrumented, or the trace starts here).
          const caller = parent ?? owner;
          edgeCall(caller?.app ?? 'unknown', caller?.zone, caller?.host, span.iface, span.method!);
        }
      }
      const nextOwner = span.kind === 'server' ? span : owner;
      for (const c of children.get(span.id) ?? []) stack.push({ span: c, owner: nextOwner, parent: span });
    }
    // Spans neither reached from a root nor orphans themselves sit below an orphan (or in a parent cycle).
    dropped.belowOrphans += spans.size - reached.size - [...spans.values()].filter((s) => s.parentId !== undefined && !spans.has(s.parentId)).length;
    for (const s of spans.values()) {
      if (!reached.has(s.id) || s.kind !== 'server' || s.iface === undefined) continue;
      const m = methodOf(s.iface, s.method!);
      const calls = owned.get(s) ?? [];
      const intervals = calls.map((c) => [c.startUs, c.endUs] as [number, number]);
      const dur = s.endUs - s.startUs;
      if (unionLength(intervals, -Infinity, Infinity) > dur && calls.length > 0) dropped.negativeSelfTime++;
      m.self.push((dur - unionLength(intervals, s.startUs, s.endUs)) / 1000);
      if (calls.length >= 2) {
        m.fanOut++;
        if (overlaps(intervals)) m.overlapping++;
      }
      for (const c of calls) {
        const ck = key(c.iface!, c.method!);
        let e = m.calls.get(ck);
        if (e === undefined) m.calls.set(ck, (e = { service: c.iface!, method: c.method!, total: 0, offsetSum: 0 }));
        e.total++;
        e.offsetSum += (c.startUs - s.startUs) / 1000;
      }
    }
  }

  const windowSec = hi > lo ? (hi - lo) / 1e6 : 0;
  const outMethods: InferredMethod[] = [...methods.values()]
    .sort((a, b) => cmp(a.service, b.service) || cmp(a.method, b.method))
    .map((m) => {
      const fromClientSide = m.self.length === 0;
      const executions = m.self.length;
      return {
        service: m.service,
        method: m.method,
        applications: [...m.apps].sort(cmp),
        executions,
        selfTimeMs: (fromClientSide ? m.clientDurations : m.self).slice().sort((a, b) => a - b),
        fromClientSide,
        calls: [...m.calls.values()]
          .map((c) => ({ service: c.service, method: c.method, total: c.total, meanPerExecution: c.total / executions, meanOffsetMs: Math.round((c.offsetSum / c.total) * 1000) / 1000 }))
          .sort((a, b) => a.meanOffsetMs - b.meanOffsetMs || cmp(key(a.service, a.method), key(b.service, b.method))),
        fanOutExecutions: m.fanOut,
        overlappingExecutions: m.overlapping,
        parallel: m.fanOut > 0 && m.overlapping * 2 >= m.fanOut,
      };
    });
  return {
    traces: byTrace.size,
    spans: all.length + incomplete,
    windowStartUs: Number.isFinite(lo) ? lo : 0,
    windowSec,
    methods: outMethods,
    rtts: [...rtts.values()]
      .map((r) => {
        const v = r.values.sort((a, b) => a - b);
        return { from: r.from, service: r.service, method: r.method, pairs: v.length, rttMs: { p50: quantileOf(v, 0.5), p99: quantileOf(v, 0.99) } };
      })
      .sort((a, b) => cmp(a.from, b.from) || cmp(key(a.service, a.method), key(b.service, b.method))),
    consumers: [...consumers.values()]
      .map((c) => ({
        application: c.application,
        zone: c.zone,
        instances: Math.max(1, c.hosts.size),
        requests: c.requests,
        ratePerSec: windowSec > 0 ? c.requests / windowSec : 0,
        calls: Object.fromEntries([...c.calls.entries()].sort(([a], [b]) => cmp(a, b))),
      }))
      .sort((a, b) => cmp(a.application, b.application) || cmp(a.zone ?? '\uffff', b.zone ?? '\uffff')),
    providers: [...providers.values()]
      .map((p) => ({ application: p.application, zone: p.zone, services: [...p.services].sort(cmp), count: Math.max(1, p.hosts.size), hostsKnown: p.hosts.size > 0 }))
      .sort((a, b) => cmp(a.application, b.application) || cmp(a.zone ?? '\uffff', b.zone ?? '\uffff')),
    dropped,
  };
}
