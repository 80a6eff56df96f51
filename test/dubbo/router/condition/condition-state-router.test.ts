/**
 * The condition grammar and routing outcomes beyond the vectors: text preprocessing, the
 * tokenizer, matcher kinds, ranges, globs, `$` references, blocklists, force and enabled.
 */
import { describe, expect, it } from 'vitest';
import { ConditionStateRouter, FORCE_EMPTY_EVENT } from '../../../../src/dubbo/router/condition/condition-state-router.js';
import { RouterRuleError } from '../../../../src/dubbo/router/router-rule-error.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { URL } from '../../../../src/dubbo/url.js';
import { RandomStreams } from '../../../../src/engine/random.js';
import { countingEvents, indicesIn, invokersOf } from '../fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.5/com.example.UserService?application=web&env=gray&zone=zoneA');
const PROVIDERS = [
  'dubbo://10.20.3.1:20880/com.example.UserService?env=gray&region=hangzhou&method=getUser',
  'dubbo://10.20.3.2:20880/com.example.UserService?env=normal&region=beijing',
  'dubbo://10.30.3.3:20881/com.example.UserService?region=hangzhou',
];
const call = (methodName = 'getUser', attachments: Record<string, string> = {}, args: unknown[] = []) =>
  new RpcInvocation({ methodName, attachments, arguments: args });

function routeIdx(rule: string, options: { force?: boolean; enabled?: boolean } = {}, inv = call(), consumer = CONSUMER): number[] {
  const invokers = invokersOf(PROVIDERS);
  return indicesIn(invokers, new ConditionStateRouter(rule, options).route(invokers, consumer, inv).invokers);
}

describe('ConditionStateRouter text preprocessing and tokenizer', () => {
  it('deletes consumer. and provider. prefixes before parsing', () => {
    expect(routeIdx('consumer.host = 10.20.1.5 => provider.region = beijing')).toEqual([1]);
  });

  it('deletes consumer. and provider. even inside values', () => {
    // `region = beiprovider.jing` becomes `region = beijing`.
    expect(routeIdx('=> region = beiprovider.jing', { force: true })).toEqual([1]);
  });

  it('treats whitespace inside a value as the start of a new bare key that never matches', () => {
    // `region = hangzhou beijing` is region=hangzhou AND a bare key `beijing`: no provider passes.
    expect(routeIdx('=> region = hangzhou beijing', { force: true })).toEqual([]);
  });

  it('adds comma-separated values to the set used last', () => {
    expect(routeIdx('=> region = beijing, hangzhou & env != gray')).toEqual([1]);
  });

  it('rejects a comma before any value with Dubbo\'s message', () => {
    expect(() => new ConditionStateRouter('host = , 10.0.0.1 => region = x')).toThrow(RouterRuleError);
    expect(() => new ConditionStateRouter('=> , region = x')).toThrow(/Illegal route rule "[^"]*", The error char ',' at index 0 before "region"/);
  });

  it('rejects an unknown separator such as ==', () => {
    expect(() => new ConditionStateRouter('host == 10.0.0.1 => region = x')).toThrow(/The error char '=='/);
  });

  it('rejects a value with no key', () => {
    expect(() => new ConditionStateRouter('= 10.0.0.1 => region = x')).toThrow(/The error char '='/);
  });

  it('rejects an empty rule', () => {
    expect(() => new ConditionStateRouter('   ')).toThrow(RouterRuleError);
  });

  it('treats a rule without => as a then-part for every consumer', () => {
    expect(routeIdx('region = beijing')).toEqual([1]);
  });

  it('starts a fresh matcher when a key repeats without &', () => {
    // `region = beijing region = hangzhou`: the second bare `region` replaces the first.
    expect(routeIdx('=> region = beijing region = hangzhou')).toEqual([0, 2]);
  });
});

