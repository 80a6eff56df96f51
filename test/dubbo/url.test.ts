/**
 * URL lookups as Dubbo 3.3 does them: `URLParam` method-level parameters, and the consumer-side view
 * of a provider URL, `ServiceAddressURL` (dubbo-common `url/component/ServiceAddressURL.java`), with the
 * consumer URL stripped of `DefaultProviderFirstParams` (dubbo-registry-api `support/DefaultProviderFirstParams.java`).
 */
import { describe, expect, it } from 'vitest';
import { InstanceAddressURL, internParams, NumberFormatException, parseJavaInt, ServiceAddressURL, URL } from '../../src/dubbo/url.js';

const merged = (provider: string, consumer: string) =>
  new ServiceAddressURL(URL.valueOf(`dubbo://10.0.0.1:20880/S?${provider}`), URL.valueOf(`consumer://10.0.0.9/S?${consumer}`));

describe('ServiceAddressURL.getMethodParameter', () => {
  // ServiceAddressURL.java lines 136-148: consumerURL.getMethodParameterStrict, then the provider's
  // getMethodParameterStrict, then getParameter(key) (consumer interface level, then provider's).
  it("gives a provider's method-level value precedence over the consumer's interface-level one", () => {
    const url = merged('sayHello.timeout=3000', 'timeout=1000');
    expect(url.getMethodParameter('sayHello', 'timeout')).toBe('3000');
    expect(url.getMethodNumber('sayHello', 'timeout', 1000)).toBe(3000);
    expect(url.getMethodParameter('other', 'timeout')).toBe('1000');
  });

  it('looks at consumer method, provider method, consumer interface, provider interface level, in that order', () => {
    const all = 'sayHello.retries=4&retries=3';
    expect(merged(`sayHello.retries=2&retries=1`, all).getMethodParameter('sayHello', 'retries')).toBe('4');
    expect(merged(`sayHello.retries=2&retries=1`, 'retries=3').getMethodParameter('sayHello', 'retries')).toBe('2');
    expect(merged(`retries=1`, 'retries=3').getMethodParameter('sayHello', 'retries')).toBe('3');
    expect(merged(`retries=1`, '').getMethodParameter('sayHello', 'retries')).toBe('1');
    expect(merged('', '').getMethodParameter('sayHello', 'retries')).toBeUndefined();
  });

  it('treats an empty value as absent at every level', () => {
    expect(merged('sayHello.timeout=3000', 'sayHello.timeout=&timeout=1000').getMethodParameter('sayHello', 'timeout')).toBe('3000');
    expect(merged('sayHello.timeout=&timeout=2000', 'timeout=').getMethodParameter('sayHello', 'timeout')).toBe('2000');
  });

  it("ignores a provider's method-level value for a method its `methods` list does not contain (as text)", () => {
    // URLParam.getMethodParameterStrict (URLParam.java lines 211-225): `methodsString.contains(method)`.
    expect(merged('methods=echo&sayHello.timeout=3000', 'timeout=1000').getMethodParameter('sayHello', 'timeout')).toBe('1000');
    expect(merged('methods=sayHelloAll&sayHello.timeout=3000', 'timeout=1000').getMethodParameter('sayHello', 'timeout')).toBe('3000');
    expect(merged('methods=echo,sayHello&sayHello.timeout=3000', '').getMethodParameter('sayHello', 'timeout')).toBe('3000');
  });
});

describe('ServiceAddressURL.getParameter', () => {
  // ServiceAddressURL.java lines 112-133 and DubboServiceAddressURL.getSide (lines 56-58).
  it("answers with the consumer's value, else the provider's", () => {
    expect(merged('loadbalance=roundrobin', 'loadbalance=random').getParameter('loadbalance')).toBe('random');
    expect(merged('loadbalance=roundrobin', '').getParameter('loadbalance')).toBe('roundrobin');
    expect(merged('loadbalance=roundrobin', 'loadbalance=').getParameter('loadbalance')).toBe('roundrobin');
  });

  it('keeps group, version and application (the remote application) the provider\'s, side the consumer\'s, category providers', () => {
    const url = merged('group=g1&version=1.0&application=users&side=provider', 'group=g2&version=2.0&application=web&side=consumer');
    expect([url.getParameter('group'), url.getParameter('version'), url.getParameter('application')]).toEqual(['g1', '1.0', 'users']);
    expect(url.getParameter('remote.application')).toBe('users');
    expect(url.getParameter('side')).toBe('consumer');
    expect(url.getParameter('category')).toBe('providers');
  });

  it('never takes the DefaultProviderFirstParams keys from the consumer: release, dubbo, methods, timestamp, dubbo.tag', () => {
    const url = merged(
      'release=3.3.2&dubbo=2.0.2&methods=a,b&timestamp=100&dubbo.tag=gray',
      'release=9&dubbo=9&methods=x&timestamp=999&dubbo.tag=blue&weight=7',
    );
    expect(['release', 'dubbo', 'methods', 'timestamp', 'dubbo.tag', 'weight'].map((k) => url.getParameter(k))).toEqual([
      '3.3.2',
      '2.0.2',
      'a,b',
      '100',
      'gray',
      '7',
    ]);
    expect(merged('', 'timestamp=999').getParameter('timestamp')).toBeUndefined();
    expect(merged('timestamp=100', 'timestamp=999').getMethodParameter('sayHello', 'timestamp')).toBe('100');
  });
});

