/**
 * Condition rules as users give them: URL-rule text, `condition://` URLs and Dubbo Admin YAML
 * (v3.0 and v3.1), their orders, sequencing, traces and parse errors.
 */
import { describe, expect, it } from 'vitest';
import { ConditionRuleRouter, parseConditionRule } from '../../../../src/dubbo/router/condition/condition-rule-router.js';
import { ConditionStateRouter, FORCE_EMPTY_EVENT } from '../../../../src/dubbo/router/condition/condition-state-router.js';
import { loadRuleYaml } from '../../../../src/dubbo/router/condition/condition-rule-parser.js';
import { RouterRuleError } from '../../../../src/dubbo/router/router-rule-error.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { URL } from '../../../../src/dubbo/url.js';
import { RandomStreams } from '../../../../src/engine/random.js';
import { countingEvents, indicesIn, invokersOf } from '../fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.5/com.example.UserService?application=web&env=gray');
const PROVIDERS = [
  'dubbo://10.20.3.1:20880/com.example.UserService?env=gray&region=hangzhou',
  'dubbo://10.20.3.2:20880/com.example.UserService?env=normal&region=beijing',
  'dubbo://10.30.3.3:20880/com.example.UserService?region=hangzhou',
  'dubbo://10.30.3.4:20880/com.example.UserService?env=gray&region=beijing',
];
const call = (methodName = 'getUser') => new RpcInvocation({ methodName });
const random = () => new RandomStreams(3).stream('route');

function routeIdx(rule: string | Record<string, unknown>, inv = call()): number[] {
  const invokers = invokersOf(PROVIDERS);
  const router = parseConditionRule(rule, { runtime: { random: random() } });
  return indicesIn(invokers, router.route(invokers, CONSUMER, inv).invokers);
}

describe('parseConditionRule input forms', () => {
  it('builds a single condition router at order 140 from URL-rule text', () => {
    const router = parseConditionRule('host = 10.20.* => region = beijing', { force: true });
    expect(router).toBeInstanceOf(ConditionStateRouter);
    expect(router.order).toBe(140);
    expect(router.name).toBe('condition');
    expect((router as ConditionStateRouter).force).toBe(true);
  });

  it('reads rule, force and enabled from a condition:// URL', () => {
    const text = `condition://0.0.0.0/com.example.UserService?category=routers&force=true&rule=${encodeURIComponent('host = 10.20.* => region = shanghai')}`;
    const router = parseConditionRule(text) as ConditionStateRouter;
    expect(router.rule).toBe('host = 10.20.* => region = shanghai');
    expect(router.force).toBe(true);
    expect(routeIdx(text)).toEqual([]);
  });

  it('orders YAML rules by scope: service 140, application 150', () => {
    const service = parseConditionRule('scope: service\nkey: com.example.UserService\nconditions:\n  - => region=beijing');
    const app = parseConditionRule('scope: application\nkey: web\nconditions:\n  - => region=beijing');
    expect([service.order, app.order]).toEqual([140, 150]);
    expect(parseConditionRule('conditions: ["=> region=beijing"]', { routerScope: 'provider-app' }).order).toBe(145);
  });

  it('reads a URL rule from a file with comment lines', () => {
    const router = parseConditionRule('# gray release\nhost = 10.20.* => region = beijing\n', { force: true });
    expect(router).toBeInstanceOf(ConditionStateRouter);
    expect(routeIdx('# gray release\nhost = 10.20.* => region = beijing\n')).toEqual([1, 3]);
  });

  it('accepts an already-parsed YAML object', () => {
    expect(routeIdx({ scope: 'service', force: true, conditions: ['=> region = beijing'] })).toEqual([1, 3]);
  });

  it('applies v3.0 conditions in sequence, each filtering the previous output', () => {
    const yaml = 'configVersion: v3.0\nscope: service\nconditions:\n  - => region = beijing\n  - => env = gray';
    expect(routeIdx(yaml)).toEqual([3]);
  });

  it('reports one trace entry with a step per condition', () => {
    const invokers = invokersOf(PROVIDERS);
    const router = parseConditionRule('conditions:\n  - => region = beijing\n  - host = 9.9.9.9 => env = gray') as ConditionRuleRouter;
    const trace = router.route(invokers, CONSUMER, call()).trace;
    expect(trace.before).toBe(4);
    expect(trace.after).toBe(2);
    expect(trace.matchedWhen).toBe(true);
    expect(trace.steps?.map((s) => [s.rule, s.matchedWhen, s.before, s.after])).toEqual([
      ['=> region = beijing', true, 4, 2],
      ['host = 9.9.9.9 => env = gray', false, 2, 2],
    ]);
  });

  it('names the condition that emptied the list in a forced YAML rule and counts the event', () => {
    const events = countingEvents();
    const invokers = invokersOf(PROVIDERS);
    const router = parseConditionRule('force: true\nconditions:\n  - => region = beijing\n  - => region = shanghai', {
      runtime: { events },
    });
    const trace = router.route(invokers, CONSUMER, call()).trace;
    expect(trace.after).toBe(0);
    expect(trace.note).toBe('condition 2 of 2 ("=> region = shanghai"): force: true and the then-part matched none of 2 providers');
    expect(events.counts.get(FORCE_EMPTY_EVENT)).toBe(1);
  });

  it('passes everything through a YAML rule with enabled: false', () => {
    expect(routeIdx('enabled: false\nforce: true\nconditions:\n  - => false')).toEqual([0, 1, 2, 3]);
  });

  it('reads force from YAML booleans the way SnakeYAML does (yes is true)', () => {
    expect(routeIdx('force: yes\nconditions:\n  - => region = shanghai')).toEqual([]);
  });

  it('ignores a YAML rule marked valid: false', () => {
    expect(routeIdx('valid: false\nconditions:\n  - => false')).toEqual([0, 1, 2, 3]);
  });

  it('makes --force force a YAML rule too', () => {
    const invokers = invokersOf(PROVIDERS);
    const router = parseConditionRule('conditions:\n  - => region = shanghai', { force: true });
    expect(router.route(invokers, CONSUMER, call()).invokers).toEqual([]);
  });
});

