/** ExecuteLimitFilter (dubbo-rpc-api `filter/ExecuteLimitFilter.java`): per-method executing slots in one provider process. */
import { describe, expect, it } from 'vitest';
import {
  dubboUrlString,
  ExecuteLimitFilter,
  executeLimitExceeded,
  isActivatedBy,
} from '../../../src/dubbo/filter/execute-limit-filter.js';
import { RpcStatusTable } from '../../../src/dubbo/rpc-status.js';
import { URL } from '../../../src/dubbo/url.js';

const SERVICE = 'dubbo://10.0.0.1:20880/com.example.DemoService';

function providerUrl(query: string): URL {
  return URL.valueOf(`${SERVICE}?application=demo&methods=sayHello,echo&${query}`);
}

/** Admits `n` calls of `method`; returns how many were refused. */
function admitMany(filter: ExecuteLimitFilter, url: URL, method: string, n: number): number {
  let refused = 0;
  for (let i = 0; i < n; i++) if (filter.admit(url, method) !== null) refused++;
  return refused;
}

describe('ExecuteLimitFilter', () => {
  it('refuses the calls beyond executes while the first ones run (ExecuteLimitFilterTest#testMoreThanExecuteLimitInvoke)', () => {
    const filter = new ExecuteLimitFilter();
    const url = URL.valueOf('test://test:11/test?accesslog=true&group=dubbo&version=1.1&executes=10');
    expect(admitMany(filter, url, 'testMoreThanExecuteLimitInvoke', 20)).toBe(10);
  });

  it('counts the call itself: executes=2 runs two calls and refuses the third (RpcStatus.beginCount: active + 1 > max)', () => {
    const filter = new ExecuteLimitFilter();
    const url = providerUrl('executes=2');
    expect(filter.admit(url, 'sayHello')).toBeNull();
    expect(filter.admit(url, 'sayHello')).toBeNull();
    expect(filter.admit(url, 'sayHello')).not.toBeNull();
    expect(filter.rpcStatus.getStatus(url, 'sayHello').getActive()).toBe(2);
  });

  it("refuses with LIMIT_EXCEEDED_EXCEPTION (7) and Dubbo's message naming the provider URL as URL.toString renders it", () => {
    const filter = new ExecuteLimitFilter();
    const url = providerUrl('executes=1');
    filter.admit(url, 'sayHello');
    expect(filter.admit(url, 'sayHello')).toEqual({
      code: 7,
      message:
        'Failed to invoke method sayHello in provider ' +
        'dubbo://10.0.0.1:20880/com.example.DemoService?application=demo&executes=1&methods=sayHello,echo, ' +
        'cause: The service using threads greater than <dubbo:service executes="1" /> limited.',
      cause: 'executes:limit',
    });
  });

  it('limits each method separately (RpcStatus per url and method)', () => {
    const filter = new ExecuteLimitFilter();
    const url = providerUrl('executes=1');
    expect(filter.admit(url, 'sayHello')).toBeNull();
    expect(filter.admit(url, 'sayHello')).not.toBeNull();
    expect(filter.admit(url, 'echo')).toBeNull();
  });

  it('frees the slot when the call returns a result (onResponse → endCount succeeded)', () => {
    const filter = new ExecuteLimitFilter();
    const url = providerUrl('executes=1');
    filter.admit(url, 'sayHello');
    filter.onResponse(url, 'sayHello', 35);
    expect(filter.admit(url, 'sayHello')).toBeNull();
    const s = filter.rpcStatus.getStatus(url, 'sayHello');
    expect([s.getActive(), s.total, s.failed, s.getSucceededElapsed()]).toEqual([1, 1, 0, 35]);
  });

  it('frees the slot and counts a failure when an exception is thrown (ExecuteLimitFilterTest#testExecuteLimitInvokeWithException)', () => {
    const filter = new ExecuteLimitFilter();
    const url = URL.valueOf('test://test:11/test?accesslog=true&group=dubbo&version=1.1&executes=10');
    const method = 'testExecuteLimitInvokeWitException';
    expect(filter.admit(url, method)).toBeNull();
    filter.onError({ code: 0, message: '' }, url, method, 12);
    const s = filter.rpcStatus.getStatus(url, method);
    expect([s.getActive(), s.failed, s.failedElapsed]).toEqual([0, 1, 12]);
  });

  it('does not end a count for its own refusal (onError skips isLimitExceed)', () => {
    const filter = new ExecuteLimitFilter();
    const url = providerUrl('executes=1');
    filter.admit(url, 'sayHello');
    const refusal = filter.admit(url, 'sayHello')!;
    filter.onError(refusal, url, 'sayHello', 0);
    const s = filter.rpcStatus.getStatus(url, 'sayHello');
    expect([s.getActive(), s.total]).toEqual([1, 0]);
  });

  it('is not in the chain without executes: no limit and no counting (ExecuteLimitFilterTest#testNoExecuteLimitInvoke)', () => {
    const filter = new ExecuteLimitFilter();
    const url = URL.valueOf('test://test:11/test?accesslog=true&group=dubbo&version=1.1');
    expect(filter.isActive(url)).toBe(false);
    expect(admitMany(filter, url, 'testNoExecuteLimitInvoke', 1000)).toBe(0);
    expect(filter.rpcStatus.getStatus(url, 'testNoExecuteLimitInvoke').getActive()).toBe(0);
  });

  it('is not in the chain with executes=0: ConfigUtils counts "0" as empty for @Activate', () => {
    const filter = new ExecuteLimitFilter();
    const url = providerUrl('executes=0');
    expect(filter.isActive(url)).toBe(false);
    expect(admitMany(filter, url, 'sayHello', 1000)).toBe(0);
    expect(filter.rpcStatus.getStatus(url, 'sayHello').getActive()).toBe(0);
  });

  it('takes <method>.executes over the service-level executes (URL.getMethodParameter)', () => {
    const filter = new ExecuteLimitFilter();
    const url = providerUrl('executes=1&sayHello.executes=3');
    expect(admitMany(filter, url, 'sayHello', 5)).toBe(2);
    expect(admitMany(filter, url, 'echo', 5)).toBe(4);
  });

  it('counts without a limit the methods without executes once a method-level executes activates it', () => {
    const filter = new ExecuteLimitFilter();
    const url = providerUrl('sayHello.executes=1');
    expect(admitMany(filter, url, 'echo', 50)).toBe(0);
    expect(filter.rpcStatus.getStatus(url, 'echo').getActive()).toBe(50);
    expect(admitMany(filter, url, 'sayHello', 2)).toBe(1);
  });

  it('writes the RpcStatus table it is given (Dubbo RpcStatus is JVM-wide)', () => {
    const table = new RpcStatusTable();
    const url = providerUrl('executes=5');
    new ExecuteLimitFilter(table).admit(url, 'sayHello');
    expect(table.getStatus(url, 'sayHello').getActive()).toBe(1);
  });
});

