import { describe, expect, it } from 'vitest';
import { TraceRecorder, type SpanRecord, type TraceSample } from '../../src/metrics/trace-recorder.js';
import type { TracedProvider } from '../../src/metrics/trace-observer.js';
import { unixNano } from '../../src/metrics/otlp-traces.js';

const provider: TracedProvider = { ip: '10.0.0.9', port: 20880, zone: 'zoneB', group: { spec: { name: 'users-b', application: 'users' } } };

function recorder(sample: TraceSample = { kind: 'ratio', ratio: 1 }, maxSpans?: number, seed = 1) {
  return new TraceRecorder({ sample, warmupMs: 1000, durationMs: 10_000, run: { scenario: 's', seed, version: 't' }, maxSpans });
}

/** A handle as the world keeps one. */
const handle = () => ({ ended: false });

function start(t: TraceRecorder, atMs: number, parent: object | null = null, app = 'web') {
  const req = handle();
  t.request(req, app, `${app}#0`, '10.0.1.1', 'zoneA', 'com.example.UserService', 'get', atMs, parent);
  return req;
}

const spans = (t: TraceRecorder): SpanRecord[] => t.resources().flatMap((r) => r.spans);
const attr = (s: SpanRecord, key: string) => s.attributes.find(([k]) => k === key)?.[1];