describe('ConditionStateRouter matching', () => {
  it('fails a != condition when the key is missing (3.x semantics)', () => {
    expect(routeIdx('=> env != gray')).toEqual([1]);
  });

  it('lets a mismatch win over a match for the same value', () => {
    expect(routeIdx('=> region = hangzhou & region != hangzhou', { force: true })).toEqual([]);
  });

  it('reads method in the when-part from the invocation, not the consumer URL', () => {
    expect(routeIdx('method = getUser => region = beijing', {}, call('getUser'))).toEqual([1]);
    expect(routeIdx('method = getUser => region = beijing', {}, call('updateUser'))).toEqual([0, 1, 2]);
  });

  it('unwraps a generic $invoke to the real method name', () => {
    expect(routeIdx('methods = getUser => region = beijing', {}, call('$invoke', {}, ['getUser', [], []]))).toEqual([1]);
  });

  it('reads method in the then-part from the provider URL parameter', () => {
    expect(routeIdx('=> method = getUser')).toEqual([0]);
  });

  it('reads attachments and arguments only in the when-part', () => {
    expect(routeIdx('attachments[user] = 7 => region = beijing', {}, call('getUser', { user: '7' }))).toEqual([1]);
    expect(routeIdx('arguments[1] = 42 => region = beijing', {}, call('getUser', {}, ['a', 42]))).toEqual([1]);
    // In a then-part the invocation is null: the sentinel never equals `7`; force makes that visible.
    expect(routeIdx('=> attachments[user] = 7', { force: true }, call('getUser', { user: '7' }))).toEqual([]);
  });

  it('gives the sentinel for an argument index equal to the argument count', () => {
    expect(routeIdx('arguments[2] = * => region = beijing', {}, call('getUser', {}, ['a', 'b']))).toEqual([1]);
    expect(routeIdx('arguments[2] != x => region = beijing', {}, call('getUser', {}, ['a', 'b']))).toEqual([1]);
  });

  it('fails an attachment key whose attachment is absent', () => {
    expect(routeIdx('attachments[user] != 7 => region = beijing', {}, call('getUser'))).toEqual([0, 1, 2]);
  });

  it('matches an inclusive integer range', () => {
    const router = new ConditionStateRouter('attachments[uid] = 10~20 => region = beijing');
    expect(router.matchWhen(CONSUMER, call('x', { uid: '10' }))).toBe(true);
    expect(router.matchWhen(CONSUMER, call('x', { uid: '20' }))).toBe(true);
    expect(router.matchWhen(CONSUMER, call('x', { uid: '21' }))).toBe(false);
  });

  it('treats a non-numeric value as 0 in a range', () => {
    const router = new ConditionStateRouter('attachments[uid] = ~5 => region = beijing');
    expect(router.matchWhen(CONSUMER, call('x', { uid: 'abc' }))).toBe(true);
    expect(router.matchWhen(CONSUMER, call('x', { uid: '-3' }))).toBe(true);
  });

  it('treats an invalid range (100~) as false in when and true in then', () => {
    expect(new ConditionStateRouter('attachments[uid] = 100~ => region = beijing').matchWhen(CONSUMER, call('x', { uid: '500' }))).toBe(false);
    expect(routeIdx('=> port = 20881~', { force: true })).toEqual([0, 1, 2]);
  });

  it('honours only the last * of a glob', () => {
    // `10.2*.3.*`: the prefix `10.2*.3.` is literal, so no provider host matches.
    expect(routeIdx('=> host = 10.2*.3.*', { force: true })).toEqual([]);
    expect(routeIdx('=> host = 10.20.3.*')).toEqual([0, 1]);
    expect(routeIdx('=> host = *.3')).toEqual([2]);
    expect(routeIdx('=> address = 10.*:20881')).toEqual([2]);
  });

  it('resolves $name against the consumer URL in then-parts only', () => {
    expect(routeIdx('=> env = $env')).toEqual([0]);
    // In the when-part `$env` is compared literally: the consumer's env is `gray`, not `$env`.
    expect(routeIdx('env = $env => region = beijing')).toEqual([0, 1, 2]);
  });

  it('gives $address the address parameter, which is usually absent', () => {
    expect(routeIdx('=> address = $address', { force: true })).toEqual([]);
  });

  it('matches the consumer against its original URL map (host, port, path, address)', () => {
    expect(routeIdx('path = com.example.UserService & host = 10.20.* => region = beijing')).toEqual([1]);
  });
});

