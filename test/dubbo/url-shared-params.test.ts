import { describe, expect, it } from 'vitest';
import { ServiceAddressURL, URL } from '../../src/dubbo/url.js';

const providerText = (host: string, query = 'interface=com.x.S&side=provider&timeout=300&default.retries=4&weight=100') =>
  `dubbo://${host}:20880/com.x.S?${query}`;

describe('provider URLs parsed with a shared parameter table', () => {
  it('share one parameter map per query text and answer as URLs parsed alone do', () => {
    const table = new Map<string, ReadonlyMap<string, string>>();
    const a = URL.valueOf(providerText('10.0.0.1'), table);
    const b = URL.valueOf(providerText('10.0.0.2'), table);
    const alone = URL.valueOf(providerText('10.0.0.2'));
    expect(a.params).toBe(b.params);
    expect([a.host, b.host, b.port, b.path]).toEqual(['10.0.0.1', '10.0.0.2', 20880, 'com.x.S']);
    expect(b.toString()).toBe(providerText('10.0.0.2'));
    // `default.retries` sets `retries` in the shared map as in one parsed alone.
    expect([...b.params]).toEqual([...alone.params]);
    expect(b.getMethodNumber('call', 'retries', 2)).toBe(4);
    const other = URL.valueOf(providerText('10.0.0.3', 'interface=com.x.S&side=provider&timeout=500'), table);
    expect(other.params).not.toBe(a.params);
    expect(other.getMethodNumber('call', 'timeout', 1000)).toBe(500);
    expect(a.getMethodNumber('call', 'timeout', 1000)).toBe(300);
  });
});

describe('ServiceAddressURL lookups', () => {
  const consumer = (params: Record<string, string>) => new URL({ protocol: 'consumer', host: '10.9.0.1', path: 'com.x.S', params: { interface: 'com.x.S', side: 'consumer', ...params } });

  it('are those of its own consumer and provider parameters, whichever URL over the same maps was asked first', () => {
    const table = new Map<string, ReadonlyMap<string, string>>();
    const p1 = URL.valueOf(providerText('10.0.0.1'), table);
    const p2 = URL.valueOf(providerText('10.0.0.2'), table);
    const tight = consumer({ timeout: '100', 'call.weight': '7' });
    const plain = consumer({});
    const first = new ServiceAddressURL(p1, tight);
    expect(first.getMethodNumber('call', 'timeout', 1000)).toBe(100);
    expect(first.getMethodParameter('call', 'weight')).toBe('7');
    // Another provider process over the same parameter maps: the same answers.
    const second = new ServiceAddressURL(p2, tight);
    expect([second.getMethodNumber('call', 'timeout', 1000), second.getMethodParameter('call', 'weight')]).toEqual([100, '7']);
    // Another consumer over the same provider maps: its own answers (the provider's timeout and weight).
    const third = new ServiceAddressURL(p1, plain);
    expect([third.getMethodNumber('call', 'timeout', 1000), third.getMethodParameter('call', 'weight')]).toEqual([300, '100']);
    expect(first.getMethodNumber('call', 'timeout', 1000)).toBe(100);
    // Any method's value: the consumer's (without its provider-first keys), else the provider's.
    expect([first.getAnyMethodParameter('weight'), second.getAnyMethodParameter('weight'), third.getAnyMethodParameter('weight')]).toEqual(['7', '7', undefined]);
  });
});
