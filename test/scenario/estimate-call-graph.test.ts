import { describe, expect, it } from 'vitest';
import { callGraphOrder } from '../../src/scenario/estimate-call-graph.js';
import { COST_MODEL, estimateCost } from '../../src/scenario/estimate.js';
import { costProblems, MAX_BUCKETS, MAX_WATCHED_RETRIES, type CostLimits } from '../../src/scenario/estimate-limits.js';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { chainYaml, fanYaml, minYaml, queueYaml, RETRY_NEVER } from '../helpers/cost-scenarios.js';

/** Web calls A.a (retries 1), whose every execution calls B.b twice (the first call with retries 2). */
const GRAPH = `
name: graph
duration: 10s
warmup: 1s
zones: { dc: { cidr: 10.0.0.0/16 } }
services:
  com.example.A:
    methods:
      a:
        serviceTime: 1ms
        calls: [{ service: com.example.B, method: b, reference: { retries: 2 } }, { service: com.example.B, method: b }]
  com.example.B:
    methods:
      b: { serviceTime: 1ms }
providers:
  - { name: a, service: com.example.A, zone: dc, count: 2 }
  - { name: b, service: com.example.B, zone: dc, count: 2 }
consumers:
  - application: web
    zone: dc
    instances: 1
    rate: 10/s
    calls: { com.example.A.a: 1 }
    reference: { com.example.A: { retries: 1 } }
`;

const LIMITS: CostLimits = { maxRequests: 2e8, memoryMb: 4192, maxBuckets: MAX_BUCKETS };
const parse = (text: string, sets: string[] = []) => parseScenario(text, 'cost.yaml', sets);

describe('call graphs are counted exactly, tier by tier (audit 3, defect 3)', () => {
  it('counts a parallel fan-out of 2 over 25 tiers without a step cap: 10 x (2^25 - 1) requests, refused over --max-requests', () => {
    const e = estimateCost(parse(fanYaml(24)));
    expect(e.edgeRequests).toBe(10);
    expect(e.requests).toBe(10 * (2 ** 25 - 1));
    expect(e.downstreamRequests).toBe(10 * (2 ** 25 - 2));
    // Retries 0 at every tier: the worst case is the count itself.
    expect(e.requestsWorstCase).toBe(e.requests);
    const problems = costProblems(e, LIMITS);
    expect(problems[0]).toBe('335,544,310 simulated requests (335,544,300 of them downstream calls of call graphs) exceed --max-requests 200,000,000');
  });

  it('counts 41 tiers (about 2.2e13 requests) as doubles, and the 16-tier fan-out the audit ran in full', () => {
    expect(estimateCost(parse(fanYaml(40))).requests).toBe(10 * (2 ** 41 - 1));
    const e16 = estimateCost(parse(fanYaml(16)));
    // The audit's E-fan16p measured 1,310,710 requests.
    expect(e16.requests).toBe(1_310_710);
    expect(costProblems(e16, LIMITS)).toEqual([]);
  });

  it('counts every tier of a 1,000-tier chain (the audit measured 120,120 requests, estimated 3,400 before)', () => {
    const e = estimateCost(parse(chainYaml(1000)));
    expect(e.edgeRequests).toBe(100);
    expect(e.requests).toBe(100 * 1000);
  });

  it('gives what a 200-tier chain really simulates, every tier counted', () => {
    // Constant arrivals, every request measured (no warmup), and none started after 8 s, so that
    // every tier of every request starts within the measured window: the summary's requests are all of them.
    const text = chainYaml(200, { arrival: 'constant', warmup: '0s', extra: 'faults:\n  - { at: 8s, traffic: { consumer: c, rate: 0/s } }\n' });
    const s = parse(text);
    const e = estimateCost(s);
    expect(e.edgeRequests).toBe(80);
    expect(e.requests).toBe(80 * 200);
    const { summary } = runScenario(s, { version: 'test' });
    // Constant arrivals start at 0 ms, every 100 ms: 80 in [0, 8 s), each 200 requests deep.
    expect(summary.requests).toBe(e.requests);
    expect(summary.outcomes.ok).toBe(summary.requests);
  });

  it('orders callers before callees without recursion, and says when a cycle is left over', () => {
    const { order, cyclic } = callGraphOrder(parse(chainYaml(3)));
    expect(cyclic).toBe(false);
    expect(order).toEqual(['com.example.T0.m', 'com.example.T1.m', 'com.example.T2.m']);
    // The loader refuses cycles (errors.test.ts); a model built by hand may still hold one.
    const s = parse(chainYaml(2));
    s.services['com.example.T1']!.methods.m!.calls.push({ service: 'com.example.T0', method: 'm', reference: { parameters: {}, methods: {} } });
    expect(callGraphOrder(s).cyclic).toBe(true);
    expect(estimateCost(s).requests).toBe(Infinity);
    expect(costProblems(estimateCost(s), LIMITS)[0]).toMatch(/^infinitely many simulated requests/);
  });
});