describe('TraceRecorder', () => {
  it('keeps a request whose attempt timed out while its call queued, with the execution that ran after the timeout', () => {
    const t = recorder();
    const req = start(t, 2000);
    const call = {};
    t.attempt(req, call, provider, 'com.example.UserService', 'get', 1000, true, 2000);
    t.received(call, 2001);
    t.attemptEnded(call, 'timeout', 3000);
    t.requestEnded(req, 'timeout', 3000, undefined);
    // Not kept yet: the call may still run.
    expect(t.traces).toBe(0);
    t.executing(call, 3500, 40);
    t.executed(call, 3540);
    expect(t.traces).toBe(0);
    t.orphaned(call);
    expect(t.traces).toBe(1);
    const [root, client, server] = spans(t);
    expect([root!.kind, client!.kind, server!.kind]).toEqual([1, 3, 2]);
    expect(server!.parentSpanId).toBe(client!.spanId);
    expect(client!.parentSpanId).toBe(root!.spanId);
    expect([server!.startMs, server!.endMs]).toEqual([3500, 3540]);
    expect(attr(server!, 'zonesim.queue_wait_ms')).toEqual({ d: 1499 });
    expect(attr(server!, 'zonesim.orphaned')).toEqual({ b: true });
    expect(attr(client!, 'zonesim.attempt.outcome')).toEqual({ s: 'timeout' });
    expect(attr(client!, 'zonesim.cross_zone')).toEqual({ b: true });
    expect(client!.error).toBe('timeout');
    expect(root!.error).toBe('timeout');
    // The server span is the provider's process; the others the consumer's.
    const [consumer, prov] = t.resources();
    expect(consumer!.spans).toHaveLength(2);
    expect(prov!.attributes).toContainEqual(['service.instance.id', { s: '10.0.0.9:20880' }]);
    expect(prov!.attributes).toContainEqual(['cloud.availability_zone', { s: 'zoneB' }]);
  });

  it('keeps a trace once a call that will never run is known: lost, rejected or refused', () => {
    const t = recorder();
    const req = start(t, 2000);
    const call = {};
    t.attempt(req, call, provider, 'com.example.UserService', 'get', 1000, false, 2000);
    t.notExecuted(call);
    t.attemptEnded(call, 'exhausted', 2001);
    t.requestEnded(req, 'network', 2001, 'threadpool:exhausted');
    expect(t.traces).toBe(1);
    expect(spans(t).map((s) => s.kind)).toEqual([1, 3]);
  });

  it('hangs a downstream request under the execution that makes it, in the same trace', () => {
    const t = recorder();
    const req = start(t, 2000);
    const call = {};
    t.attempt(req, call, provider, 'com.example.UserService', 'get', 1000, false, 2000);
    t.executing(call, 2001, 5);
    const down = start(t, 2006, call, 'users');
    t.requestEnded(down, 'ok', 2010, undefined);
    t.executed(call, 2010);
    t.attemptEnded(call, 'ok', 2011);
    t.requestEnded(req, 'ok', 2011, undefined);
    const all = spans(t);
    expect(t.traces).toBe(1);
    const server = all.find((s) => s.kind === 2)!;
    const downSpan = all.find((s) => s.kind === 1 && s.parentSpanId !== '')!;
    expect(downSpan.parentSpanId).toBe(server.spanId);
    expect(new Set(all.map((s) => s.traceId)).size).toBe(1);
    expect(attr(server, 'zonesim.orphaned')).toEqual({ b: false });
  });

  it('samples the asked fraction of the measured requests, by a hash of their index: the same for a seed', () => {
    const picked = (seed: number) => {
      const t = recorder({ kind: 'ratio', ratio: 0.3 }, undefined, seed);
      const out: number[] = [];
      for (let i = 0; i < 20_000; i++) {
        const req = start(t, 1000 + i * 0.1);
        const before = t.traces;
        t.requestEnded(req, 'ok', 1000 + i * 0.1, undefined);
        if (t.traces > before) out.push(i);
      }
      return out;
    };
    const a = picked(1);
    // Binomial(20000, 0.3): within 4 standard deviations.
    expect(Math.abs(a.length - 6000)).toBeLessThan(4 * Math.sqrt(20_000 * 0.3 * 0.7));
    expect(picked(1)).toEqual(a);
    const b = picked(2);
    expect(b).not.toEqual(a);
    // Two seeds pick independently: about 0.3 of one seed's picks are the other's too.
    const shared = a.filter((i) => new Set(b).has(i)).length;
    expect(Math.abs(shared - 0.3 * a.length)).toBeLessThan(4 * Math.sqrt(a.length * 0.3 * 0.7));
  });

  it('traces no request outside the measured window', () => {
    const t = recorder();
    for (const at of [0, 999.9, 10_000]) t.requestEnded(start(t, at), 'timeout', at + 1, undefined);
    expect(t.traces).toBe(0);
  });

  it('under errors keeps every request that did not end ok and no other', () => {
    const t = recorder({ kind: 'errors' });
    const outcomes = ['ok', 'timeout', 'ok', 'noProvider', 'rejected'] as const;
    outcomes.forEach((o, i) => t.requestEnded(start(t, 2000 + i), o, 2001 + i, o === 'ok' ? undefined : 'why'));
    expect(t.traces).toBe(3);
    expect(spans(t).map((s) => attr(s, 'zonesim.outcome'))).toEqual([{ s: 'timeout' }, { s: 'noProvider' }, { s: 'rejected' }]);
  });

  it('stops at the cap: the trace that would pass it and every later one are dropped', () => {
    const t = recorder({ kind: 'ratio', ratio: 1 }, 5);
    for (let i = 0; i < 8; i++) {
      const req = start(t, 2000 + i);
      t.attempt(req, null, provider, 'com.example.UserService', 'get', 1000, false, 2000 + i, 'closed');
      t.requestEnded(req, 'network', 2000 + i, 'network:refused');
    }
    expect(t.spans).toBe(4);
    expect(t.truncatedAtMs).toBe(2002);
    expect(t.runAttributes()).toContainEqual(['zonesim.trace.truncated', { b: true }]);
  });

  it('ends what is still open when the run finishes, marked unfinished', () => {
    const t = recorder();
    const req = start(t, 2000);
    const call = {};
    t.attempt(req, call, provider, 'com.example.UserService', 'get', 1000, false, 2000);
    t.finish(9000);
    expect(t.unfinished).toBe(1);
    expect(spans(t).map((s) => [s.endMs, attr(s, 'zonesim.unfinished')])).toEqual([
      [9000, { b: true }],
      [9000, { b: true }],
    ]);
  });
});

describe('unixNano', () => {
  it('writes simulated ms after the epoch as whole nanoseconds', () => {
    expect(unixNano(1_767_225_600_000, 0)).toBe('1767225600000000000');
    expect(unixNano(1_767_225_600_000, 1234.5678901)).toBe('1767225601234567890');
  });
});