describe('getAnyMethodParameter', () => {
  // URLParam.getAnyMethodParameter (lines 460-476) and ServiceAddressURL.getAnyMethodParameter (lines 151-160).
  it("takes the first listed method's value on a URL with `methods`, in list order", () => {
    expect(URL.valueOf('dubbo://h:1/S?methods=b,a&a.actives=1&b.actives=2').getAnyMethodParameter('actives')).toBe('2');
    expect(URL.valueOf('dubbo://h:1/S?methods=b,a&a.actives=1&b.actives=').getAnyMethodParameter('actives')).toBe('1');
    expect(URL.valueOf('dubbo://h:1/S?methods=c&a.actives=1').getAnyMethodParameter('actives')).toBeUndefined();
  });

  it('takes the first method in Java HashMap order without `methods`, even when its value is empty', () => {
    // "a" (hash 97, bucket 1) iterates before "b" (98, bucket 2) whatever the URL order.
    expect(URL.valueOf('dubbo://h:1/S?b.actives=2&a.actives=1').getAnyMethodParameter('actives')).toBe('1');
    expect(URL.valueOf('dubbo://h:1/S?b.actives=2&a.actives=').getAnyMethodParameter('actives')).toBeUndefined();
  });

  it("reads the consumer's method level first, then the provider's", () => {
    expect(merged('methods=sayHello&sayHello.actives=5', 'echo.actives=3').getAnyMethodParameter('actives')).toBe('3');
    expect(merged('methods=sayHello&sayHello.actives=5', '').getAnyMethodParameter('actives')).toBe('5');
  });
});

describe('InstanceAddressURL (application-level discovery)', () => {
  const instance = (provider: string, consumer: string) =>
    new InstanceAddressURL(URL.valueOf(`dubbo://10.0.0.1:20880/S?${provider}`), URL.valueOf(`consumer://10.0.0.9/S?${consumer}`));

  // InstanceAddressURL.java lines 304-321: consumerUrl.getMethodParameter (method, then interface level)
  // before getServiceMethodParameter (the provider's method level, then getParameter).
  it("reads the consumer's interface level before the provider's method level, unlike ServiceAddressURL", () => {
    expect(instance('sayHello.timeout=3000', 'timeout=1000').getMethodParameter('sayHello', 'timeout')).toBe('1000');
    expect(instance('sayHello.timeout=3000&timeout=2000', '').getMethodParameter('sayHello', 'timeout')).toBe('3000');
    expect(instance('timeout=2000', 'sayHello.timeout=500').getMethodParameter('sayHello', 'timeout')).toBe('500');
  });

  it('skips the consumer for provider-first keys, and answers application with the consumer\'s', () => {
    expect(instance('timestamp=100', 'timestamp=999').getMethodParameter('sayHello', 'timestamp')).toBe('100');
    const url = instance('application=users&group=g1', 'application=web&group=g2');
    expect([url.getParameter('application'), url.getParameter('remote.application'), url.getParameter('group')]).toEqual([
      'web',
      'users',
      'g1',
    ]);
  });
});

describe('Java int parsing', () => {
  it('reads an int as Integer.parseInt does: sign and digits only, within range', () => {
    expect([parseJavaInt('42'), parseJavaInt('+7'), parseJavaInt('-0'), parseJavaInt('-2147483648')]).toEqual([42, 7, 0, -(2 ** 31)]);
    for (const bad of ['2.5', '1e2', ' 5', '5 ', '0x10', '', '-', '2147483648']) {
      expect(() => parseJavaInt(bad), bad).toThrow(NumberFormatException);
    }
    expect(() => parseJavaInt('2.5')).toThrow('For input string: "2.5"');
    expect(parseJavaInt('1700000000000', 64)).toBe(1_700_000_000_000);
  });

  it('gives the default for an absent or empty value and parses the merged method-level value', () => {
    expect(merged('weight=', '').getMethodInt('sayHello', 'weight', 100)).toBe(100);
    expect(merged('sayHello.weight=30&weight=50', '').getMethodInt('sayHello', 'weight', 100)).toBe(30);
    expect(() => merged('weight=2.5', '').getMethodInt('sayHello', 'weight', 100)).toThrow(NumberFormatException);
  });
});