describe('retries: expected from the timeout tail, worst case when every retry is taken', () => {
  it('takes every retry when every attempt times out: the audit\'s retry_never is refused', () => {
    const e = estimateCost(parse(RETRY_NEVER));
    // 10 ms of service against a 1 ms timeout: each call makes retries + 1 attempts.
    expect(e.attempts).toBeCloseTo(2000 * 10_000_001, -3);
    expect(e.attemptsWorstCase).toBeCloseTo(2000 * 10_000_001, -3);
    expect(e.maxRetries).toBe(10_000_000);
    // No more in flight than requests start.
    expect(e.inFlight).toBeLessThanOrEqual(e.requests);
    const problems = costProblems(e, LIMITS);
    expect(problems[0]).toMatch(/^90,000,009,000 kernel events exceed 2,000,000,000 \(10 per request of --max-requests\): 20,000,002,000 attempts \(10,000,001 per request/);
    expect(problems[1]).toMatch(/^up to 20,000,002,000 attempts if every retry is taken \(retries: 10,000,000\)/);
  });

  it('makes one attempt per call when none can time out, and shows every retry only in the worst case', () => {
    const e = estimateCost(parse(minYaml({ serviceTime: '10ms', timeout: '1000ms', retries: 2 })));
    expect(e.attempts).toBe(2000);
    expect(e.attemptsWorstCase).toBe(2000 * 3);
  });

  it('leaves a large worst case to the watchdog up to MAX_WATCHED_RETRIES retries, and refuses it beyond', () => {
    const worst = (retries: number) => costProblems(estimateCost(parse(minYaml({ serviceTime: '0.1ms', timeout: '1000ms', retries, rate: '2000000/s' }))), LIMITS);
    // 20,000,000 requests, none expected to time out: 2e7 x (retries + 1) worst-case attempts is over 2e9 in both.
    expect(worst(MAX_WATCHED_RETRIES)).toEqual([]);
    expect(worst(1000)).toEqual([expect.stringMatching(/^up to 20,020,000,000 attempts if every retry is taken \(retries: 1,000\)/)]);
  });

  it('expects the attempts the simulator makes when a share of them times out (the audit\'s retry1ms: 54 per request measured)', () => {
    // p50 5 ms / p99 50 ms against 1 ms: only draws under ~0.8 ms (same zone) succeed, about 1 in 60 attempts.
    const s = parse(minYaml({ timeout: '1ms', retries: 1000 }));
    const e = estimateCost(s);
    const { summary } = runScenario(s, { version: 'test' });
    const measured = summary.attempts / summary.requests;
    const expected = e.attempts / e.requests;
    // A model bound, not a sampling one: the estimate takes the median RTT and the same chance for every
    // attempt (failover moves to untried providers); 15% covers it (measured: 4%).
    expect(Math.abs(expected / measured - 1)).toBeLessThan(0.15);
    expect(measured).toBeGreaterThan(30);
  });

  it('weighs a slowdown that makes calls time out by the time it is in force', () => {
    const base = minYaml({ serviceTime: '10ms', timeout: '100ms', retries: 2 });
    const slow = (forS: number) => estimateCost(parse(`${base}faults:\n  - { at: 2s, for: ${forS}s, slowdown: { group: pa, factor: 20 } }\n  - { at: 2s, for: ${forS}s, slowdown: { group: pb, factor: 20 } }\n`));
    // 200 ms against 100 ms while slowed: three attempts per call for that share of the requests.
    expect(slow(5).attempts).toBeCloseTo(2000 + 2 * 1000, 6);
    expect(slow(2).attempts).toBeCloseTo(2000 + 2 * 400, 6);
  });

  it('adds call-graph requests, and every retry at every tier in the worst case', () => {
    const e = estimateCost(parse(GRAPH));
    expect(e.edgeRequests).toBe(100);
    // Each execution of a makes two calls to b.
    expect(e.downstreamRequests).toBe(200);
    expect(e.requests).toBe(300);
    // Worst case: 2 attempts of a per request, each making 2 calls of b.
    expect(e.requestsWorstCase).toBe(100 + 2 * 100 * 2);
    // Two providers of a each hold a consumer side for B; they subscribe to B.
    expect(e.references).toBe(1 + 2);
  });

  it('costs a provider process\'s reference to what its methods call more than a consumer instance\'s', () => {
    const MB = 2 ** 20;
    const graph = estimateCost(parse(GRAPH));
    // The same estate without the call: a's providers call nothing.
    const flat = estimateCost(parse(GRAPH.replace(/calls: \[[^\]]*\]/, 'calls: []')));
    expect(flat.references).toBe(1);
    expect(graph.memoryMb.consumers - flat.memoryMb.consumers).toBeCloseTo((2 * COST_MODEL.bytesPerDownstreamReference) / MB, 9);
    expect(COST_MODEL.bytesPerDownstreamReference).toBeGreaterThan(COST_MODEL.bytesPerReference);
  });

  it('counts the downstream calls of every execution, retried ones included', () => {
    const e = estimateCost(parse(GRAPH, ['services["com.example.A"].methods.a.serviceTime=50ms', 'consumers[0].reference["com.example.A"].timeout=20ms']));
    // 50 ms against 20 ms: both attempts of a time out and both execute, each making two calls of b.
    expect(e.attempts).toBeCloseTo(100 * 2 + 100 * 2 * 2, 6);
    expect(e.downstreamRequests).toBeCloseTo(100 * 2 * 2, 6);
    // Worst case: b's calls take their retries too (the later call of b wins the downstream reference: retries 2).
    expect(e.attemptsWorstCase).toBeCloseTo(100 * 2 + 100 * 2 * 2 * 3, 6);
  });
});