describe('v3.1 multi-destination rules', () => {
  it('treats a blank to.match as all providers', () => {
    expect(routeIdx('configVersion: v3.1\nconditions:\n  - from: { match: env=gray }\n    to:\n      - match: ""')).toEqual([0, 1, 2, 3]);
  });

  it('blocks matching consumers when to is missing, whatever force says', () => {
    expect(routeIdx('configVersion: v3.1\nconditions:\n  - from: { match: env=gray }')).toEqual([]);
  });

  it('matches every consumer when from is missing', () => {
    expect(routeIdx('configVersion: v3.1\nconditions:\n  - to:\n      - match: region=beijing')).toEqual([1, 3]);
  });

  it('picks the first destination with probability (w1 + 1) / sum', () => {
    const invokers = invokersOf(PROVIDERS);
    const router = parseConditionRule(
      'configVersion: v3.1\nconditions:\n  - to:\n      - { match: region=beijing, weight: 1 }\n      - { match: region=hangzhou, weight: 3 }',
      { runtime: { random: random() } },
    );
    const n = 20_000;
    let first = 0;
    for (let i = 0; i < n; i++) if (router.route(invokers, CONSUMER, call()).invokers[0] === invokers[1]) first++;
    // p = 2/4; four standard errors of a binomial proportion.
    const p = 0.5;
    expect(Math.abs(first / n - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / n));
  });

  it('treats a weight <= 0 as 100', () => {
    const invokers = invokersOf(PROVIDERS);
    const router = parseConditionRule(
      'configVersion: v3.1\nconditions:\n  - to:\n      - { match: region=beijing, weight: 0 }\n      - { match: region=hangzhou, weight: 100 }',
      { runtime: { random: random() } },
    );
    const n = 20_000;
    let first = 0;
    for (let i = 0; i < n; i++) if (router.route(invokers, CONSUMER, call()).invokers[0] === invokers[1]) first++;
    const p = 101 / 200;
    expect(Math.abs(first / n - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / n));
  });

  it('declares random only when a condition has several destinations', () => {
    const one = parseConditionRule('configVersion: v3.1\nconditions:\n  - to: [{ match: region=beijing }]');
    const two = parseConditionRule('configVersion: v3.1\nconditions:\n  - to: [{ match: region=beijing }, { match: env=gray }]', {
      runtime: { random: random() },
    });
    expect(one.routingInputs().random).toBe(false);
    expect(two.routingInputs().random).toBe(true);
  });

  it('refuses several destinations without a random stream', () => {
    expect(() => parseConditionRule('configVersion: v3.1\nconditions:\n  - to: [{ match: a=b }, { match: c=d }]')).toThrow(/random/);
  });
});