describe('ConditionStateRouter outcomes', () => {
  it('returns no provider for a blocklist even without force', () => {
    expect(routeIdx('host = 10.20.1.5 => false')).toEqual([]);
    expect(routeIdx('host = 10.20.1.5 =>')).toEqual([]);
  });

  it('passes everything through when disabled', () => {
    expect(routeIdx('host = 10.20.1.5 => false', { enabled: false })).toEqual([0, 1, 2]);
  });

  it('ignores a rule whose then-part matches nobody when force is false', () => {
    const invokers = invokersOf(PROVIDERS);
    const result = new ConditionStateRouter('=> region = shanghai').route(invokers, CONSUMER, call());
    expect(result.invokers).toBe(invokers);
    expect(result.trace.note).toContain('force: false');
  });

  it('explains a forced empty result and counts the event', () => {
    const events = countingEvents();
    const invokers = invokersOf(PROVIDERS);
    const router = new ConditionStateRouter('host = 10.20.* => host = 10.0.1.*', { force: true, runtime: { events } });
    const result = router.route(invokers, CONSUMER, call());
    expect(result.invokers).toEqual([]);
    expect(result.trace).toEqual({
      router: 'condition',
      rule: 'host = 10.20.* => host = 10.0.1.*',
      matchedWhen: true,
      before: 3,
      after: 0,
      note: 'force: true and the then-part matched none of 3 providers',
    });
    expect(events.counts.get(FORCE_EMPTY_EVENT)).toBe(1);
  });

  it('reports matchedWhen false when the consumer is not concerned', () => {
    const invokers = invokersOf(PROVIDERS);
    const result = new ConditionStateRouter('host = 10.99.* => region = beijing').route(invokers, CONSUMER, call());
    expect(result.trace.matchedWhen).toBe(false);
    expect(result.invokers).toBe(invokers);
  });
});

describe('ConditionStateRouter routing inputs', () => {
  it('declares the attachments, arguments and method its when-part reads', () => {
    const router = new ConditionStateRouter('method = a & attachments[user] = 1 & arguments[2] = x & host = 1.1.1.1 => region = b');
    expect(router.routingInputs()).toEqual({ method: true, attachments: ['user'], arguments: [2], random: false });
  });

  it('declares nothing for a host/param-only rule', () => {
    expect(new ConditionStateRouter('host = 1.1.1.1 => method = a & arguments[0] = x').routingInputs()).toEqual({
      method: false,
      attachments: [],
      arguments: [],
      random: false,
    });
  });

  it('declares nothing for keys that always read the sentinel', () => {
    expect(new ConditionStateRouter('arguments = 1 & attachments = 2 => region = b').routingInputs().arguments).toEqual([]);
  });
});

describe('ConditionStateRouter route keys (memoised per consumer URL and method)', () => {
  const RULES = [
    'method = getUser => region = beijing',
    'method != get* & env = gray => region = hangzhou',
    'methods = getUser,listUsers & zone = zoneA => env = gray',
    'host = 10.20.* & method = update* => region = beijing',
    'application = web => region = beijing',
    'method = getUser & attachments[user] = 1* => region = beijing',
    'arguments[0] = vip & method = listUsers => env = gray',
    'env = normal => region = beijing',
  ];
  const CONSUMERS = [
    CONSUMER,
    URL.valueOf('consumer://10.30.7.9/com.example.UserService?application=web&env=normal&zone=zoneB'),
    URL.valueOf('consumer://10.20.2.2/com.example.UserService?application=admin&env=gray&zone=zoneA'),
  ];
  const METHODS = ['getUser', 'listUsers', 'updateUser', 'delete', '$invoke'];

  it('are the keys an unmemoised router gives, call after call, as consumer URL, method, attachments and arguments change', () => {
    const rng = new RandomStreams(11).stream('keys');
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)]!;
    const routers = RULES.map((rule) => new ConditionStateRouter(rule));
    let consumer = CONSUMER;
    const distinct = new Set<string>();
    for (let i = 0; i < 4000; i++) {
      if (rng.next() < 0.05) consumer = pick(CONSUMERS);
      const method = pick(METHODS);
      const args = method === '$invoke' ? [pick(METHODS)] : rng.next() < 0.5 ? ['vip'] : ['basic'];
      const inv = call(method, rng.next() < 0.5 ? { user: pick(['10', '20', '1']) } : {}, args);
      for (let r = 0; r < RULES.length; r++) {
        const key = routers[r]!.routeKey(consumer, inv);
        // The reference: a new router, with nothing memoised.
        expect(key).toBe(new ConditionStateRouter(RULES[r]!).routeKey(consumer, inv));
        distinct.add(`${r}:${key}`);
      }
    }
    // Both decisions (match, and misses) occur for the rules, so a memo that answered one key for all would fail.
    expect(distinct.size).toBeGreaterThan(2 * RULES.length);
  });
});
