/**
 * One v3.1 condition (MultiDestConditionRouter): which consumers `from` selects, what each `to`
 * destination matches, the weighted draw among the non-empty destinations (DestinationSet.randDestination:
 * r = nextLong(sum of their weights), subtract in order, the first with r <= 0 wins), force, blocklists,
 * the trace of each outcome, the rule text traces show, and the route keys and inputs.
 */
import { describe, expect, it } from 'vitest';
import { FORCE_EMPTY_EVENT, NO_INPUTS } from '../../../../src/dubbo/router/condition/condition-state-router.js';
import {
  DEFAULT_SUBSET_WEIGHT,
  MultiDestConditionRouter,
  type MultiDestCondition,
} from '../../../../src/dubbo/router/condition/multi-dest-condition-router.js';
import type { Rng } from '../../../../src/engine/random.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { URL } from '../../../../src/dubbo/url.js';
import { countingEvents, indicesIn, invokersOf } from '../fixtures.js';

const IFACE = 'com.example.UserService';
const GRAY = URL.valueOf(`consumer://10.20.1.5/${IFACE}?application=web&env=gray`);
const NORMAL = URL.valueOf(`consumer://10.20.1.6/${IFACE}?application=web&env=normal`);
const PROVIDERS = [
  `dubbo://10.20.3.1:20880/${IFACE}?env=gray&region=hangzhou`,
  `dubbo://10.20.3.2:20880/${IFACE}?env=normal&region=beijing`,
  `dubbo://10.20.3.3:20880/${IFACE}?env=gray&region=beijing`,
];
const call = (methodName = 'getUser') => new RpcInvocation({ methodName });

/** A random stream that answers nextInt with the given draws in turn and records the bounds it was asked for. */
function scripted(...draws: number[]): Rng & { bounds: number[] } {
  const bounds: number[] = [];
  return {
    bounds,
    next: () => {
      throw new Error('the draw uses nextInt');
    },
    nextInt: (n: number) => {
      bounds.push(n);
      const r = draws.shift();
      if (r === undefined) throw new Error('no draw left');
      return r;
    },
  };
}

function routeOnce(condition: MultiDestCondition, options: ConstructorParameters<typeof MultiDestConditionRouter>[1] = {}, consumer = GRAY) {
  const invokers = invokersOf(PROVIDERS);
  const result = new MultiDestConditionRouter(condition, options).route(invokers, consumer, call());
  return { invokers, result, idx: indicesIn(invokers, result.invokers), trace: result.trace };
}

describe('the weighted draw among destinations', () => {
  const twoDests: MultiDestCondition = { from: {}, to: [{ match: 'region=hangzhou', weight: 1 }, { match: 'region=beijing', weight: 3 }] };

  it('draws r in [0, sum of weights) and gives the first destination r = 0 and r = its weight', () => {
    for (const r of [0, 1]) {
      const random = scripted(r);
      expect(routeOnce(twoDests, { runtime: { random } }).idx, `r = ${r}`).toEqual([0]);
      expect(random.bounds).toEqual([4]);
    }
  });

  it('gives the second destination every r above the first weight', () => {
    for (const r of [2, 3]) expect(routeOnce(twoDests, { runtime: { random: scripted(r) } }).idx, `r = ${r}`).toEqual([1, 2]);
  });

  it('gives no provider for a draw past the weight sum, as randDestination falls back to an empty list', () => {
    // Only a stream that breaks its contract (nextInt(n) < n) gets here.
    const { idx, trace } = routeOnce(twoDests, { runtime: { random: scripted(5) } });
    expect(idx).toEqual([]);
    expect(trace).toMatchObject({ matchedWhen: true, after: 0, note: 'no destination drawn' });
  });

  it('leaves destinations that match no provider out of the draw and of the weight sum', () => {
    const random = scripted(150);
    const condition: MultiDestCondition = {
      from: {},
      to: [{ match: 'region=shanghai', weight: 50 }, { match: 'region=hangzhou', weight: 100 }, { match: 'region=beijing', weight: 100 }],
    };
    const { idx, trace } = routeOnce(condition, { runtime: { random } });
    expect(random.bounds).toEqual([200]);
    // 150 - 100 > 0, then 50 - 100 <= 0: the third destination.
    expect(idx).toEqual([1, 2]);
    expect(trace).toMatchObject({ matchedWhen: true, after: 2, note: 'drew destination 3 of 2 non-empty (weight 100 of 200): 2 of 3 providers' });
  });

  it('takes the only non-empty destination without a draw', () => {
    const random = scripted();
    const condition: MultiDestCondition = { from: {}, to: [{ match: 'region=shanghai' }, { match: 'region=beijing' }] };
    const { idx, trace } = routeOnce(condition, { runtime: { random } });
    expect(idx).toEqual([1, 2]);
    expect(random.bounds).toEqual([]);
    expect(trace).toMatchObject({ matchedWhen: true, before: 3, after: 2, note: 'only destination 2 matched providers: 2 of 3' });
  });

  it('weighs a destination without a weight, or with one <= 0, at 100', () => {
    expect(DEFAULT_SUBSET_WEIGHT).toBe(100);
    for (const weight of [undefined, 0, -5]) {
      const random = scripted(0);
      routeOnce({ from: {}, to: [{ match: 'region=hangzhou', weight }, { match: 'region=beijing', weight: 1 }] }, { runtime: { random } });
      expect(random.bounds, `weight ${weight}`).toEqual([101]);
    }
  });

  it('hands out the drawn destination itself when it matches every provider', () => {
    const condition: MultiDestCondition = { from: {}, to: [{ match: 'host = 10.20.*', weight: 1 }, { match: 'region=beijing', weight: 1 }] };
    const { invokers, result } = routeOnce(condition, { runtime: { random: scripted(0) } });
    expect(result.invokers).toBe(invokers);
  });
});