describe('internParams', () => {
  it('gives equal parameter records one map, so consumer URLs of many hosts share it', () => {
    const table = new Map<string, ReadonlyMap<string, string>>();
    const params = { interface: 'S', timeout: '300', 'get.retries': '4' };
    const a = new URL({ protocol: 'consumer', host: '10.0.0.1', path: 'S', params: internParams(table, { ...params }) });
    const b = new URL({ protocol: 'consumer', host: '10.0.0.2', path: 'S', params: internParams(table, { ...params }) });
    const c = new URL({ protocol: 'consumer', host: '10.0.0.3', path: 'S', params: internParams(table, { ...params, timeout: '500' }) });
    expect(a.params).toBe(b.params);
    expect(c.params).not.toBe(a.params);
    expect([a.getMethodNumber('get', 'retries', 2), b.getMethodNumber('get', 'retries', 2)]).toEqual([4, 4]);
    expect([a.getNumber('timeout', 1000), b.getNumber('timeout', 1000), c.getNumber('timeout', 1000)]).toEqual([300, 300, 500]);
  });

  it('leaves a ServiceAddressURL over an interned map its own answers (it reads its consumer URL too)', () => {
    const table = new Map<string, ReadonlyMap<string, string>>();
    const provider = new URL({ protocol: 'dubbo', host: '10.0.0.1', port: 20880, path: 'S', params: internParams(table, { timeout: '100' }) });
    const plain = new URL({ protocol: 'dubbo', host: '10.0.0.1', port: 20880, path: 'S', params: internParams(table, { timeout: '100' }) });
    expect(plain.getMethodNumber('get', 'timeout', 1000)).toBe(100);
    const viaA = new ServiceAddressURL(provider, URL.valueOf('consumer://10.0.0.9/S?timeout=700'));
    const viaB = new ServiceAddressURL(provider, URL.valueOf('consumer://10.0.0.8/S?get.timeout=900'));
    expect(viaA.getMethodNumber('get', 'timeout', 1000)).toBe(700);
    expect(viaB.getMethodNumber('get', 'timeout', 1000)).toBe(900);
    expect(plain.getMethodNumber('get', 'timeout', 1000)).toBe(100);
  });
});

describe('default.<key> parameters (3.3 URLParam.java:989-997 and :1034-1042, URLStrParser.java:291-294; 2.7 URL.java:261-264)', () => {
  it('sets k from default.k when the URL has no k of its own, for every reader', () => {
    const url = URL.valueOf('dubbo://10.0.0.1:20880/S?default.weight=7&default.dubbo.tag=gray&default.sayHello.timeout=300');
    expect(url.getParameter('weight')).toBe('7');
    expect(url.getNumber('weight', 100)).toBe(7);
    expect(url.getParameter('dubbo.tag')).toBe('gray');
    expect(url.getMethodParameter('sayHello', 'timeout')).toBe('300');
    // Condition rules match against the original map: it holds k too.
    expect(url.toOriginalMap().get('weight')).toBe('7');
    // The text is kept as given.
    expect(url.toString()).toBe('dubbo://10.0.0.1:20880/S?default.weight=7&default.dubbo.tag=gray&default.sayHello.timeout=300');
  });

  it('lets an explicit k win wherever it stands, and keeps the first of two default.k (putIfAbsent)', () => {
    expect(URL.valueOf('dubbo://h:1/S?weight=5&default.weight=7').getParameter('weight')).toBe('5');
    expect(URL.valueOf('dubbo://h:1/S?default.weight=7&weight=5').getParameter('weight')).toBe('5');
    expect(URL.valueOf('dubbo://h:1/S?default.weight=7&default.weight=9').getParameter('weight')).toBe('7');
  });

  it('strips the prefix in two passes, as 3.3 does: the parser, then the URL constructor (ServiceConfigURL.java:92, URLParam.parse(Map))', () => {
    const url = URL.valueOf('dubbo://h:1/S?default.default.weight=7');
    expect(url.getParameter('default.weight')).toBe('7');
    expect(url.getParameter('weight')).toBe('7');
    expect(URL.valueOf('dubbo://h:1/S?default.default.default.weight=7').getParameter('weight')).toBeUndefined();
  });

  it('applies to URLs built from a parameter map too (URLParam.parse(Map))', () => {
    expect(new URL({ protocol: 'dubbo', host: 'h', params: { 'default.weight': '7' } }).getParameter('weight')).toBe('7');
    expect(new URL({ protocol: 'dubbo', host: 'h', params: new Map([['default.weight', '7'], ['weight', '5']]) }).getParameter('weight')).toBe('5');
  });

  it('reaches the consumer through ServiceAddressURL (the provider fallback)', () => {
    expect(merged('default.weight=7', 'application=web').getMethodNumber('m', 'weight', 100)).toBe(7);
  });
});
