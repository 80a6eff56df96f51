/**
 * A YAML condition rule as one router (ConditionRuleRouter): its conditions in sequence, the trace
 * it gives for one condition and for several (the one that emptied the list, or each step), the
 * route key and routing inputs it declares from its conditions', whether its result depends only on
 * the consumer's parameters, `valid: false`, and the null conditions Dubbo 2.7 and 3.3 read apart.
 */
import { describe, expect, it } from 'vitest';
import { ConditionRuleRouter, mergeInputs, parseConditionRule } from '../../../../src/dubbo/router/condition/condition-rule-router.js';
import { NO_INPUTS } from '../../../../src/dubbo/router/condition/condition-state-router.js';
import { DUBBO_2_7, DUBBO_3_3 } from '../../../../src/dubbo/release.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { URL } from '../../../../src/dubbo/url.js';
import { RandomStreams } from '../../../../src/engine/random.js';
import { indicesIn, invokersOf } from '../fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.5/com.example.UserService?application=web&env=gray');
const PROVIDERS = [
  'dubbo://10.20.3.1:20880/com.example.UserService?env=gray&region=hangzhou',
  'dubbo://10.20.3.2:20880/com.example.UserService?env=normal&region=beijing',
  'dubbo://10.30.3.3:20880/com.example.UserService?region=hangzhou',
  'dubbo://10.30.3.4:20880/com.example.UserService?env=gray&region=beijing',
];
const call = (methodName = 'getUser') => new RpcInvocation({ methodName });
const yamlRule = (...conditions: string[]) => `conditions:\n${conditions.map((c) => `  - "${c}"`).join('\n')}`;

function rule(text: string, options: Parameters<typeof parseConditionRule>[1] = {}): ConditionRuleRouter {
  const router = parseConditionRule(text, options);
  if (!(router instanceof ConditionRuleRouter)) throw new Error('expected a YAML rule');
  return router;
}

describe('conditions in sequence', () => {
  it('gives a one-condition rule the trace of its condition, with that condition as its one step', () => {
    const invokers = invokersOf(PROVIDERS);
    const trace = rule(yamlRule('=> region = beijing')).route(invokers, CONSUMER, call()).trace;
    const step = { router: 'condition', rule: '=> region = beijing', matchedWhen: true, before: 4, after: 2, note: 'the then-part matched 2 of 4 providers' };
    expect(trace).toEqual({ ...step, steps: [step] });
  });

  it('lists each condition as matched (before→after) or not matched in the note of a longer rule', () => {
    const invokers = invokersOf(PROVIDERS);
    const router = rule(yamlRule('=> region = beijing', 'env = normal => region = hangzhou', '=> env = gray'));
    const result = router.route(invokers, CONSUMER, call());
    expect(indicesIn(invokers, result.invokers)).toEqual([3]);
    expect(result.trace).toMatchObject({
      router: 'condition',
      rule: '=> region = beijing; env = normal => region = hangzhou; => env = gray',
      matchedWhen: true,
      before: 4,
      after: 1,
      note: '3 conditions in sequence: #1 4→2, #2 not matched, #3 2→1',
    });
    expect(result.trace.steps).toHaveLength(3);
  });

  it('reports matchedWhen false when no condition selected the consumer', () => {
    const invokers = invokersOf(PROVIDERS);
    const result = rule(yamlRule('env = normal => region = hangzhou', 'host = 9.9.9.9 => env = gray')).route(invokers, CONSUMER, call());
    expect(result.invokers).toBe(invokers);
    expect(result.trace).toMatchObject({ matchedWhen: false, after: 4, note: '2 conditions in sequence: #1 not matched, #2 not matched' });
  });

  it('stops at the condition that left no provider, names it, and runs none after it', () => {
    const invokers = invokersOf(PROVIDERS);
    const result = rule(yamlRule('=> region = beijing', 'host = 10.20.1.5 => false', '=> env = gray')).route(invokers, CONSUMER, call());
    expect(result.invokers).toEqual([]);
    expect(result.trace.steps).toHaveLength(2);
    expect(result.trace.note).toBe(
      'condition 2 of 3 ("host = 10.20.1.5 => false"): the then-part is empty or false: a blocklist, this consumer gets no provider (force does not matter)',
    );
  });

  it('says no provider reached the rule when given an empty list', () => {
    const one = rule(yamlRule('=> region = beijing')).route([], CONSUMER, call()).trace;
    expect(one).toMatchObject({ router: 'condition', rule: '=> region = beijing', matchedWhen: false, before: 0, after: 0, note: 'no provider reached this rule' });
    const two = rule(yamlRule('=> region = beijing', '=> env = gray')).route([], CONSUMER, call()).trace;
    expect(two).toMatchObject({ before: 0, after: 0, note: '2 conditions in sequence: #1 not matched' });
  });

  it('ignores every condition of a valid: false rule, and says so', () => {
    const invokers = invokersOf(PROVIDERS);
    const result = rule(`valid: false\n${yamlRule('=> false', '=> region = beijing')}`).route(invokers, CONSUMER, call());
    expect(result.invokers).toBe(invokers);
    expect(result.trace).toEqual({
      router: 'condition',
      rule: '=> false; => region = beijing',
      matchedWhen: false,
      before: 4,
      after: 4,
      note: 'valid: false, so Dubbo ignores the rule',
    });
  });
});