describe('destinations and outcomes', () => {
  it('reads a blank or `false` destination as every provider (unlike v3.0)', () => {
    for (const match of [undefined, '', '  ', 'false']) {
      // Forced, so that a destination matching no provider would leave none.
      const { invokers, result, trace } = routeOnce({ from: {}, to: [{ match }] }, { force: true });
      expect(result.invokers, String(match)).toBe(invokers);
      expect(trace.note).toBe('only destination 1 matched providers: 3 of 3');
    }
  });

  it('reads an invalid range as true in a destination and false in from (RangeValuePattern default)', () => {
    // `20880~` splits to one part: invalid.
    expect(routeOnce({ from: {}, to: [{ match: 'port = 20880~' }] }, { force: true }).idx).toEqual([0, 1, 2]);
    const lane = new RpcInvocation({ methodName: 'getUser', attachments: { uid: '500' } });
    const router = new MultiDestConditionRouter({ from: { match: 'attachments[uid] = 100~' }, to: [] });
    expect(router.matchWhen(GRAY, lane)).toBe(false);
    expect(new MultiDestConditionRouter({ from: { match: 'attachments[uid] = 100~1000' }, to: [] }).matchWhen(GRAY, lane)).toBe(true);
  });

  it('selects every consumer with a blank or `true` from, and only matching ones otherwise', () => {
    const to = [{ match: 'region=beijing' }];
    for (const match of [undefined, ' ', 'true']) expect(routeOnce({ from: { match }, to }, {}, NORMAL).idx).toEqual([1, 2]);
    expect(routeOnce({ from: { match: 'env=gray' }, to }, {}, GRAY).idx).toEqual([1, 2]);
    const skipped = routeOnce({ from: { match: 'env=gray' }, to }, {}, NORMAL);
    expect(skipped.result.invokers).toBe(skipped.invokers);
    expect(skipped.trace).toMatchObject({
      matchedWhen: false,
      after: 3,
      note: 'the from-part does not match this consumer/call, so the condition is skipped: the consumer\'s env is "normal", the rule wants = gray',
    });
  });

  it('gives a matching consumer no provider when there is no destination, whatever force says', () => {
    const { idx, trace } = routeOnce({ from: { match: 'env=gray' }, to: [] });
    expect(idx).toEqual([]);
    expect(trace).toMatchObject({
      matchedWhen: true,
      after: 0,
      note: 'no `to` destinations: a blocklist, this consumer gets no provider (force does not matter)',
    });
  });

  it('passes all when no destination matches and force is false, without counting a forced empty result', () => {
    const events = countingEvents();
    const { invokers, result, trace } = routeOnce({ from: {}, to: [{ match: 'region=shanghai' }] }, { runtime: { events } });
    expect(result.invokers).toBe(invokers);
    expect(trace).toMatchObject({ matchedWhen: true, after: 3 });
    expect(trace.note).toBe('no destination matched any of 3 providers; force: false, so the condition is ignored and all pass');
    expect(events.counts.size).toBe(0);
  });

  it('returns no provider when no destination matches under force, and counts it', () => {
    const events = countingEvents();
    const { idx, trace } = routeOnce({ from: {}, to: [{ match: 'region=shanghai' }] }, { force: true, runtime: { events } });
    expect(idx).toEqual([]);
    expect(trace).toMatchObject({ matchedWhen: true, after: 0, note: 'force: true and no destination matched any of 3 providers' });
    expect(events.counts.get(FORCE_EMPTY_EVENT)).toBe(1);
  });

  it('passes everything through when disabled, and says so', () => {
    const { invokers, result, trace } = routeOnce({ from: {}, to: [] }, { enabled: false });
    expect(result.invokers).toBe(invokers);
    expect(trace).toEqual({
      router: 'condition',
      rule: 'true => (blocklist)',
      matchedWhen: false,
      before: 3,
      after: 3,
      note: 'enabled: false, so the rule passes every provider through',
    });
  });

  it('says no provider reached it for an empty list', () => {
    const empty: ReturnType<typeof invokersOf> = [];
    const result = new MultiDestConditionRouter({ from: {}, to: [] }).route(empty, GRAY, call());
    expect(result.invokers).toBe(empty);
    expect(result.trace).toMatchObject({ matchedWhen: false, before: 0, after: 0, note: 'no provider reached this rule' });
  });

  it('gives each consumer its own providers for a destination that reads it ($env)', () => {
    const invokers = invokersOf(PROVIDERS);
    const router = new MultiDestConditionRouter({ from: {}, to: [{ match: 'env = $env' }] });
    expect(indicesIn(invokers, router.route(invokers, GRAY, call()).invokers)).toEqual([0, 2]);
    expect(indicesIn(invokers, router.route(invokers, NORMAL, call()).invokers)).toEqual([1]);
    expect(indicesIn(invokers, router.route(invokers, GRAY, call()).invokers)).toEqual([0, 2]);
  });

  it('takes force, enabled and order 140 as defaults', () => {
    const router = new MultiDestConditionRouter({ from: {}, to: [] });
    expect([router.force, router.enabled, router.order]).toEqual([false, true, 140]);
    expect(new MultiDestConditionRouter({ from: {}, to: [] }, { order: 150 }).order).toBe(150);
  });
});

