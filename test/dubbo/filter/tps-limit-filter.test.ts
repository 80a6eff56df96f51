/** TpsLimitFilter, DefaultTPSLimiter and StatItem (dubbo-rpc-api `filter/TpsLimitFilter.java`, `filter/tps/*.java`). */
import { describe, expect, it } from 'vitest';
import { DefaultTPSLimiter, StatItem, TpsLimitFilter, tpsLimitExceeded } from '../../../src/dubbo/filter/tps-limit-filter.js';
import { URL } from '../../../src/dubbo/url.js';

/** The URL of Dubbo's tps tests: `test://test` with interface TpsService plus `query`. */
function tpsUrl(query: string): URL {
  return URL.valueOf(`test://test?interface=org.apache.dubbo.rpc.file.TpsService&${query}`);
}

const DEMO = 'dubbo://10.0.0.1:20880/com.example.DemoService?application=demo&methods=sayHello,echo';

/** Asks `n` times at `nowMs`; returns the answers. */
function ask(limiter: DefaultTPSLimiter, url: URL, method: string, nowMs: number, n: number): boolean[] {
  return Array.from({ length: n }, () => limiter.isAllowable(url, method, nowMs));
}

describe('StatItem', () => {
  it('allows rate calls in a window and blocks the next (StatItemTest#testAccuracy)', () => {
    const item = new StatItem('test', 5, 60_000, 0);
    expect([1, 2, 3, 4, 5, 6].map(() => item.isAllowable(0))).toEqual([true, true, true, true, true, false]);
  });

  it('refills after the interval and takes one token (StatItemTest#testIsAllowable)', () => {
    const item = new StatItem('test', 5, 1000, 0);
    expect(item.isAllowable(0)).toBe(true);
    expect(item.isAllowable(1100)).toBe(true);
    expect([item.getLastResetTime(), item.getToken()]).toEqual([1100, 4]);
  });

  it('keeps the old window at exactly lastResetTime + interval and refills 1 ms later (now > lastResetTime + interval)', () => {
    const item = new StatItem('test', 2, 1000, 0);
    expect([item.isAllowable(0), item.isAllowable(0), item.isAllowable(0)]).toEqual([true, true, false]);
    expect(item.isAllowable(1000)).toBe(false);
    expect([item.isAllowable(1001), item.isAllowable(1001), item.isAllowable(1001)]).toEqual([true, true, false]);
    expect(item.getLastResetTime()).toBe(1001);
  });

  it('reads time in whole milliseconds, as System.currentTimeMillis', () => {
    const item = new StatItem('test', 1, 1000, 0.7);
    item.isAllowable(0.7);
    expect(item.isAllowable(1000.9)).toBe(false);
    expect(item.isAllowable(1001)).toBe(true);
  });

  it('decrements on refused calls too and refills to exactly rate', () => {
    const item = new StatItem('test', 2, 1000, 0);
    for (let i = 0; i < 5; i++) item.isAllowable(10);
    expect(item.getToken()).toBe(-3);
    item.isAllowable(2000);
    expect(item.getToken()).toBe(1);
  });

  it('opens its window when it is created, not at a multiple of the interval', () => {
    const item = new StatItem('test', 1, 1000, 500);
    expect(item.isAllowable(500)).toBe(true);
    expect(item.isAllowable(1500)).toBe(false);
    expect(item.isAllowable(1501)).toBe(true);
  });

  it('prints as Dubbo does', () => {
    expect(String(new StatItem('svc', 3, 1000, 0))).toBe('StatItem [name=svc, rate = 3, interval = 1000]');
  });
});

