/**
 * A condition router as many consumer instances use it: each consumer gets its own answer from a
 * then-part that reads it (`$env`, `$host`), whether one router serves several consumers in turn or
 * each instance has its own router over the shared pushed list; a sub-list (providers set aside) keeps
 * only its own providers; which rules read the consumer's address; and the route keys and inputs a
 * disabled or unconditional rule declares.
 */
import { describe, expect, it } from 'vitest';
import { ConditionStateRouter, NO_INPUTS } from '../../../../src/dubbo/router/condition/condition-state-router.js';
import { DUBBO_2_7 } from '../../../../src/dubbo/release.js';
import { markSubList } from '../../../../src/dubbo/per-list.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { URL } from '../../../../src/dubbo/url.js';
import { indicesIn, invokersOf } from '../fixtures.js';

const IFACE = 'com.example.UserService';
const GRAY = URL.valueOf(`consumer://10.20.1.5/${IFACE}?application=web&env=gray`);
const NORMAL = URL.valueOf(`consumer://10.20.1.6/${IFACE}?application=web&env=normal`);
// Same parameters as GRAY, another host.
const GRAY_OTHER_HOST = URL.valueOf(`consumer://10.20.3.2/${IFACE}?application=web&env=gray`);
const PROVIDERS = [
  `dubbo://10.20.1.5:20880/${IFACE}?env=gray`,
  `dubbo://10.20.3.2:20880/${IFACE}?env=normal`,
  `dubbo://10.20.1.6:20880/${IFACE}?env=gray`,
];
const call = (methodName = 'getUser', args: unknown[] = []) => new RpcInvocation({ methodName, arguments: args });

describe('then-parts that read the consumer URL', () => {
  it('gives each consumer its own providers when one router serves them in turn ($env)', () => {
    const invokers = invokersOf(PROVIDERS);
    const router = new ConditionStateRouter('=> env = $env');
    const routeFor = (consumer: URL) => indicesIn(invokers, router.route(invokers, consumer, call()).invokers);
    expect(routeFor(GRAY)).toEqual([0, 2]);
    expect(routeFor(NORMAL)).toEqual([1]);
    expect(routeFor(GRAY)).toEqual([0, 2]);
    expect(router.matchThen(invokers[1]!.getUrl(), NORMAL)).toBe(true);
    expect(router.matchThen(invokers[1]!.getUrl(), GRAY)).toBe(false);
  });

  it('gives consumers with their own routers over the shared list their own providers ($env)', () => {
    const invokers = invokersOf(PROVIDERS);
    const gray = new ConditionStateRouter('=> env = $env').route(invokers, GRAY, call()).invokers;
    const normal = new ConditionStateRouter('=> env = $env').route(invokers, NORMAL, call()).invokers;
    expect(indicesIn(invokers, gray)).toEqual([0, 2]);
    expect(indicesIn(invokers, normal)).toEqual([1]);
  });

  it('gives consumers with the same parameters but other hosts their own providers ($host)', () => {
    const invokers = invokersOf(PROVIDERS);
    const rule = '=> host = $host';
    expect(indicesIn(invokers, new ConditionStateRouter(rule).route(invokers, GRAY, call()).invokers)).toEqual([0]);
    expect(indicesIn(invokers, new ConditionStateRouter(rule).route(invokers, GRAY_OTHER_HOST, call()).invokers)).toEqual([1]);
  });

  it('keeps only the providers of a sub-list, in its order, after routing its parent', () => {
    const invokers = invokersOf([...PROVIDERS, `dubbo://10.20.1.7:20880/${IFACE}?env=gray`]);
    const sub = [invokers[0]!, invokers[1]!, invokers[3]!];
    markSubList(sub, invokers, [2]);
    const router = new ConditionStateRouter('=> env = gray');
    expect(indicesIn(invokers, router.route(invokers, GRAY, call()).invokers)).toEqual([0, 2, 3]);
    expect(indicesIn(invokers, router.route(sub, GRAY, call()).invokers)).toEqual([0, 3]);
    // A sub-list whose every provider matches comes back as itself.
    const graySub = [invokers[0]!, invokers[3]!];
    markSubList(graySub, invokers, [1, 2]);
    expect(router.route(graySub, GRAY, call()).invokers).toBe(graySub);
  });
});

describe('thenReadsConsumerAddress', () => {
  it('is true for a then-part $host, $port, $username or $password, in = or !=', () => {
    for (const rule of ['=> host = $host', '=> port = $port', '=> u = $username', '=> p = $password', '=> host != $host', '=> region = a, $host']) {
      expect(new ConditionStateRouter(rule).thenReadsConsumerAddress(), rule).toBe(true);
    }
  });

  it('is false for parameter references, literal values and blocklists', () => {
    for (const rule of ['=> env = $env', '=> host = host', '=> region = xhost', '=> host = $hostname', 'host = $host => env = gray', '=> false']) {
      expect(new ConditionStateRouter(rule).thenReadsConsumerAddress(), rule).toBe(false);
    }
  });
});

describe('route keys and routing inputs', () => {
  it('declares no input for a disabled rule, whatever its when-part reads', () => {
    expect(new ConditionStateRouter('method = getUser & arguments[0] = a => env = gray', { enabled: false }).routingInputs()).toBe(NO_INPUTS);
  });

  it('gives a disabled rule one key for every consumer and call', () => {
    const router = new ConditionStateRouter('env = gray => env = gray', { enabled: false });
    expect(router.routeKey(NORMAL, call())).toBe(router.routeKey(GRAY, call()));
  });

  it('gives a rule without a when-part one key for every consumer and call', () => {
    const router = new ConditionStateRouter('=> env = gray');
    expect(router.routeKey(NORMAL, call('a'))).toBe(router.routeKey(GRAY, call('b')));
  });

  it('tells a matching consumer from a missing one by key', () => {
    const router = new ConditionStateRouter('env = gray => env = gray');
    expect(router.routeKey(NORMAL, call())).not.toBe(router.routeKey(GRAY, call()));
  });

  it('keys a 2.7 generic call by its own name ($invoke), not by the method it names', () => {
    // 2.7's ConditionRouter reads invocation.getMethodName(): `$invoke` never equals getUser.
    const router = new ConditionStateRouter('method = getUser => env = gray', { runtime: { release: DUBBO_2_7 } });
    const direct = router.routeKey(GRAY, call('getUser'));
    const generic = router.routeKey(GRAY, call('$invoke', ['getUser', [], []]));
    expect(generic).not.toBe(direct);
    expect(generic).toBe(new ConditionStateRouter('method = getUser => env = gray', { runtime: { release: DUBBO_2_7 } }).routeKey(GRAY, call('$invoke', ['getUser', [], []])));
  });
});