describe('the rule text in traces', () => {
  it('writes from, each destination and its weight, blank ones as (all)', () => {
    const router = new MultiDestConditionRouter({ from: { match: ' env=gray ' }, to: [{ match: ' region=beijing ', weight: 30 }, { match: '' }] }, {
      runtime: { random: scripted() },
    });
    expect(router.rule).toBe('env=gray => region=beijing [weight 30] | (all) [weight 100]');
    expect(new MultiDestConditionRouter({ from: { match: '  ' }, to: [{}] }).rule).toBe('true => (all) [weight 100]');
  });
});

describe('construction, route keys and routing inputs', () => {
  it('needs a random stream for several destinations, but not when disabled', () => {
    const condition: MultiDestCondition = { from: { match: 'env=gray' }, to: [{ match: 'a=b' }, { match: 'c=d' }] };
    expect(() => new MultiDestConditionRouter(condition)).toThrow(
      'v3.1 condition "env=gray => a=b [weight 100] | c=d [weight 100]" has several destinations and needs a random stream (runtime.random)',
    );
    expect(() => new MultiDestConditionRouter(condition, { runtime: {} })).toThrow(/needs a random stream/);
    expect(new MultiDestConditionRouter(condition, { enabled: false }).routingInputs()).toBe(NO_INPUTS);
  });

  it('declares what from reads, and random only with several destinations', () => {
    const one = new MultiDestConditionRouter({ from: { match: 'method = getUser & attachments[lane] = blue' }, to: [{ match: 'a=b' }] });
    expect(one.routingInputs()).toEqual({ method: true, attachments: ['lane'], arguments: [], random: false });
    const two = new MultiDestConditionRouter({ from: {}, to: [{ match: 'a=b' }, { match: 'c=d' }] }, { runtime: { random: scripted() } });
    expect(two.routingInputs()).toEqual({ method: false, attachments: [], arguments: [], random: true });
  });

  it('keys the from decision: one key for all when from is empty or the rule disabled, match and miss apart', () => {
    const to = [{ match: 'region=beijing' }];
    const always = new MultiDestConditionRouter({ from: {}, to });
    expect(always.routeKey(GRAY, call())).toBe(always.routeKey(NORMAL, call()));
    const disabled = new MultiDestConditionRouter({ from: { match: 'env=gray' }, to }, { enabled: false });
    expect(disabled.routeKey(GRAY, call())).toBe(disabled.routeKey(NORMAL, call()));
    const gray = new MultiDestConditionRouter({ from: { match: 'env=gray' }, to });
    expect(gray.routeKey(GRAY, call())).not.toBe(gray.routeKey(NORMAL, call()));
    // A miss on another key is another key: the trace names the key that failed.
    const two = new MultiDestConditionRouter({ from: { match: 'env=gray & method=getUser' }, to });
    expect(new Set([two.routeKey(GRAY, call()), two.routeKey(NORMAL, call()), two.routeKey(GRAY, call('other'))]).size).toBe(3);
  });

  it('matches from against the consumer and the call', () => {
    const router = new MultiDestConditionRouter({ from: { match: 'env=gray & method=getUser' }, to: [] });
    expect(router.matchWhen(GRAY, call())).toBe(true);
    expect(router.matchWhen(GRAY, call('other'))).toBe(false);
    expect(router.matchWhen(NORMAL, call())).toBe(false);
    expect(new MultiDestConditionRouter({ from: {}, to: [] }).matchWhen(NORMAL, null)).toBe(true);
  });
});
