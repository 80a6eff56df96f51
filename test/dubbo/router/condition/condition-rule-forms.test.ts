/**
 * How `parseConditionRule` reads the forms a rule comes in: URL-rule text (also with `:` in values),
 * YAML text in its one-line forms, `condition://` URLs (ConditionStateRouterFactory: `rule`, `force`,
 * `enabled`, URL-encoding) also after comment lines, and where `--force`, the router scope and the
 * runtime go for each form.
 */
import { describe, expect, it } from 'vitest';
import { ConditionRuleRouter, parseConditionRule } from '../../../../src/dubbo/router/condition/condition-rule-router.js';
import { ConditionStateRouter, FORCE_EMPTY_EVENT } from '../../../../src/dubbo/router/condition/condition-state-router.js';
import { RouterRuleError } from '../../../../src/dubbo/router/router-rule-error.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { URL } from '../../../../src/dubbo/url.js';
import { countingEvents, indicesIn, invokersOf } from '../fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.5/com.example.UserService?application=web&env=gray');
const PROVIDERS = [
  'dubbo://10.20.3.1:20880/com.example.UserService?env=gray&region=hangzhou',
  'dubbo://10.20.3.2:20880/com.example.UserService?env=normal&region=beijing',
];
const call = () => new RpcInvocation({ methodName: 'getUser' });
const conditionUrl = (query: string) => `condition://0.0.0.0/com.example.UserService?${query}`;

function routeIdx(router: { route: ConditionStateRouter['route'] }): number[] {
  const invokers = invokersOf(PROVIDERS);
  return indicesIn(invokers, router.route(invokers, CONSUMER, call()).invokers);
}

describe('URL-rule text', () => {
  it('reads a rule with host:port values as a URL rule, not YAML', () => {
    const router = parseConditionRule('host = 10.20.1.5 => address = 10.20.3.2:20880');
    expect(router).toBeInstanceOf(ConditionStateRouter);
    expect(routeIdx(router)).toEqual([1]);
  });

  it('reads one line of URL-rule text raw: ` #…` is part of the rule, not a YAML comment', () => {
    // `#note:` and `gray` are bare keys of the then-part, which no provider matches: the rule is ignored.
    const router = parseConditionRule('host = 10.20.1.5 => region = beijing #note: gray') as ConditionStateRouter;
    expect(router.rule).toBe('host = 10.20.1.5 => region = beijing #note: gray');
    expect(routeIdx(router)).toEqual([0, 1]);
  });

  it('is not forced unless --force says so, and takes the router scope for its order', () => {
    expect((parseConditionRule('=> region = shanghai') as ConditionStateRouter).force).toBe(false);
    expect(routeIdx(parseConditionRule('=> region = shanghai'))).toEqual([0, 1]);
    expect(parseConditionRule('=> region = beijing', { routerScope: 'app' }).order).toBe(150);
  });

  it('counts a forced empty result on the runtime it is given', () => {
    const events = countingEvents();
    expect(routeIdx(parseConditionRule('=> region = shanghai', { force: true, runtime: { events } }))).toEqual([]);
    expect(events.counts.get(FORCE_EMPTY_EVENT)).toBe(1);
  });
});

describe('YAML text in one line', () => {
  it('reads a flow map and a document marker followed by a flow map as YAML', () => {
    expect(parseConditionRule('{force: true, conditions: ["=> region = beijing"]}')).toBeInstanceOf(ConditionRuleRouter);
    expect(parseConditionRule('--- {conditions: ["=> region = beijing"]}')).toBeInstanceOf(ConditionRuleRouter);
    expect(routeIdx(parseConditionRule('  {conditions: ["=> region = beijing"]}'))).toEqual([1]);
  });

  it('reads `key:` at the end of the text, or before a space, as YAML', () => {
    expect(() => parseConditionRule('conditions:')).toThrow(/condition rule: conditions: expected a non-empty list, found null/);
    expect(routeIdx(parseConditionRule('  conditions: ["=> region = beijing"]'))).toEqual([1]);
  });

  it('reads a first key with dots, dashes, underscores or a space before its colon as YAML', () => {
    expect(() => parseConditionRule('config.version-x_1: v3.0')).toThrow(/conditions: expected a non-empty list, found nothing/);
    expect(() => parseConditionRule('_scope: service')).toThrow(/conditions: expected a non-empty list, found nothing/);
    expect(routeIdx(parseConditionRule('conditions : ["=> region = beijing"]'))).toEqual([1]);
  });

  it('forces a YAML rule by its own force or by --force, and leaves it unforced otherwise', () => {
    const rule = 'conditions: ["=> region = shanghai"]';
    expect(routeIdx(parseConditionRule(rule))).toEqual([0, 1]);
    expect((parseConditionRule(rule) as ConditionRuleRouter).force).toBe(false);
    expect((parseConditionRule(rule, { force: false }) as ConditionRuleRouter).force).toBe(false);
    expect((parseConditionRule(`force: true\n${rule}`) as ConditionRuleRouter).force).toBe(true);
    expect((parseConditionRule(rule, { force: true }) as ConditionRuleRouter).force).toBe(true);
  });

  it('lets the router scope override the YAML scope for the order', () => {
    expect(parseConditionRule('scope: application\nconditions: ["=> a=b"]', { routerScope: 'service' }).order).toBe(140);
    expect(parseConditionRule('scope: service\nconditions: ["=> a=b"]', { routerScope: 'app' }).order).toBe(150);
  });
});

