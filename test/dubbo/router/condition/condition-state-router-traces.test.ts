/**
 * What a condition router says about each outcome: the trace entry of a disabled rule, of an empty
 * list, of a when-part that misses (with the key that failed, or only the hazard for a malformed key),
 * of a blocklist, of a then-part that matches some, none (with the key no provider has) and none under
 * force, and the silent text changes Dubbo makes, appended to every note.
 */
import { describe, expect, it } from 'vitest';
import { ConditionStateRouter, FORCE_EMPTY_EVENT } from '../../../../src/dubbo/router/condition/condition-state-router.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { URL } from '../../../../src/dubbo/url.js';
import { countingEvents, invokersOf } from '../fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.5/com.example.UserService?application=web&env=gray&zone=zoneA');
const PROVIDERS = [
  'dubbo://10.20.3.1:20880/com.example.UserService?env=gray&region=hangzhou',
  'dubbo://10.20.3.2:20880/com.example.UserService?env=normal&region=beijing',
  'dubbo://10.30.3.3:20881/com.example.UserService?region=hangzhou',
];
const call = () => new RpcInvocation({ methodName: 'getUser' });

function traceOf(rule: string, options: { force?: boolean; enabled?: boolean } = {}) {
  const invokers = invokersOf(PROVIDERS);
  const result = new ConditionStateRouter(rule, options).route(invokers, CONSUMER, call());
  return { invokers, result, trace: result.trace };
}

describe('ConditionStateRouter trace entries', () => {
  it('passes the list itself through a disabled rule and says so', () => {
    const { invokers, result, trace } = traceOf('host = 10.20.1.5 => false', { enabled: false });
    expect(result.invokers).toBe(invokers);
    expect(trace).toEqual({
      router: 'condition',
      rule: 'host = 10.20.1.5 => false',
      matchedWhen: false,
      before: 3,
      after: 3,
      note: 'enabled: false, so the rule passes every provider through',
    });
  });

  it('says no provider reached the rule for an empty list, even for a blocklist', () => {
    const empty: ReturnType<typeof invokersOf> = [];
    const result = new ConditionStateRouter('host = 10.20.1.5 => false').route(empty, CONSUMER, call());
    expect(result.invokers).toBe(empty);
    expect(result.trace).toMatchObject({ matchedWhen: false, before: 0, after: 0, note: 'no provider reached this rule' });
  });

  it('names the when-part key that failed and what the consumer has', () => {
    const { invokers, result, trace } = traceOf('env = normal & host = 10.20.* => region = beijing');
    expect(result.invokers).toBe(invokers);
    expect(trace).toMatchObject({ matchedWhen: false, before: 3, after: 3 });
    expect(trace.note).toBe(
      'the when-part does not match this consumer/call, so the rule is skipped: the consumer\'s env is "gray", the rule wants = normal',
    );
  });

  it('explains a malformed when-part key only by its hazard, not as a value the consumer lacks', () => {
    const { trace } = traceOf('attachments[a.b] = x => region = beijing');
    expect(trace.matchedWhen).toBe(false);
    expect(trace.note).toMatch(/^the when-part does not match this consumer\/call, so the rule is skipped \[Dubbo splits a condition key at its first "\."/);
  });

  it('says a blocklist gives this consumer no provider, without force', () => {
    const { result, trace } = traceOf('host = 10.20.1.5 => false');
    expect(result.invokers).toEqual([]);
    expect(trace).toMatchObject({
      matchedWhen: true,
      before: 3,
      after: 0,
      note: 'the then-part is empty or false: a blocklist, this consumer gets no provider (force does not matter)',
    });
  });

  it('counts the providers the then-part matched', () => {
    const { invokers, result, trace } = traceOf('=> region = hangzhou');
    expect(result.invokers).toEqual([invokers[0], invokers[2]]);
    expect(trace).toMatchObject({ matchedWhen: true, before: 3, after: 2, note: 'the then-part matched 2 of 3 providers' });
  });

  it('returns the list itself when the then-part matches every provider', () => {
    const { invokers, result, trace } = traceOf('=> host = 10.*');
    expect(result.invokers).toBe(invokers);
    expect(trace.note).toBe('the then-part matched 3 of 3 providers');
  });

  it('names the then-part key no provider has when it matches none, and passes all without force', () => {
    const events = countingEvents();
    const invokers = invokersOf(PROVIDERS);
    const result = new ConditionStateRouter('=> zone = zoneA', { runtime: { events } }).route(invokers, CONSUMER, call());
    expect(result.invokers).toBe(invokers);
    expect(result.trace).toMatchObject({ matchedWhen: true, before: 3, after: 3 });
    expect(result.trace.note).toBe(
      'the then-part matched none of 3 providers (no provider URL has a "zone" parameter; a missing value fails the key, also for "!="); ' +
        'force: false, so the rule is ignored and all pass',
    );
    // Only a forced empty result is the force-empty event.
    expect(events.counts.get(FORCE_EMPTY_EVENT)).toBeUndefined();
  });

  it('names the then-part key no provider has under force, with no provider left', () => {
    const { result, trace } = traceOf('=> zone = zoneA', { force: true });
    expect(result.invokers).toEqual([]);
    expect(trace.note).toBe(
      'force: true and the then-part matched none of 3 providers (no provider URL has a "zone" parameter; a missing value fails the key, also for "!=")',
    );
  });

  it('appends the silent text changes Dubbo makes to the note of every outcome', () => {
    const hazard = ' [Dubbo deletes "provider." everywhere in the rule text, so "beiprovider.jing" is read as "beijing"]';
    expect(traceOf('=> region = beiprovider.jing').trace.note).toBe(`the then-part matched 1 of 3 providers${hazard}`);
    expect(traceOf('=> region = beiprovider.jing', { enabled: false }).trace.note).toBe(
      `enabled: false, so the rule passes every provider through${hazard}`,
    );
  });

  it('joins several hazards with "; "', () => {
    const note = traceOf('=> region = beiprovider.jing & attachments[u] = 1').trace.note;
    expect(note).toContain(
      'is read as "beijing"; attachments[u] in a then-part reads the invocation, which Dubbo does not pass to then-parts, so "=" matches no provider]',
    );
  });

  it('shows the rule trimmed', () => {
    const router = new ConditionStateRouter('  => region = beijing \n');
    expect(router.rule).toBe('=> region = beijing');
    expect(router.route(invokersOf(PROVIDERS), CONSUMER, call()).trace.rule).toBe('=> region = beijing');
  });

  it('appends nothing to the note of a rule without hazards', () => {
    expect(traceOf('=> region = beijing').trace.note).toBe('the then-part matched 1 of 3 providers');
  });
});

describe('ConditionStateRouter then-part edge cases', () => {
  it('matches no provider with a then-part that has no key (`=> &`): ignored without force, empty with it', () => {
    expect(traceOf('=> &').result.invokers).toHaveLength(3);
    expect(traceOf('=> &', { force: true }).result.invokers).toEqual([]);
    expect(new ConditionStateRouter('=> &').matchThen(URL.valueOf(PROVIDERS[0]!), CONSUMER)).toBe(false);
  });

  it('matches no provider against a blocklist then-part', () => {
    expect(new ConditionStateRouter('=> false').matchThen(URL.valueOf(PROVIDERS[0]!), CONSUMER)).toBe(false);
  });

  it('takes force, enabled and order 140 as defaults', () => {
    const router = new ConditionStateRouter('=> region = shanghai');
    expect([router.force, router.enabled, router.order]).toEqual([false, true, 140]);
    expect(new ConditionStateRouter('=> a = b', { order: 150 }).order).toBe(150);
  });
});