describe('route keys and routing inputs of a rule', () => {
  it('joins its conditions’ keys in order', () => {
    const router = rule(yamlRule('env = gray => region = beijing', 'env = normal => region = hangzhou'));
    const [a, b] = router.routers;
    expect(router.routeKey(CONSUMER, call())).toBe(a!.routeKey(CONSUMER, call()) + b!.routeKey(CONSUMER, call()));
    expect(a!.routeKey(CONSUMER, call())).not.toBe(b!.routeKey(CONSUMER, call()));
  });

  it('tells apart consumers whose conditions match in a different order', () => {
    // Each condition fails on its one key the same way for the other consumer: only the position of the match differs.
    const router = rule(yamlRule('env = gray => region = beijing', 'env = normal => region = hangzhou'));
    const normal = URL.valueOf('consumer://10.20.1.6/com.example.UserService?application=web&env=normal');
    expect(router.routeKey(CONSUMER, call())).not.toBe(router.routeKey(normal, call()));
  });

  it('tells apart consumers whose v3.1 conditions match in a different order', () => {
    const router = rule('configVersion: v3.1\nconditions:\n  - { from: { match: env=gray }, to: [{ match: region=beijing }] }\n  - { from: { match: env=normal }, to: [{ match: region=hangzhou }] }');
    const normal = URL.valueOf('consumer://10.20.1.6/com.example.UserService?application=web&env=normal');
    expect(router.routeKey(CONSUMER, call())).not.toBe(router.routeKey(normal, call()));
  });

  it('declares the union of what its conditions read', () => {
    const router = rule(yamlRule('method = getUser & attachments[lane] = blue => region = beijing', 'attachments[lane] = red & arguments[1] = x => env = gray', 'arguments[0] = y & attachments[user] = 1 => env = gray'));
    expect(router.routingInputs()).toEqual({ method: true, attachments: ['lane', 'user'], arguments: [1, 0], random: false });
    const noMethod = rule(yamlRule('attachments[lane] = blue => region = beijing', 'host = 1.1.1.1 => env = gray'));
    expect(noMethod.routingInputs()).toEqual({ method: false, attachments: ['lane'], arguments: [], random: false });
  });

  it('declares a random draw when one of its v3.1 conditions has several destinations', () => {
    const text = 'configVersion: v3.1\nconditions:\n  - to: [{ match: region=beijing }]\n  - to: [{ match: env=gray }, { match: region=hangzhou }]';
    expect(rule(text, { runtime: { random: new RandomStreams(1).stream('route') } }).routingInputs().random).toBe(true);
  });

  it('declares nothing for a valid: false rule', () => {
    expect(rule(`valid: false\n${yamlRule('method = a => region = beijing')}`).routingInputs()).toBe(NO_INPUTS);
  });

  it('merges nothing into no input, and one set of inputs into itself', () => {
    const one = { method: true, attachments: ['a'], arguments: [2], random: true };
    expect(mergeInputs([])).toBe(NO_INPUTS);
    expect(mergeInputs([one])).toBe(one);
    expect(mergeInputs([NO_INPUTS, one])).toEqual(one);
    expect(mergeInputs([one, NO_INPUTS])).toEqual(one);
  });
});

describe('routesByParameters', () => {
  it('is true when every condition is v3.0 and no then-part reads the consumer address', () => {
    expect(rule(yamlRule('host = 10.20.* => env = $env', '=> region = beijing')).routesByParameters()).toBe(true);
  });

  it('is false when a then-part reads the consumer address, and for v3.1 conditions', () => {
    expect(rule(yamlRule('=> region = beijing', '=> host = $host')).routesByParameters()).toBe(false);
    expect(rule('configVersion: v3.1\nconditions:\n  - to: [{ match: region=beijing }]').routesByParameters()).toBe(false);
  });
});

describe('null conditions (`- ~`)', () => {
  it('reads a null item as the text "null" in 3.3: a then-part no provider matches', () => {
    const invokers = invokersOf(PROVIDERS);
    const router = rule('force: true\nconditions:\n  - ~', { runtime: { release: DUBBO_3_3 } });
    expect(router.route(invokers, CONSUMER, call()).invokers).toEqual([]);
    expect(router.label).toBe('null');
  });

  it('refuses a rule with a null item under 2.7, naming the first one', () => {
    expect(() => rule('conditions:\n  - => region = beijing\n  - ~\n  - ~', { runtime: { release: DUBBO_2_7 } })).toThrow(
      'condition rule: conditions[1] is null: Dubbo 2.7 cannot build a condition from it ("Illegal route rule!") and drops the whole rule',
    );
  });

  it('accepts a 2.7 rule without null items', () => {
    expect(rule(yamlRule('=> region = beijing'), { runtime: { release: DUBBO_2_7 } }).routers).toHaveLength(1);
  });
});
