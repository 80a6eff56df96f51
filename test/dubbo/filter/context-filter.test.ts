/**
 * What a provider passes on to the calls it makes while executing (Dubbo 3.3): the provider's
 * ContextFilter (dubbo-rpc-api `filter/ContextFilter.java`) unloads UNLOADING_KEYS (lines 75-135)
 * through a TrieTree (`support/TrieTree.java`) and starts a TimeoutCountDown from `_TO` (lines
 * 166-172); ConsumerContextFilter (dubbo-cluster `filter/support/ConsumerContextFilter.java`)
 * copies the rest into the outgoing invocation (lines 82-83) and ends a call with no time left
 * (lines 97-117); `RpcUtils.calculateTimeout` (lines 285-306) sets each attempt's timeout.
 */
import { describe, expect, it } from 'vitest';
import {
  isUnloadingKey,
  serverAttachments,
  serverCountDown,
  UNLOADING_KEYS,
} from '../../../src/dubbo/filter/context-filter.js';
import { consumerContext } from '../../../src/dubbo/filter/consumer-context-filter.js';
import { DubboInvoker, type CallContext, type ProtocolContext } from '../../../src/stack/dubbo-invoker.js';
import { RpcInvocation } from '../../../src/dubbo/rpc.js';
import { TimeoutCountDown } from '../../../src/dubbo/timeout-count-down.js';
import { URL } from '../../../src/dubbo/url.js';
import type { ProviderExport } from '../../../src/world/provider.js';

const CONSUMER = 'consumer://10.0.0.9/com.example.InventoryService?application=order&interface=com.example.InventoryService&side=consumer';
const consumerUrl = (query = '') => URL.valueOf(`${CONSUMER}${query === '' ? '' : `&${query}`}`);
const map = (o: Record<string, string>) => new Map(Object.entries(o));

describe('ContextFilter: the server attachment a provider keeps while executing', () => {
  it('unloads dubbo.tag, dubbo.force.tag, timeout, _TO, path, interface, group, version, dubbo, token and async', () => {
    const incoming = map({
      'dubbo.tag': 'canary',
      'dubbo.force.tag': 'true',
      timeout: '1000',
      _TO: '1000',
      path: 'com.example.OrderService',
      interface: 'com.example.OrderService',
      group: 'g',
      version: '1.0',
      dubbo: '2.0.2',
      token: 't',
      async: 'false',
      traceId: 'abc',
      lane: 'gray',
    });
    expect(Object.fromEntries(serverAttachments(incoming))).toEqual({ traceId: 'abc', lane: 'gray' });
  });

  it('unloads HTTP request headers too (authorization, cookie, user-agent, ...)', () => {
    for (const k of ['authorization', 'cookie', 'user-agent', 'content-type', 'host', 'te']) expect(isUnloadingKey(k)).toBe(true);
  });

  it('matches keys case-insensitively, as TrieTree lower-cases A-Z', () => {
    expect(isUnloadingKey('Dubbo.Tag')).toBe(true);
    expect(isUnloadingKey('TIMEOUT')).toBe(true);
    expect(isUnloadingKey('_to')).toBe(true);
  });

  it('never unloads content-md5 or http2-settings: TrieTree stops inserting a word at a digit', () => {
    expect(UNLOADING_KEYS).toContain('content-md5');
    expect(isUnloadingKey('content-md5')).toBe(false);
    expect(isUnloadingKey('http2-settings')).toBe(false);
  });

  it('keeps every other key, including ones with characters outside the trie alphabet', () => {
    for (const k of ['lane', 'traceId', 'retries', 'x-b3-traceid', 'dubbo.tag2', 'tag', 'zone', '']) expect(isUnloadingKey(k)).toBe(false);
  });

  it('starts a countdown from _TO (else _to) when the provider thread runs the call', () => {
    const cd = serverCountDown(map({ _TO: '1000' }), 250)!;
    expect(cd.deadlineMs).toBe(1250);
    expect(serverCountDown(map({ _to: '400' }), 0)!.deadlineMs).toBe(400);
    expect(serverCountDown(map({ timeout: '1000' }), 0)).toBeNull();
    // RpcUtils.convertToNumber falls back to the default -1 (no countdown) when Long.parseLong fails.
    expect(serverCountDown(map({ _TO: '1.5s' }), 0)).toBeNull();
  });
});

describe('TimeoutCountDown', () => {
  it('tells the time left in whole ms, truncated toward zero, and expires at the deadline', () => {
    const cd = TimeoutCountDown.newCountDown(1000, 0);
    expect(cd.timeRemainingMs(2)).toBe(998);
    expect(cd.timeRemainingMs(999.4)).toBe(0);
    expect(cd.isExpired(999.4)).toBe(false);
    expect(cd.isExpired(1000)).toBe(true);
    expect(cd.timeRemainingMs(1300)).toBe(-300);
  });
});

