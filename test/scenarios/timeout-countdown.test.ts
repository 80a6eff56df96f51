/**
 * Timeout countdown through a call graph (issue 9 item 11), as Dubbo 3.3 does it:
 * - the edge turns it on with the reference parameter `enable-timeout-countdown=true` (read as a
 *   method parameter, default false): `RpcUtils.calculateTimeout` (lines 285-306) then sends each
 *   attempt's timeout as the `_TO` attachment;
 * - the provider's ContextFilter (lines 166-172) starts a TimeoutCountDown of `_TO` ms when its
 *   thread runs the call;
 * - ConsumerContextFilter (lines 97-117) passes it to the calls made while executing unless their
 *   reference turns `enable-timeout-countdown` off (default on there), and ends a call with no
 *   time left at once;
 * - each downstream attempt's timeout is what is left (`calculateTimeout`), sent on as `_TO`, and
 *   an attempt with 0 ms or less ends with TIMEOUT_TERMINATE (DubboInvoker lines 107-115) as a
 *   result, so failover does not retry it.
 * The message is "No time left for making the following call: <service>.<method>, terminate directly."
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Result } from '../../src/dubbo/rpc.js';
import type { Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario, type Plugins } from '../../src/scenario/run.js';
import { applyStrategy } from '../../src/scenario/strategies.js';
import { observedFailover } from '../helpers/observed-failover.js';

const file = fileURLToPath(new URL('../../scenarios/call-graph-amplification.yaml', import.meta.url));
const PLACE = 'com.example.OrderService.place';
const RESERVE = 'com.example.InventoryService.reserve';
const COUNTDOWN = 'consumers[0].reference["com.example.OrderService"].parameters={enable-timeout-countdown: true}';

interface Call {
  service: string;
  /** `_TO` on the invocation after the call (the last attempt's). */
  to: string | undefined;
  result: Result;
}

/** Every call's final `_TO` and Result, through a cluster plugin over failover. */
const recording = (calls: Call[]): Plugins =>
  observedFailover({ after: (invocation, result) => calls.push({ service: invocation.serviceName, to: invocation.getAttachment('_TO'), result }) });

function run(sets: string[], calls?: Call[], strategy?: string): Summary {
  let { scenario } = loadScenarioWithRaw(file, sets);
  if (strategy !== undefined) scenario = applyStrategy(scenario, scenario.strategies[strategy]!);
  return runScenario(scenario, { version: 'test', plugins: calls === undefined ? undefined : recording(calls) }).summary;
}

const SHORT = ['duration=6s', 'warmup=1s'];