describe('DefaultTPSLimiter', () => {
  it('allows rate calls within the interval (DefaultTPSLimiterTest#testIsAllowable)', () => {
    expect(ask(new DefaultTPSLimiter(), tpsUrl('tps=2&tps.interval=1000'), 'echo', 0, 2)).toEqual([true, true]);
  });

  it('refuses the call after rate (DefaultTPSLimiterTest#testIsNotAllowable)', () => {
    expect(ask(new DefaultTPSLimiter(), tpsUrl('tps=2&tps.interval=1000'), 'echo', 0, 3)).toEqual([true, true, false]);
  });

  it('allows again once the interval has passed: rate 2, interval 1000', () => {
    const limiter = new DefaultTPSLimiter();
    const url = tpsUrl('tps=2&tps.interval=1000');
    expect(ask(limiter, url, 'echo', 0, 3)).toEqual([true, true, false]);
    expect(ask(limiter, url, 'echo', 1000, 1)).toEqual([false]);
    expect(ask(limiter, url, 'echo', 1001, 3)).toEqual([true, true, false]);
  });

  it('takes <method>.tps over tps (DefaultTPSLimiterTest#testTPSLimiterForMethodLevelConfig)', () => {
    const url = tpsUrl('tps=2&echo.tps=3&tps.interval=1000');
    expect(ask(new DefaultTPSLimiter(), url, 'echo', 0, 4)).toEqual([true, true, true, false]);
  });

  it('re-creates the StatItem when the rate changes (DefaultTPSLimiterTest#testConfigChange)', () => {
    const limiter = new DefaultTPSLimiter();
    expect(ask(limiter, tpsUrl('tps=2&tps.interval=1000'), 'echo', 0, 2)).toEqual([true, true]);
    const answers = ask(limiter, tpsUrl('tps=20&tps.interval=1000'), 'echo', 0, 21);
    expect(answers.slice(0, 20).every(Boolean)).toBe(true);
    expect(answers[20]).toBe(false);
  });

  it('re-creates the StatItem, with a window from now, when the interval changes', () => {
    const limiter = new DefaultTPSLimiter();
    ask(limiter, tpsUrl('tps=1&tps.interval=1000'), 'echo', 0, 1);
    expect(ask(limiter, tpsUrl('tps=1&tps.interval=2000'), 'echo', 300, 2)).toEqual([true, false]);
    expect(limiter.getStatItem('org.apache.dubbo.rpc.file.TpsService')!.getLastResetTime()).toBe(300);
  });

  it('removes the StatItem and allows everything when tps <= 0', () => {
    const limiter = new DefaultTPSLimiter();
    const key = 'org.apache.dubbo.rpc.file.TpsService';
    ask(limiter, tpsUrl('tps=2'), 'echo', 0, 2);
    expect(ask(limiter, tpsUrl('tps=0'), 'echo', 0, 100).every(Boolean)).toBe(true);
    expect(limiter.getStatItem(key)).toBeUndefined();
    expect(ask(limiter, tpsUrl('tps=2'), 'echo', 0, 3)).toEqual([true, true, false]);
    expect(ask(limiter, tpsUrl('tps=-1'), 'echo', 0, 5).every(Boolean)).toBe(true);
    expect(limiter.getStatItem(key)).toBeUndefined();
  });

  it('uses tps.interval 60 000 ms by default (Constants.DEFAULT_TPS_LIMIT_INTERVAL)', () => {
    const limiter = new DefaultTPSLimiter();
    const url = tpsUrl('tps=1');
    expect(ask(limiter, url, 'echo', 0, 2)).toEqual([true, false]);
    expect(ask(limiter, url, 'echo', 60_000, 1)).toEqual([false]);
    expect(ask(limiter, url, 'echo', 60_001, 1)).toEqual([true]);
  });

  it('shares one StatItem among the methods of a service (keyed by url.getServiceKey())', () => {
    const limiter = new DefaultTPSLimiter();
    const url = URL.valueOf(`${DEMO}&tps=2&tps.interval=1000`);
    expect([limiter.isAllowable(url, 'sayHello', 0), limiter.isAllowable(url, 'echo', 0), limiter.isAllowable(url, 'sayHello', 0)]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('keeps a separate StatItem per group and version', () => {
    const limiter = new DefaultTPSLimiter();
    const v1 = URL.valueOf(`${DEMO}&tps=1&version=1.0`);
    const v2 = URL.valueOf(`${DEMO}&tps=1&version=2.0`);
    expect([limiter.isAllowable(v1, 'echo', 0), limiter.isAllowable(v2, 'echo', 0), limiter.isAllowable(v1, 'echo', 0)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(limiter.getStatItem('com.example.DemoService:1.0')).toBeDefined();
  });

  it('rebuilds the shared StatItem, tokens full, each time methods with different rates alternate', () => {
    const limiter = new DefaultTPSLimiter();
    const url = URL.valueOf(`${DEMO}&tps=1&echo.tps=2&tps.interval=1000`);
    const order = ['sayHello', 'sayHello', 'echo', 'sayHello', 'sayHello'];
    expect(order.map((m) => limiter.isAllowable(url, m, 0))).toEqual([true, false, true, true, false]);
  });

  it('drops the service StatItem when a method without a rate is called (rate -1 removes it)', () => {
    const limiter = new DefaultTPSLimiter();
    const url = URL.valueOf(`${DEMO}&echo.tps=1`);
    expect(ask(limiter, url, 'echo', 0, 2)).toEqual([true, false]);
    expect(limiter.isAllowable(url, 'sayHello', 0)).toBe(true);
    expect(ask(limiter, url, 'echo', 0, 2)).toEqual([true, false]);
  });
});

describe('TpsLimitFilter', () => {
  it('returns a refusal from the sixth call on with tps=5 (TpsLimitFilterTest#testFail)', () => {
    const filter = new TpsLimitFilter();
    const url = tpsUrl('tps=5');
    const refused = Array.from({ length: 10 }, () => filter.admit(url, 'echo', 0) !== null);
    expect(refused).toEqual([false, false, false, false, false, true, true, true, true, true]);
  });

  it("refuses with code 0 (new RpcException(message)) and Dubbo's message", () => {
    const filter = new TpsLimitFilter();
    const url = URL.valueOf(`${DEMO}&tps=1`);
    filter.admit(url, 'sayHello', 0);
    expect(filter.admit(url, 'sayHello', 0)).toEqual({
      code: 0,
      message: 'Failed to invoke service com.example.DemoService.sayHello because exceed max service tps.',
      cause: 'tps:limit',
    });
    expect(tpsLimitExceeded('a.B', 'm')).toMatchObject({ code: 0, message: 'Failed to invoke service a.B.m because exceed max service tps.' });
  });

  it('is not in the chain without tps or with tps=0, and then allows every call', () => {
    const filter = new TpsLimitFilter();
    for (const url of [URL.valueOf(DEMO), URL.valueOf(`${DEMO}&tps=0`), URL.valueOf(`${DEMO}&tps.interval=1000`)]) {
      expect(filter.isActive(url)).toBe(false);
      expect(Array.from({ length: 100 }, () => filter.admit(url, 'sayHello', 0)).every((r) => r === null)).toBe(true);
    }
  });

  it('is activated by a method-level tps', () => {
    expect(new TpsLimitFilter().isActive(URL.valueOf(`${DEMO}&echo.tps=3`))).toBe(true);
  });

  it('limits each service of the process on its own', () => {
    const filter = new TpsLimitFilter();
    const a = URL.valueOf('dubbo://10.0.0.1:20880/com.example.A?tps=1');
    const b = URL.valueOf('dubbo://10.0.0.1:20880/com.example.B?tps=1');
    expect([filter.admit(a, 'm', 0), filter.admit(b, 'm', 0)]).toEqual([null, null]);
    expect(filter.admit(a, 'm', 0)?.code).toBe(0);
  });
});