describe('ConsumerContextFilter on a call made while executing', () => {
  const server = { attachments: map({ 'dubbo.tag': 'canary', lane: 'gray', traceId: 'abc', _TO: '1000' }), startedMs: 0 };

  it('sends the server attachment on (no PenetrateAttachmentSelector): the tag is gone, the rest passes', () => {
    const c = consumerContext(server, new Map(), consumerUrl(), 'com.example.InventoryService', 'reserve', 10);
    expect(c.kind).toBe('proceed');
    if (c.kind !== 'proceed') return;
    expect(Object.fromEntries(c.attachments)).toEqual({ lane: 'gray', traceId: 'abc' });
  });

  it('propagation.tag: true puts the incoming dubbo.tag back on; a key copies that attachment into dubbo.tag', () => {
    const own = consumerContext({ ...server, tagFrom: 'dubbo.tag' }, new Map(), consumerUrl(), 's', 'm', 10);
    const lane = consumerContext({ ...server, tagFrom: 'lane' }, new Map(), consumerUrl(), 's', 'm', 10);
    expect(own.kind === 'proceed' && own.attachments.get('dubbo.tag')).toBe('canary');
    expect(lane.kind === 'proceed' && lane.attachments.get('dubbo.tag')).toBe('gray');
    const none = consumerContext({ ...server, tagFrom: 'missing' }, new Map(), consumerUrl(), 's', 'm', 10);
    expect(none.kind === 'proceed' && none.attachments.has('dubbo.tag')).toBe(false);
  });

  it('lets the call\'s own (client) attachments win over the server attachment', () => {
    const c = consumerContext(server, map({ traceId: 'own' }), consumerUrl(), 's', 'm', 10);
    expect(c.kind === 'proceed' && c.attachments.get('traceId')).toBe('own');
  });

  it('passes the countdown on by default (enable-timeout-countdown defaults to true here)', () => {
    const c = consumerContext(server, new Map(), consumerUrl(), 's', 'm', 10);
    expect(c.kind === 'proceed' && c.countdown?.timeRemainingMs(10)).toBe(990);
  });

  it('drops it when this reference turns enable-timeout-countdown off (interface or method level)', () => {
    const off = consumerContext(server, new Map(), consumerUrl('enable-timeout-countdown=false'), 's', 'm', 10);
    const offForM = consumerContext(server, new Map(), consumerUrl('m.enable-timeout-countdown=false'), 's', 'm', 10);
    expect(off.kind === 'proceed' && off.countdown).toBeNull();
    expect(offForM.kind === 'proceed' && offForM.countdown).toBeNull();
  });

  it('ends a call with no time left at once: TIMEOUT_TERMINATE (8) with Dubbo\'s message', () => {
    const c = consumerContext(server, new Map(), consumerUrl(), 'com.example.InventoryService', 'reserve', 1000);
    expect(c).toEqual({
      kind: 'terminate',
      error: {
        code: 8,
        message: 'No time left for making the following call: com.example.InventoryService.reserve, terminate directly.',
        cause: 'timeout:terminate',
      },
    });
  });
});

describe('DubboInvoker.calculateTimeout (RpcUtils.calculateTimeout)', () => {
  const provider = {} as ProviderExport;
  const ctx = {} as ProtocolContext;
  const providerUrl = URL.valueOf('dubbo://10.0.1.1:20880/com.example.InventoryService?interface=com.example.InventoryService&timeout=5000');
  const invoker = (query: string) => new DubboInvoker(provider, providerUrl, consumerUrl(query), ctx);
  const invocation = (countdown?: TimeoutCountDown) =>
    new RpcInvocation({ methodName: 'reserve', serviceName: 'com.example.InventoryService', context: { request: {}, countdown } as unknown as CallContext });

  it('without a countdown uses the reference timeout and sends no _TO (enable-timeout-countdown defaults to false)', () => {
    const inv = invocation();
    expect(invoker('timeout=300').calculateTimeout(inv, 0)).toBe(300);
    expect(inv.getAttachment('_TO')).toBeUndefined();
  });

  it('with enable-timeout-countdown=true (interface or method level) sends the attempt timeout as _TO', () => {
    const inv = invocation();
    expect(invoker('timeout=300&enable-timeout-countdown=true').calculateTimeout(inv, 0)).toBe(300);
    expect(inv.getAttachment('_TO')).toBe('300');
    const byMethod = invocation();
    invoker('timeout=300&reserve.enable-timeout-countdown=true').calculateTimeout(byMethod, 0);
    expect(byMethod.getAttachment('_TO')).toBe('300');
  });

  it('with a countdown uses what is left, also when the reference timeout is shorter (not the minimum of the two)', () => {
    const shorter = invocation(TimeoutCountDown.newCountDown(1000, 0));
    expect(invoker('timeout=300').calculateTimeout(shorter, 2)).toBe(998);
    expect(shorter.getAttachment('_TO')).toBe('998');
    const longer = invocation(TimeoutCountDown.newCountDown(1000, 0));
    expect(invoker('timeout=3000').calculateTimeout(longer, 2)).toBe(998);
  });

  it('gives 0 or less once the budget is spent, which DubboInvoker turns into TIMEOUT_TERMINATE', () => {
    expect(invoker('').calculateTimeout(invocation(TimeoutCountDown.newCountDown(1000, 0)), 999.5)).toBe(0);
    expect(invoker('').calculateTimeout(invocation(TimeoutCountDown.newCountDown(1000, 0)), 1200)).toBe(-200);
  });
});