describe('timeout countdown (enable-timeout-countdown)', () => {
  it('sends nothing without the parameter: Dubbo\'s default leaves every tier its own timeouts', () => {
    const calls: Call[] = [];
    run([...SHORT, 'services["com.example.InventoryService"].methods.reserve.serviceTime=5ms'], calls);
    expect(calls.length).toBeGreaterThan(400);
    expect(calls.every((c) => c.to === undefined)).toBe(true);
  });

  it('passes the remaining budget down: the edge sends its attempt timeout, the next tier what is left of it', () => {
    const calls: Call[] = [];
    const s = run([...SHORT, COUNTDOWN, 'services["com.example.InventoryService"].methods.reserve.serviceTime=5ms',
      'services["com.example.OrderService"].methods.place.serviceTime=300ms'], calls);
    expect(s.ok).toBe(s.requests);
    const edge = calls.filter((c) => c.service === 'com.example.OrderService');
    const lower = calls.filter((c) => c.service === 'com.example.InventoryService');
    expect(edge.every((c) => c.to === '1000')).toBe(true);
    // The countdown starts when place's thread starts; place works 300 ms before calling reserve.
    expect(lower.length).toBeGreaterThan(200);
    expect(lower.every((c) => c.to === '700')).toBe(true);
  });

  it('gives a downstream attempt what is left even beyond its own shorter timeout (Dubbo does not take the minimum)', () => {
    // reserve needs 500 ms; its reference says 300 ms. Alone it times out three times; under the
    // edge's countdown the attempt waits 998 ms and succeeds.
    const sets = [...SHORT, 'services["com.example.InventoryService"].methods.reserve.serviceTime=500ms',
      'services["com.example.OrderService"].methods.place.calls[0].reference.timeout=300ms'];
    const own = run(sets);
    expect(own.byService[RESERVE]!.outcomes.timeout).toBe(own.byService[RESERVE]!.requests);
    const calls: Call[] = [];
    const countdown = run([...sets, COUNTDOWN], calls);
    expect(countdown.byService[RESERVE]!.ok).toBe(countdown.byService[RESERVE]!.requests);
    expect(countdown.byService[RESERVE]!.retryAmplification).toBe(1);
    expect(calls.filter((c) => c.service === 'com.example.InventoryService').every((c) => c.to === '998')).toBe(true);
  });

  it('ends a call with no time left at once (ConsumerContextFilter), before its cluster and without sending it', () => {
    // place works 1200 ms of a 1000 ms budget: reserve is terminated before any attempt.
    const s = run([...SHORT, COUNTDOWN, 'services["com.example.OrderService"].methods.place.serviceTime=1200ms']);
    const reserve = s.byService[RESERVE]!;
    expect(reserve.requests).toBeGreaterThan(200);
    expect(reserve.outcomes.timeout).toBe(reserve.requests);
    expect(reserve.attempts).toBe(0);
    expect(reserve.latencyAllMs.max).toBe(0);
    expect(s.byProviderGroup['inventory']!.executions).toBe(0);
  });

  it('ends an attempt with nothing left with Dubbo\'s TIMEOUT_TERMINATE as a result, which failover returns without retrying', () => {
    const calls: Call[] = [];
    run([...SHORT, COUNTDOWN], calls);
    const lower = calls.filter((c) => c.service === 'com.example.InventoryService');
    expect(lower.length).toBeGreaterThan(200);
    for (const c of lower) {
      expect(c.to).toBe('0');
      expect(c.result).toEqual({
        kind: 'ok',
        bizException: 'No time left for making the following call: com.example.InventoryService.reserve, terminate directly.',
        rpcException: {
          code: 8,
          message: 'No time left for making the following call: com.example.InventoryService.reserve, terminate directly.',
          cause: 'timeout:terminate',
        },
      });
    }
  });

  it('lets a tier turn it off for its own calls (enable-timeout-countdown=false on its reference)', () => {
    const s = run([...SHORT, COUNTDOWN, 'services["com.example.OrderService"].methods.place.calls[0].reference.parameters={enable-timeout-countdown: false}']);
    expect(s.byService[RESERVE]!.retryAmplification).toBe(3);
  });
});

describe('call-graph-amplification: the timeout-countdown strategy', () => {
  const written = run([], undefined, 'as-written');
  const countdown = run([], undefined, 'timeout-countdown');
  const perEdgeRequest = (s: Summary) => s.byService[RESERVE]!.providerExecutions / s.byService[PLACE]!.requests;

  it('leaves the scenario as written at 3 x 3 = 9 executions of reserve per web request', () => {
    expect(perEdgeRequest(written)).toBeGreaterThan(8.9);
    expect(perEdgeRequest(written)).toBeLessThan(9.1);
  });

  it('bounds them to 3 x 1: the first reserve attempt gets what is left (998 ms), the retry is terminated', () => {
    const reserve = countdown.byService[RESERVE]!;
    expect(perEdgeRequest(countdown)).toBeGreaterThan(2.9);
    expect(perEdgeRequest(countdown)).toBeLessThan(3.1);
    // Two invokes per reserve call: the one sent and the retry ended before sending (an attempt, no execution).
    expect(reserve.retryAmplification).toBe(2);
    expect(reserve.providerExecutions).toBe(reserve.requests);
    expect(reserve.outcomes.timeout).toBe(reserve.requests);
    // Every reserve call ends when place's budget does: 998 ms after it started.
    expect(reserve.latencyAllMs.p50).toBeCloseTo(998, 0);
    expect(reserve.latencyAllMs.max).toBeLessThan(999);
  });

  it('keeps the edge as Dubbo has it: each place attempt gets a fresh budget, so web still makes three', () => {
    const place = countdown.byService[PLACE]!;
    expect(place.outcomes.timeout).toBe(place.requests);
    expect(place.retryAmplification).toBe(3);
  });

  it('frees the order threads three times sooner: place holds a thread 1000 ms instead of 3002', () => {
    const busy = (s: Summary) => s.byProviderGroup['order']!.utilization;
    expect(busy(written) / busy(countdown)).toBeGreaterThan(2.9);
    expect(busy(written) / busy(countdown)).toBeLessThan(3.1);
  });
});