describe('isActivatedBy (ExtensionLoader.isActive)', () => {
  it.each([
    ['executes=5', true],
    ['executes=0', false],
    ['executes=false', false],
    ['executes=NULL', false],
    ['executes=n/a', false],
    ['executes=', false],
    ['echo.executes=5', true],
    ['', false],
  ])('%s → %s', (query, expected) => {
    expect(isActivatedBy(providerUrl(query), 'executes')).toBe(expected);
  });

  it('takes the first method of the methods list that has a value (URLParam.getAnyMethodParameter)', () => {
    expect(isActivatedBy(providerUrl('sayHello.executes=0&echo.executes=5'), 'executes')).toBe(false);
    expect(isActivatedBy(providerUrl('sayHello.executes=5&echo.executes=0'), 'executes')).toBe(true);
  });

  it('ignores method-level values of methods outside the methods list', () => {
    expect(isActivatedBy(providerUrl('other.executes=5'), 'executes')).toBe(false);
    expect(isActivatedBy(URL.valueOf(`${SERVICE}?other.executes=5`), 'executes')).toBe(true);
  });
});

describe('executeLimitExceeded / dubboUrlString', () => {
  it('renders the URL as Dubbo URL.toString: no credentials, parameters sorted, values trimmed', () => {
    const url = new URL({
      protocol: 'dubbo',
      username: 'u',
      password: 'p',
      host: '10.0.0.2',
      port: 20881,
      path: 'com.example.PayService',
      params: { weight: ' 100 ', anyhost: 'true', Zone: 'a' },
    });
    expect(dubboUrlString(url)).toBe('dubbo://10.0.0.2:20881/com.example.PayService?Zone=a&anyhost=true&weight=100');
  });

  it('builds the code-7 refusal for a given limit', () => {
    const e = executeLimitExceeded(URL.valueOf('dubbo://h:1/S'), 'pay', 100);
    expect(e.code).toBe(7);
    expect(e.message).toBe(
      'Failed to invoke method pay in provider dubbo://h:1/S, cause: The service using threads greater than <dubbo:service executes="100" /> limited.',
    );
  });
});
