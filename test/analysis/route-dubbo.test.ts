/**
 * `route --dubbo` and `select --dubbo`: which release they answer as (the consumer URL's `release=`,
 * else `--dubbo`, else the providers' agreeing `release=`, else 3.3; src/analysis/pasted-release.ts), and
 * 2.7's answer on a missing-key `!=` condition (2.7.23 ConditionRouter.java:271-275; 3.3
 * AbstractConditionMatcher.java:69-75), with the release text in Dubbo's messages.
 */
import { describe, expect, it } from 'vitest';
import { UsageError, type Io } from '../../src/scenario/io.js';
import { runRoute, type RouteOptions, type RouteReport } from '../../src/analysis/route.js';
import { runSelect } from '../../src/analysis/select.js';

function capture(): Io & { out: string[] } {
  const out: string[] = [];
  return { out, cwd: process.cwd(), stdout: (t) => out.push(t), stderr: () => {} };
}

const IFACE = 'com.example.UserService';
const CONSUMER = `consumer://10.20.1.5/${IFACE}?application=web&interface=${IFACE}`;
const PROVIDERS = [`dubbo://10.0.0.1:20880/${IFACE}?version=1.0`, `dubbo://10.0.0.2:20880/${IFACE}`, `dubbo://10.0.0.3:20880/${IFACE}?version=2.0`];
const withParam = (url: string, param: string) => `${url}${url.includes('?') ? '&' : '?'}${param}`;

function run(over: Partial<RouteOptions>, json = true): { report: RouteReport; text: string } {
  const io = capture();
  runRoute({ consumer: CONSUMER, providers: PROVIDERS, force: false, args: [], attachments: {}, json, ...over }, io);
  const text = io.out.join('');
  return { report: json ? (JSON.parse(text) as RouteReport) : ({} as RouteReport), text };
}

describe('route --dubbo 2.7 gives 2.7.23\'s answer on a missing key', () => {
  it('=> version != 2.0 keeps the provider without version under 2.7 only', () => {
    expect(run({ condition: '=> version != 2.0', dubbo: '2.7' }).report.providers).toEqual([PROVIDERS[0], PROVIDERS[1]]);
    expect(run({ condition: '=> version != 2.0', dubbo: '3.3' }).report.providers).toEqual([PROVIDERS[0]]);
    expect(run({ condition: '=> version != 2.0' }).report.providers).toEqual([PROVIDERS[0]]);
  });

  it('version != 2.0 => host = 10.0.0.3 applies to a consumer without version under 2.7 only', () => {
    expect(run({ condition: 'version != 2.0 => host = 10.0.0.3', dubbo: '2.7' }).report.providers).toEqual([PROVIDERS[2]]);
    expect(run({ condition: 'version != 2.0 => host = 10.0.0.3', dubbo: '3.3' }).report.providers).toEqual(PROVIDERS);
  });
});

describe('which release route answers as', () => {
  const p27 = PROVIDERS.map((p) => withParam(p, 'release=2.7.23'));

  it("takes the providers' release= when they agree, and prints its text in Dubbo's no-provider message (not 3.3.2)", () => {
    const { report } = run({ providers: p27, condition: '=> host = 10.9.9.9', force: true });
    expect(report.error?.message).toContain('from registry <registry address> on the consumer 10.20.1.5 using the dubbo version 2.7.23.');
    expect(run({ providers: p27, condition: '=> version != 2.0' }).report.providers).toEqual([p27[0], p27[1]]);
  });

  it("takes the consumer's own release= first, and prints that text", () => {
    const consumer = `${CONSUMER}&release=2.7.8`;
    const { text } = run({ consumer, providers: PROVIDERS, condition: '=> host = 10.9.9.9', force: true }, false);
    expect(text.split('\n')[0]).toBe('dubbo 2.7.8 (release=2.7.8 on --consumer)');
    expect(text).toContain('using the dubbo version 2.7.8.');
    expect(run({ consumer, condition: '=> version != 2.0' }).report.providers).toEqual([PROVIDERS[0], PROVIDERS[1]]);
  });

  it('refuses --dubbo against a consumer release= that says otherwise, and a release it does not model', () => {
    expect(() => run({ consumer: `${CONSUMER}&release=3.3.2`, dubbo: '2.7' })).toThrow(UsageError);
    expect(() => run({ consumer: `${CONSUMER}&release=3.3.2`, dubbo: '2.7' })).toThrow(/--dubbo 2\.7 contradicts release=3\.3\.2 on --consumer/);
    expect(() => run({ dubbo: '2.6' })).toThrow(/--dubbo: expected 2\.7 or 3\.3/);
  });

  it("falls back to 3.3 when the providers' releases differ, and says so", () => {
    const mixed = [p27[0]!, withParam(PROVIDERS[1]!, 'release=3.3.2')];
    expect(run({ providers: mixed }, false).text.split('\n')[0]).toBe(
      "dubbo 3.3.2 (the providers' releases differ (2.7.23, 3.3.2): the default 3.3; give --dubbo)",
    );
  });

  it('refuses 3.x-only rule features under 2.7, naming them', () => {
    const v31 = 'configVersion: v3.1\nconditions:\n  - from: { match: "" }\n    to: [{ match: "host = 10.0.0.1" }]';
    expect(() => run({ condition: v31, dubbo: '2.7' })).toThrow(/a v3\.1 multi-destination rule \(from\/to\) is first in Dubbo 3\.3; the consumer runs 2\.7\.23/);
    expect(run({ condition: v31, dubbo: '3.3' }).report.providers).toEqual([PROVIDERS[0]]);
    const match = 'configVersion: v3.0\nforce: false\ntags:\n  - name: gray\n    match: [{ key: version, value: { exact: "1.0" } }]';
    expect(() => run({ tagRule: match, dubbo: '2.7' })).toThrow(/a tag `match` \(configVersion v3\.0\) is first in Dubbo 3\.x/);
  });

  it('has no ProviderAppStateRouter under 2.7: a rule keyed by the providers\' application applies in 3.3 only', () => {
    const providers = PROVIDERS.map((p) => withParam(p, 'application=users'));
    const rule = 'scope: application\nkey: users\nconditions:\n  - "=> host = 10.0.0.1"';
    expect(run({ providers, condition: rule }).report.providers).toEqual([providers[0]]);
    const v27 = run({ providers, condition: rule, dubbo: '2.7' }).report;
    expect(v27.providers).toEqual(providers);
    expect(v27.trace.at(-1)?.note).toContain("Dubbo 2.7 reads no rule keyed by the providers' application (ProviderAppStateRouter is first in 3.2)");
  });
});

describe('select --dubbo', () => {
  it('names the release in its header', () => {
    const io = capture();
    runSelect({ loadbalance: 'roundrobin', providers: PROVIDERS.map((p) => withParam(p, 'release=2.7.23')), args: [], count: 1, seed: 1, nowMs: 0, json: false }, io);
    expect(io.out.join('').split('\n')[0]).toContain('dubbo 2.7.23: release=2.7.23 of the providers)');
    const io2 = capture();
    runSelect({ loadbalance: 'roundrobin', providers: PROVIDERS, args: [], count: 1, seed: 1, nowMs: 0, json: false, dubbo: '2.7' }, io2);
    expect(io2.out.join('').split('\n')[0]).toContain('dubbo 2.7.23: --dubbo 2.7)');
  });
});
