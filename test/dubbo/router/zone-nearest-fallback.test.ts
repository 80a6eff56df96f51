/**
 * The zone router's nearest-zone and ordered fallbacks (zonesim extensions, SPEC 2.6): when the
 * target zone has no provider, `fallback: nearest` keeps the zone nearest the consumer (median RTT)
 * that still has providers, and `fallback: [zoneB, zoneC]` the first listed zone that has any.
 */
import { describe, expect, it } from 'vitest';
import { ZoneStateRouter, type ZoneFallback } from '../../../src/dubbo/router/zone-state-router.js';
import { RpcInvocation } from '../../../src/dubbo/rpc.js';
import { URL } from '../../../src/dubbo/url.js';
import type { ZoneDistance } from '../../../src/dubbo/zone-order.js';
import { indicesIn, invokersOf } from './fixtures.js';

// Two same-city zones (A, B: 1.5 ms apart), one remote zone (C: 30 ms from both).
const RTT: Record<string, number> = { 'zoneA>zoneB': 1.5, 'zoneB>zoneA': 1.5, 'zoneA>zoneC': 30, 'zoneC>zoneA': 30, 'zoneB>zoneC': 30, 'zoneC>zoneB': 30 };
const distance: ZoneDistance = (from, to) => (from === to ? 0.2 : RTT[`${from}>${to}`]);
const CONSUMER_A = URL.valueOf('consumer://10.10.1.5/com.example.UserService?zone=zoneA');
const url = (ip: string, zone?: string) => `dubbo://${ip}:20880/com.example.UserService${zone === undefined ? '' : `?zone=${zone}`}`;
const B1 = url('10.20.0.1', 'zoneB');
const B2 = url('10.20.0.2', 'zoneB');
const C1 = url('10.30.0.1', 'zoneC');
const C2 = url('10.30.0.2', 'zoneC');
const D1 = url('10.40.0.1', 'zoneD');

function route(fallback: ZoneFallback, providers: string[], options: { consumer?: URL; attachments?: Record<string, string>; zoneDistance?: ZoneDistance | null } = {}) {
  const router = new ZoneStateRouter({
    fallback,
    zoneFrom: options.attachments === undefined ? 'local' : 'attachment',
    zoneDistance: options.zoneDistance === null ? undefined : (options.zoneDistance ?? distance),
  });
  const invokers = invokersOf(providers);
  const result = router.route(invokers, options.consumer ?? CONSUMER_A, new RpcInvocation({ methodName: 'm', attachments: options.attachments ?? {} }));
  return { idx: indicesIn(invokers, result.invokers), trace: result.trace };
}

describe('zone router fallback: nearest', () => {
  it("sends a dead zone's consumers to the same-city zone only, never to the remote one", () => {
    const r = route('nearest', [C1, B1, C2, B2]);
    expect(r.idx).toEqual([1, 3]);
    expect(r.trace).toMatchObject({ router: 'zone', rule: 'zone=zoneA', before: 4, after: 2 });
    expect(r.trace.note).toBe('no provider in zone zoneA, fell back to the nearest zone zoneB (median RTT 1.5ms from zoneA): kept 2 of 4');
  });

  it('takes the next nearest zone when the nearest has no provider either', () => {
    expect(route('nearest', [C1, C2]).idx).toEqual([0, 1]);
  });

  it('keeps equally near zones together', () => {
    const tie: ZoneDistance = (from, to) => (from === to ? 0.2 : to === 'zoneD' ? 9 : 2);
    const r = route('nearest', [C1, D1, B1], { zoneDistance: tie });
    expect(r.idx).toEqual([0, 2]);
    expect(r.trace.note).toContain('nearest zones zoneC, zoneB');
  });

  it('leaves the target zone alone while it has providers', () => {
    const a = url('10.10.0.1', 'zoneA');
    expect(route('nearest', [B1, a, C1]).idx).toEqual([1]);
  });

  it("measures from the consumer's zone when the target comes from an attachment", () => {
    // Target zoneC (empty), consumer in zoneA: zoneA itself is nearest to the consumer.
    const a = url('10.10.0.1', 'zoneA');
    expect(route('nearest', [B1, a], { attachments: { zone: 'zoneC' } }).idx).toEqual([1]);
  });

  it('ranks providers without a zone, and zones without a known distance, last', () => {
    expect(route('nearest', [url('10.0.0.9'), D1, C1]).idx).toEqual([2]);
    expect(route('nearest', [url('10.0.0.9'), D1]).idx).toEqual([0, 1]);
  });

  it('falls back to all providers when nothing tells distances apart (no network, e.g. a tool)', () => {
    const r = route('nearest', [C1, B1], { zoneDistance: null });
    expect(r.idx).toEqual([0, 1]);
    expect(r.trace.note).toContain('distance unknown');
  });
});

describe('zone router fallback: explicit order', () => {
  it('keeps the first listed zone that has providers', () => {
    expect(route(['zoneC', 'zoneB'], [B1, C1, B2]).idx).toEqual([1]);
  });

  it('moves on to the next listed zone when one has no provider', () => {
    const r = route(['zoneD', 'zoneB', 'zoneC'], [C1, B1]);
    expect(r.idx).toEqual([1]);
    expect(r.trace.note).toBe('no provider in zone zoneA, fell back to zone zoneB (fallback order zoneD, zoneB, zoneC): kept 1 of 2');
  });

  it('never uses a zone the list leaves out: no provider when every listed zone is empty', () => {
    const r = route(['zoneB'], [C1, C2]);
    expect(r.idx).toEqual([]);
    expect(r.trace).toMatchObject({ before: 2, after: 0, note: 'no provider in zone zoneA nor in the fallback zones zoneB' });
  });
});
