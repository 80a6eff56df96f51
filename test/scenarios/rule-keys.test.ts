/**
 * Scenario `routers:` follow the rule key (issue 9 item 8): Dubbo subscribes each reference only
 * to `<interface>:<version>:<group>.condition-router` (ServiceStateRouter.java:28-29 with
 * DynamicConfiguration.getRuleKey = URL.getColonSeparatedKey), its consumer application's and its
 * providers' application's rules (AppStateRouter.java:27-28, ProviderAppStateRouter.java:42-84) and
 * `<provider application>.tag-router` (TagStateRouter.java:285-325). A forced rule keyed to one
 * service empties that service only; `zonesim check` names a rule whose key matches nothing.
 */
import { describe, expect, it } from 'vitest';
import { checkScenario } from '../../src/analysis/check.js';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const USERS = 'com.example.UserService';
const ORDERS = 'com.example.OrderService';

function scenario(routers: string, extra = ''): string {
  return `
name: rule-keys
duration: 10s
warmup: 1s
zones: { dc: { cidr: 10.0.0.0/16 } }
registry: { type: static }
services:
  ${USERS}: { methods: { get: { serviceTime: 2ms } } }
  ${ORDERS}: { methods: { list: { serviceTime: 2ms } } }
providers:
  - { name: users, application: user-provider, service: ${USERS}, zone: dc, count: 3 }
  - { name: orders, application: order-provider, service: ${ORDERS}, zone: dc, count: 3, params: { version: 2.0.0 } }
consumers:
  - application: web
    zone: dc
    rate: 200/s
    calls: { ${USERS}.get: 0.5, ${ORDERS}.list: 0.5 }
    reference:
      ${ORDERS}: { parameters: { version: 2.0.0 } }
routers: ${routers}
${extra}
`;
}

const forced = (scope: string, key: string) =>
  `[{ type: condition, rule: { scope: ${scope}, key: "${key}", force: true, conditions: ["=> host = 10.9.9.9"] } }]`;

function outcomes(routers: string) {
  const { summary } = runScenario(parseScenario(scenario(routers), 'rule-keys.yaml'), { version: 'test' });
  const by = summary.byService as Record<string, { requests: number; ok: number; noProviderRate: number }>;
  return { users: by[`${USERS}.get`]!, orders: by[`${ORDERS}.list`]! };
}

describe('keyed rules in a scenario', () => {
  it('empties only the service the key names', () => {
    const { users, orders } = outcomes(forced('service', `${ORDERS}:2.0.0`));
    expect(users.ok).toBe(users.requests);
    expect(orders.noProviderRate).toBe(1);
  });

  it('does not apply a service key without the reference\'s version (Dubbo reads interface:2.0.0:)', () => {
    const { orders } = outcomes(forced('service', ORDERS));
    expect(orders.ok).toBe(orders.requests);
  });

  it('applies an application rule keyed by a provider application to that application\'s services only', () => {
    const { users, orders } = outcomes(forced('application', 'user-provider'));
    expect(users.noProviderRate).toBe(1);
    expect(orders.ok).toBe(orders.requests);
  });

  it('applies a rule keyed by the consumer application to all its services', () => {
    const { users, orders } = outcomes(forced('application', 'web'));
    expect(users.noProviderRate).toBe(1);
    expect(orders.noProviderRate).toBe(1);
  });

  it('keeps a rule without a key applying to every service', () => {
    const { users, orders } = outcomes('[{ type: condition, force: true, rule: "=> host = 10.9.9.9" }]');
    expect(users.noProviderRate).toBe(1);
    expect(orders.noProviderRate).toBe(1);
  });

  it('applies each provider application\'s tag rule to its own providers', () => {
    const tag = (key: string, addressOf: string) =>
      `{ type: tag, rule: { key: ${key}, force: true, tags: [{ name: gray, addresses: ["${addressOf}"] }] } }`;
    const text = scenario(`[${tag('user-provider', '10.9.9.9:20880')}, ${tag('order-provider', '0.0.0.0/0')}]`).replace(
      'reference:',
      'attachments: { dubbo.tag: gray }\n    reference:',
    );
    const { summary } = runScenario(parseScenario(text, 'rule-keys.yaml'), { version: 'test' });
    const by = summary.byService as Record<string, { requests: number; ok: number; noProviderRate: number }>;
    expect(by[`${USERS}.get`]!.noProviderRate).toBe(1);
    expect(by[`${ORDERS}.list`]!.ok).toBe(by[`${ORDERS}.list`]!.requests);
  });
});

describe('zonesim check and rule keys', () => {
  const warnings = (routers: string, extra = '') =>
    checkScenario(parseScenario(scenario(routers, extra), 'rule-keys.yaml')).warnings.filter((w) => w.kind === 'rule-key-unmatched');

  it('is silent for keys that name a service key or an application of the scenario', () => {
    expect(warnings(forced('service', `${ORDERS}:2.0.0`))).toEqual([]);
    expect(warnings(forced('service', `${USERS}::`))).toEqual([]);
    expect(warnings(forced('application', 'order-provider'))).toEqual([]);
    expect(warnings(forced('application', 'web'))).toEqual([]);
  });

  it('names a service key that matches no reference, with a typo suggestion', () => {
    const [w] = warnings(forced('service', 'com.example.UserServce'));
    expect(w).toMatchObject({ kind: 'rule-key-unmatched', rule: 'routers[0]', service: 'com.example.UserServce' });
    expect(w!.message).toContain(
      'routers[0]: condition rule keyed com.example.UserServce (scope: service) never applies: no reference has that service key, and no application is named so; ' +
        `Dubbo reads <interface>:<version>:<group>.condition-router, here ${USERS}::, ${ORDERS}:2.0.0:`,
    );
    expect(w!.message).toContain(`did you mean "${USERS}"?`);
  });

  it('says when only the version differs', () => {
    expect(warnings(forced('service', ORDERS))[0]!.message).toContain('(the interface matches, the version or group do not)');
  });

  it('names an application key that is no application', () => {
    expect(warnings(forced('application', 'nobody'))[0]!.message).toContain(
      'no consumer application (AppStateRouter) or provider application (ProviderAppStateRouter) is named nobody; here consumers are web and providers user-provider, order-provider',
    );
  });

  it('warns of nothing when the key names a service or application of another kind than its scope: the key decides (3.3 AbstractRouterRule.java:81-82)', () => {
    expect(warnings(forced('application', `${USERS}::`))).toEqual([]);
    expect(warnings(forced('service', 'web'))).toEqual([]);
    expect(warnings(forced('service', 'order-provider'))).toEqual([]);
  });

  it('names a tag rule keyed by the consumer application', () => {
    const [w] = warnings('[{ type: tag, rule: { key: web, tags: [{ name: gray, addresses: ["10.0.0.1:20880"] }] } }]');
    expect(w!.message).toContain("a tag rule's key is the provider application");
    expect(w!.message).toContain('(web is a consumer application)');
  });

  it('looks at rules pushed by faults and strategies too', () => {
    const extra = `faults:
  - { at: 2s, rule: { add: { type: condition, rule: { scope: service, key: com.example.Nope, conditions: ["=> host = 1.1.1.1"] } } } }
strategies:
  keyed: { routers: [{ type: condition, rule: { scope: application, key: webb, conditions: ["=> host = 1.1.1.1"] } }] }`;
    expect(warnings('[]', extra).map((w) => w.rule)).toEqual(['faults[0].rule', 'strategies.keyed.routers[0]']);
  });
});
