/** zonesim's zone router: target zone from the call or the consumer, strict and fallback variants. */
import { describe, expect, it } from 'vitest';
import { ZoneStateRouter } from '../../../src/dubbo/router/zone-state-router.js';
import { RpcInvocation } from '../../../src/dubbo/rpc.js';
import { ServiceAddressURL, URL } from '../../../src/dubbo/url.js';
import { indicesIn, invokersOf, UrlInvoker } from './fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.10.1.5/com.example.UserService?zone=zoneA');
const PROVIDERS = [
  'dubbo://10.10.0.1:20880/com.example.UserService?zone=zoneA',
  'dubbo://10.20.0.2:20880/com.example.UserService?zone=zoneB',
  'dubbo://10.10.0.3:20880/com.example.UserService?zone=zoneA',
];
const call = (attachments: Record<string, string> = {}) => new RpcInvocation({ methodName: 'm', attachments });

function route(router: ZoneStateRouter, providers: string[], attachments: Record<string, string> = {}, consumer = CONSUMER) {
  const invokers = invokersOf(providers);
  const result = router.route(invokers, consumer, call(attachments));
  return { idx: indicesIn(invokers, result.invokers), trace: result.trace, same: result.invokers === invokers };
}

describe('ZoneStateRouter', () => {
  it('is named zone and runs after the condition routers', () => {
    const router = new ZoneStateRouter({ fallback: true, zoneFrom: 'local' });
    expect([router.name, router.order]).toEqual(['zone', 160]);
  });

  it("keeps the providers in the consumer's zone with zoneFrom local", () => {
    expect(route(new ZoneStateRouter({ fallback: true, zoneFrom: 'local' }), PROVIDERS).idx).toEqual([0, 2]);
  });

  it('takes the target zone from the zone attachment', () => {
    expect(route(new ZoneStateRouter({ fallback: true, zoneFrom: 'attachment' }), PROVIDERS, { zone: 'zoneB' }).idx).toEqual([1]);
  });

  it('reads a configured attachment key', () => {
    const router = new ZoneStateRouter({ fallback: true, zoneFrom: 'attachment', attachmentKey: 'target.zone' });
    expect(route(router, PROVIDERS, { 'target.zone': 'zoneB', zone: 'zoneA' }).idx).toEqual([1]);
  });

  it("falls back to the consumer's zone when the attachment is absent", () => {
    expect(route(new ZoneStateRouter({ fallback: true, zoneFrom: 'attachment' }), PROVIDERS).idx).toEqual([0, 2]);
  });

  it('ignores the attachment with zoneFrom local', () => {
    expect(route(new ZoneStateRouter({ fallback: true, zoneFrom: 'local' }), PROVIDERS, { zone: 'zoneB' }).idx).toEqual([0, 2]);
  });

  it('falls back to the whole input when the zone has no provider', () => {
    const r = route(new ZoneStateRouter({ fallback: true, zoneFrom: 'local' }), [PROVIDERS[1]!, PROVIDERS[1]!]);
    expect(r.idx).toEqual([0, 1]);
    expect(r.trace.note).toBe('no provider in zone zoneA, fell back to all 2');
  });

  it('returns no provider in strict mode when the zone has none', () => {
    const r = route(new ZoneStateRouter({ fallback: false, zoneFrom: 'local' }), [PROVIDERS[1]!]);
    expect(r.idx).toEqual([]);
    expect(r.trace).toMatchObject({ router: 'zone', rule: 'zone=zoneA', before: 1, after: 0 });
  });

  it('passes everything through when no zone is named', () => {
    const consumer = URL.valueOf('consumer://10.10.1.5/com.example.UserService');
    expect(route(new ZoneStateRouter({ fallback: false, zoneFrom: 'attachment' }), PROVIDERS, {}, consumer).same).toBe(true);
  });

  it("compares the provider's own zone, not the consumer-first merged value", () => {
    const invokers = PROVIDERS.map((p) => new UrlInvoker(new ServiceAddressURL(URL.valueOf(p), CONSUMER)));
    const result = new ZoneStateRouter({ fallback: false, zoneFrom: 'local' }).route(invokers, CONSUMER, call());
    expect(indicesIn(invokers, result.invokers)).toEqual([0, 2]);
  });

  it('declares the attachment it reads only in attachment mode', () => {
    expect(new ZoneStateRouter({ fallback: true, zoneFrom: 'attachment' }).routingInputs().attachments).toEqual(['zone']);
    expect(new ZoneStateRouter({ fallback: true, zoneFrom: 'local' }).routingInputs().attachments).toEqual([]);
  });
});