describe('condition:// URLs', () => {
  it('decodes + as a space in the rule parameter', () => {
    const router = parseConditionRule(conditionUrl('rule=host+%3D+10.20.1.5+%3D%3E+region+%3D+beijing')) as ConditionStateRouter;
    expect(router.rule).toBe('host = 10.20.1.5 => region = beijing');
    expect(routeIdx(router)).toEqual([1]);
  });

  it('reports a URL without a rule parameter, and a rule that is not URL-encoded text', () => {
    expect(() => parseConditionRule(conditionUrl('force=true'))).toThrow(
      new RouterRuleError(`condition rule URL has no rule parameter: ${conditionUrl('force=true')}`),
    );
    expect(() => parseConditionRule(conditionUrl('rule=%E0%A4%A'))).toThrow(
      'condition rule URL: the rule parameter is not URL-encoded text: %E0%A4%A',
    );
  });

  it('reads force and enabled case-insensitively, enabled by default, not forced by default', () => {
    const rule = `rule=${encodeURIComponent('=> region = shanghai')}`;
    const of = (query: string) => parseConditionRule(conditionUrl(query)) as ConditionStateRouter;
    expect([of(rule).force, of(rule).enabled]).toEqual([false, true]);
    expect(of(`${rule}&force=TRUE`).force).toBe(true);
    expect(of(`${rule}&force=false`).force).toBe(false);
    expect(of(`${rule}&enabled=False`).enabled).toBe(false);
    expect(of(`${rule}&enabled=TRUE`).enabled).toBe(true);
    expect((parseConditionRule(conditionUrl(rule), { force: true }) as ConditionStateRouter).force).toBe(true);
  });

  it('takes order 140 unless a router scope is given, and the runtime for its events', () => {
    const rule = `rule=${encodeURIComponent('=> region = shanghai')}&force=true`;
    expect(parseConditionRule(conditionUrl(rule)).order).toBe(140);
    expect(parseConditionRule(conditionUrl(rule), { routerScope: 'provider-app' }).order).toBe(145);
    const events = countingEvents();
    expect(routeIdx(parseConditionRule(conditionUrl(rule), { runtime: { events } }))).toEqual([]);
    expect(events.counts.get(FORCE_EMPTY_EVENT)).toBe(1);
  });

  it('reads a one-line condition:// URL with spaces around it', () => {
    const text = `  ${conditionUrl(`rule=${encodeURIComponent('=> region = beijing')}&force=true`)}  `;
    const router = parseConditionRule(text) as ConditionStateRouter;
    expect(router.rule).toBe('=> region = beijing');
    expect(router.force).toBe(true);
    // The error names the URL without the spaces.
    expect(() => parseConditionRule(`  ${conditionUrl('force=true')}  `)).toThrow(
      new RouterRuleError(`condition rule URL has no rule parameter: ${conditionUrl('force=true')}`),
    );
  });

  it('reads a condition:// URL after comment lines, and with spaces around it', () => {
    const text = `# from the registry\n  ${conditionUrl(`force=true&rule=${encodeURIComponent('=> region = beijing')}`)}  \n`;
    const router = parseConditionRule(text) as ConditionStateRouter;
    expect(router).toBeInstanceOf(ConditionStateRouter);
    expect(router.force).toBe(true);
    expect(router.rule).toBe('=> region = beijing');
  });
});
