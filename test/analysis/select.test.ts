/** `zonesim select` through runSelect with a capturing Io. */
import { describe, expect, it } from 'vitest';
import { UsageError, type Io } from '../../src/scenario/io.js';
import { runSelect, type SelectOptions } from '../../src/analysis/select.js';

function capture(): Io & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, cwd: process.cwd(), stdout: (t) => out.push(t), stderr: (t) => err.push(t) };
}

function select(opts: Partial<SelectOptions>): { code: number; out: string } {
  const io = capture();
  const code = runSelect(
    { loadbalance: 'random', providers: [], args: [], count: 10, seed: 1, nowMs: 1_700_000_000_000, json: true, ...opts },
    io,
  );
  return { code, out: io.out.join('') };
}

const WEIGHTED = [
  'dubbo://10.0.0.1:20880/com.example.DemoService?weight=1',
  'dubbo://10.0.0.2:20880/com.example.DemoService?weight=2',
  'dubbo://10.0.0.3:20880/com.example.DemoService?weight=3',
];

describe('zonesim select', () => {
  it('prints exactly the picks as JSON, with round-robin state carried between picks', () => {
    const { code, out } = select({ loadbalance: 'roundrobin', providers: WEIGHTED, count: 6 });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      picks: ['10.0.0.3:20880', '10.0.0.2:20880', '10.0.0.1:20880', '10.0.0.3:20880', '10.0.0.2:20880', '10.0.0.3:20880'],
    });
  });

  it('uses --now as the clock for warmup', () => {
    const providers = [
      'dubbo://10.0.0.1:20880/S?timestamp=1699999940000', // up 60 s of a 10 min warmup: weight 10
      'dubbo://10.0.0.2:20880/S?timestamp=1690000000000',
    ];
    const { out } = select({ loadbalance: 'roundrobin', providers, count: 110 });
    const picks: string[] = JSON.parse(out).picks;
    expect(picks.filter((p) => p === '10.0.0.1:20880')).toHaveLength(10);
  });

  it('hashes the --arg values for consistenthash', () => {
    const providers = [1, 2, 3, 4, 5].map((p) => `test://127.0.0.1:${p}/DemoService`);
    const { out } = select({ loadbalance: 'consistenthash', providers, args: ['arg1'], method: 'method1', count: 5 });
    expect(JSON.parse(out).picks).toEqual(new Array(5).fill('127.0.0.1:2'));
  });

  it('spreads leastactive picks when the providers carry actives, as calls stay in flight', () => {
    // actives=100 activates ActiveLimitFilter (actives=0 would not: ConfigUtils.isNotEmpty("0") is false).
    const providers = [1, 2, 3].map((i) => `dubbo://10.0.0.${i}:20880/S?actives=100`);
    const picks: string[] = JSON.parse(select({ loadbalance: 'leastactive', providers, count: 6 }).out).picks;
    expect(new Set(picks.slice(0, 3)).size).toBe(3);
    expect(new Set(picks.slice(3)).size).toBe(3);
  });

  it('gives the same picks for the same seed and other picks for another seed', () => {
    const providers = [1, 2, 3, 4].map((i) => `dubbo://10.0.0.${i}:20880/S`);
    const a = select({ providers, count: 40, seed: 7 }).out;
    expect(select({ providers, count: 40, seed: 7 }).out).toBe(a);
    expect(select({ providers, count: 40, seed: 8 }).out).not.toBe(a);
  });

  it('lists the picks and a count per provider as text without --json', () => {
    const { out } = select({ loadbalance: 'roundrobin', providers: WEIGHTED, count: 6, json: false });
    expect(out).toContain('picks: 10.0.0.3:20880 10.0.0.2:20880 10.0.0.1:20880');
    expect(out).toMatch(/10\.0\.0\.1:20880\s+1\s+1\s+16\.7%/);
    expect(out).toMatch(/10\.0\.0\.3:20880\s+3\s+3\s+50\.0%/);
  });

  it('reports the zone decision counters of envoyZoneAware in text mode', () => {
    const providers = [
      ...[1, 2, 3].map((i) => `dubbo://10.10.0.${i}:20880/S?zone=zoneA`),
      ...[1, 2, 3].map((i) => `dubbo://10.20.0.${i}:20880/S?zone=zoneB`),
    ];
    const io = capture();
    runSelect(
      {
        loadbalance: 'envoyZoneAware',
        providers,
        args: [],
        count: 4,
        seed: 1,
        nowMs: 0,
        json: false,
        consumer: 'consumer://10.10.9.9/S?zone=zoneA&envoy.local_zones=zoneA:1,zoneB:1',
      },
      io,
    );
    expect(io.out.join('')).toContain('envoy.lb_zone_routing_all_directly=4');
  });

  it('rejects an unknown balancer with a usage error that lists the valid names', () => {
    expect(() => select({ loadbalance: 'fastest', providers: WEIGHTED })).toThrow(UsageError);
    expect(() => select({ loadbalance: 'fastest', providers: WEIGHTED })).toThrow(/roundrobin.*consistenthash.*zoneAware/);
  });

  it('rejects a count below 1', () => {
    expect(() => select({ providers: WEIGHTED, count: 0 })).toThrow(UsageError);
  });

  it('rejects an empty provider list', () => {
    expect(() => select({ providers: [] })).toThrow(/provider/);
  });
});