describe('condition rule parse errors', () => {
  it('reports invalid YAML with its position', () => {
    expect(() => parseConditionRule('conditions: [a\nforce: true')).toThrow(/condition rule: invalid YAML: .*line/);
  });

  it('parses a rule text once for every chain, and reports its YAML error every time', () => {
    // Each consumer instance builds its own chain from the same text: the YAML is read once and shared, frozen.
    const text = 'scope: service\nkey: com.example.UserService\nconditions:\n  - "=> region = hangzhou"';
    expect(loadRuleYaml(text, 'condition rule')).toBe(loadRuleYaml(text, 'condition rule'));
    expect(Object.isFrozen((loadRuleYaml(text, 'condition rule') as { conditions: string[] }).conditions)).toBe(true);
    const routers = [parseConditionRule(text), parseConditionRule(text)];
    const invokers = invokersOf(PROVIDERS);
    for (const r of routers) expect(indicesIn(invokers, r.route(invokers, CONSUMER, new RpcInvocation({ methodName: 'm' })).invokers)).toEqual([0, 2]);
    for (let i = 0; i < 2; i++) expect(() => parseConditionRule('conditions: [a\nforce: true')).toThrow(/condition rule: invalid YAML: .*line/);
    expect(() => loadRuleYaml('tags: [', 'tag rule')).toThrow(/^tag rule: invalid YAML/);
  });

  it('reports a missing conditions list', () => {
    expect(() => parseConditionRule('scope: service\nforce: true')).toThrow(/conditions: expected a non-empty list, found nothing/);
  });

  it('reports an empty conditions list', () => {
    expect(() => parseConditionRule('scope: service\nconditions: []')).toThrow(RouterRuleError);
  });

  it('reports a configVersion newer than v3.1', () => {
    expect(() => parseConditionRule('configVersion: v3.2\nconditions: ["=> a=b"]')).toThrow(/configVersion v3.2 is not supported/);
  });

  it('hints at configVersion v3.1 for from/to conditions in a v3.0 rule', () => {
    expect(() => parseConditionRule('conditions:\n  - from: { match: a=b }')).toThrow(/need configVersion: v3.1/);
  });

  it('reports a condition that does not tokenize', () => {
    expect(() => parseConditionRule('conditions:\n  - host == 1.1.1.1 => a=b')).toThrow(/The error char '=='/);
  });

  it('reports a non-integer v3.1 weight', () => {
    expect(() => parseConditionRule('configVersion: v3.1\nconditions:\n  - to: [{ match: a=b, weight: heavy }]')).toThrow(
      /conditions\[0\]\.to\[0\]\.weight: expected an integer, found "heavy"/,
    );
  });

  it('accepts any scope, as no Dubbo router reads it (AbstractRouterRule.java:81 only stores it)', () => {
    expect(parseConditionRule('scope: global\nconditions: ["=> a=b"]').order).toBe(140);
    expect(parseConditionRule('scope: application\nconditions: ["=> a=b"]').order).toBe(150);
  });

  it('reports a YAML document that is not a map', () => {
    expect(() => parseConditionRule('- a\n- b')).toThrow(/expected a YAML map/);
  });
});