describe('unbounded provider queues', () => {
  it('grows an overloaded unbounded queue by the excess over the run, with every attempt timing out', () => {
    // One thread of 10 ms serves 100/s; 20,000/s x 3 attempts (each times out behind the queue) are offered.
    const e = estimateCost(parse(queueYaml('20000/s', '60s')));
    expect(e.attempts).toBeCloseTo(1_200_000 * 3, 0);
    expect(e.queuedCalls).toBeCloseTo(60 * (60_000 - 100), 0);
    expect(e.memoryMb.queues).toBeGreaterThan(1000);
  });

  it('refuses the audit\'s queue60k, naming the provider queues', () => {
    const problems = costProblems(estimateCost(parse(queueYaml('60000/s', '60s'))), LIMITS);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^estimated peak memory [\d,]+ MB exceeds the 4,192 MB one simulation may use; the most is provider queues, [\d,]+ MB: 10,794,000 calls waiting in overloaded unbounded queues$/);
  });

  it('keeps nothing queued when the pool keeps up, or when its queue is bounded', () => {
    expect(estimateCost(parse(queueYaml('50/s', '60s'))).queuedCalls).toBe(0);
    expect(estimateCost(parse(queueYaml('20000/s', '60s'), ['providers[0].queues=100'])).queuedCalls).toBe(0);
  });

  it('drains the queue at the spare capacity once the overload ends', () => {
    // 400/s for 10 s (3 attempts each behind the queue: 1,199 queued per second), then 50/s for 50 s.
    const e = estimateCost(parse(`${queueYaml('400/s', '60s')}faults:\n  - { at: 10s, traffic: { consumer: c, rate: 50/s } }\n`));
    expect(e.queuedCalls).toBeCloseTo(10 * (1200 - 100), 0);
  });
});
