/**
 * The findings of the real-Dubbo differential test (tools/realdubbo/, issue 39 items 14-17), each
 * through the commands that showed it: `route` and `select` must give Dubbo 3.3's answer. The
 * reproducers use consumer `consumer://10.20.1.5/com.example.UserService?application=web&...` and
 * providers of the application `users`, as the harness's report does.
 */
import { describe, expect, it } from 'vitest';
import { UsageError, type Io } from '../../src/scenario/io.js';
import { runRoute, type RouteOptions, type RouteReport } from '../../src/analysis/route.js';
import { runSelect, type SelectOptions } from '../../src/analysis/select.js';

function capture(): Io & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, cwd: process.cwd(), stdout: (t) => out.push(t), stderr: (t) => err.push(t) };
}

const IFACE = 'com.example.UserService';
const CONSUMER = `consumer://10.20.1.5/${IFACE}?application=web&interface=${IFACE}&methods=getUser,listUsers`;
const S = `${IFACE}?application=users&interface=${IFACE}&side=provider`;

function route(providers: string[], over: Partial<RouteOptions> = {}): RouteReport {
  const io = capture();
  runRoute({ consumer: CONSUMER, providers, force: false, args: [], attachments: {}, json: true, method: 'getUser', ...over }, io);
  return JSON.parse(io.out.join('')) as RouteReport;
}

function select(providers: string[], over: Partial<SelectOptions> = {}): string {
  const io = capture();
  runSelect({ loadbalance: 'roundrobin', providers, args: [], seed: 1, nowMs: 1_700_000_000_000, json: false, method: 'getUser', consumer: CONSUMER, ...over }, io);
  return io.out.join('');
}

/** The weight column of `select`'s table, by provider address. */
function weights(table: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of table.split('\n')) {
    const m = /^(\d+\.\d+\.\d+\.\d+:\d+)\s+(\d+)\s/.exec(line);
    if (m !== null) out[m[1]!] = Number(m[2]);
  }
  return out;
}

describe('F1: default.<key> provider parameters (3.3 URLParam.java:989-997, URLStrParser.java:291-294)', () => {
  it('F1a: default.weight=7 is weight 7 unless the provider has its own weight', () => {
    const table = select([`dubbo://10.0.0.1:20880/${S}&default.weight=7`, `dubbo://10.0.0.2:20880/${S}&weight=5&default.weight=7`], { count: 1 });
    expect(weights(table)).toEqual({ '10.0.0.1:20880': 7, '10.0.0.2:20880': 5 });
  });

  it('F1b: default.dubbo.tag=gray tags the provider, so an untagged call avoids it (TagStateRouter)', () => {
    const providers = [`dubbo://10.20.3.3:20880/${S}&default.dubbo.tag=gray`, `dubbo://10.20.3.4:20880/${S}`];
    expect(route(providers).providers).toEqual([providers[1]]);
  });

  it('F1c: a condition then-part matches default.region=hz as region=hz', () => {
    const providers = [`dubbo://10.20.3.3:20880/${S}&default.region=hz`, `dubbo://10.20.3.4:20880/${S}&region=sh`];
    expect(route(providers, { condition: '=> region = hz' }).providers).toEqual([providers[0]]);
  });

  it('F1d: round robin follows default.weight=300 against the default 100 (smooth weighted: 300,100 -> .1 .1 .2 .1)', () => {
    const io = capture();
    runSelect(
      { loadbalance: 'roundrobin', providers: [`dubbo://10.0.0.1:20880/${S}&default.weight=300`, `dubbo://10.0.0.2:20880/${S}`], args: [], count: 4, seed: 1, nowMs: 0, json: true },
      io,
    );
    expect(JSON.parse(io.out.join('')).picks).toEqual(['10.0.0.1:20880', '10.0.0.1:20880', '10.0.0.2:20880', '10.0.0.1:20880']);
  });
});

describe('F2: scope and key naming different kinds of thing: the key decides (3.3 AbstractRouterRule.java:81-82; ServiceStateRouter/AppStateRouter subscribe <key>.condition-router)', () => {
  const providers = [`dubbo://10.20.3.3:20880/${S}`, `dubbo://10.20.3.4:20880/${S}`];

  it('F2a: scope: service, key: web (the consumer application), force: true empties the list in AppStateRouter', () => {
    const report = route(providers, { condition: 'scope: service\nkey: web\nforce: true\nconditions:\n  - "=> host = 10.9.9.9"' });
    expect(report.providers).toEqual([]);
    expect(report.error?.code).toBe(6);
  });

  it('F2b: scope: application, key: the service key, is applied by ServiceStateRouter', () => {
    const report = route(providers, { condition: `scope: application\nkey: "${IFACE}::"\nconditions:\n  - "=> host = 10.20.3.3"` });
    expect(report.providers).toEqual([providers[0]]);
  });
});

describe('F3: a null YAML condition item is the rule text "null" (3.3 ConditionRouterRule.java:38, String::valueOf)', () => {
  const providers = [`dubbo://10.20.3.3:20880/${S}`, `dubbo://10.20.3.4:20880/${S}`];
  const yaml = (force: boolean, item: string) =>
    ['configVersion: v3.0', `force: ${force}`, 'conditions:', '  - "=> host = 10.20.3.3"', `  -${item}`].join('\n');

  it('F3a: with force: true its then-part (key "null", no provider has it) empties the list', () => {
    const report = route(providers, { condition: yaml(true, '') });
    expect(report.providers).toEqual([]);
    expect(report.trace.at(-1)).toMatchObject({ rule: 'null', before: 1, after: 0 });
  });

  it('F3b: with force: false it is ignored, after the first condition kept 10.20.3.3', () => {
    for (const item of [' null', ' ~', '']) {
      const report = route(providers, { condition: yaml(false, item) });
      expect(report.providers).toEqual([providers[0]]);
      expect(report.trace.at(-1)).toMatchObject({ rule: 'null', matchedWhen: true, before: 1, after: 1 });
    }
  });
});

describe('B1: hash.nodes below 4 (3.3 ConsistentHashLoadBalance.java:88 adds hash.nodes/4 digests; :116-118 NullPointerException on the empty ring)', () => {
  const two = [`dubbo://10.0.0.1:20880/${S}&hash.nodes=3`, `dubbo://10.0.0.2:20880/${S}`];

  it('fails select with a clear error naming hash.nodes and where Dubbo reads it, not an internal TypeError', () => {
    expect(() => select(two, { loadbalance: 'consistenthash', consumer: undefined })).toThrow(UsageError);
    expect(() => select(two, { loadbalance: 'consistenthash', consumer: undefined })).toThrow(
      /^the first provider's URL: hash\.nodes 3 \(method getUser\) is below 4: .*NullPointerException \(ConsistentHashLoadBalance\.selectForKey\)/,
    );
  });

  it('still picks a single provider, as AbstractLoadBalance.select returns it without a ring', () => {
    expect(select([two[0]!], { loadbalance: 'consistenthash', consumer: undefined, count: 2 })).toContain('100.0%');
  });

  it('builds the ring from 4 on', () => {
    const four = [`dubbo://10.0.0.1:20880/${S}&hash.nodes=4`, `dubbo://10.0.0.2:20880/${S}`];
    expect(select(four, { loadbalance: 'consistenthash', consumer: undefined, count: 1 })).toMatch(/^consistenthash: 1 pick over 2 providers/);
  });
});
