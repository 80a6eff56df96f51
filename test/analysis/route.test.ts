/**
 * `zonesim route`: survivors in directory order, the trace, Dubbo's code-6 error with the rule
 * that emptied the list, JSON shape, and usage errors for rules that do not parse.
 */
import { describe, expect, it } from 'vitest';
import type { Io } from '../../src/scenario/io.js';
import { UsageError } from '../../src/scenario/io.js';
import { runRoute, type RouteOptions, type RouteReport } from '../../src/analysis/route.js';

function capture(): Io & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    cwd: '/',
    stdout(text: string) {
      io.out += text;
    },
    stderr(text: string) {
      io.err += text;
    },
  };
  return io;
}

const CONSUMER = 'consumer://10.20.1.7/com.example.UserService?application=web';
const GRAY_PROVIDERS = [
  'dubbo://10.0.2.1:20880/com.example.UserService?application=users&zone=zoneA',
  'dubbo://10.0.2.2:20880/com.example.UserService?application=users&zone=zoneA',
  'dubbo://10.0.2.3:20880/com.example.UserService?application=users&zone=zoneB',
];

function options(over: Partial<RouteOptions> = {}): RouteOptions {
  return { consumer: CONSUMER, providers: GRAY_PROVIDERS, force: false, args: [], attachments: {}, json: true, ...over };
}

function runJson(over: Partial<RouteOptions> = {}): { code: number; report: RouteReport; raw: string } {
  const io = capture();
  const code = runRoute(options(over), io);
  return { code, report: JSON.parse(io.out) as RouteReport, raw: io.out };
}

describe('zonesim route', () => {
  it('empties the list for the forced gray-release rule over providers on 10.0.2.*', () => {
    const { code, report } = runJson({ condition: 'host = 10.20.* => host = 10.0.1.*', force: true });
    expect(code).toBe(0);
    expect(report.providers).toEqual([]);
    expect(report.trace.at(-1)).toEqual({
      router: 'condition',
      rule: 'host = 10.20.* => host = 10.0.1.*',
      matchedWhen: true,
      before: 3,
      after: 0,
      note: 'force: true and the then-part matched none of 3 providers',
    });
    expect(report.error?.code).toBe(6);
    expect(report.error?.message).toMatch(
      /^Failed to invoke the method null in the service com\.example\.UserService\. No provider available for the service com\.example\.UserService from registry Directory\(invokers: 3\[10\.0\.2\.1:20880, 10\.0\.2\.2:20880, 10\.0\.2\.3:20880\]/,
    );
    expect(report.error?.message).toContain('on the consumer 10.20.1.7 using the dubbo version 3.3.2. Please check if the providers have been started and registered.');
    expect(report.error?.message).toContain(
      '[zonesim: condition rule "host = 10.20.* => host = 10.0.1.*" left 0 of 3 providers: force: true and the then-part matched none of 3 providers]',
    );
  });

  it('keeps every provider for the same rule without --force', () => {
    const { report } = runJson({ condition: 'host = 10.20.* => host = 10.0.1.*' });
    expect(report.providers).toEqual(GRAY_PROVIDERS);
    expect(report.error).toBeNull();
    expect(report.trace.at(-1)?.note).toContain('force: false');
  });

  it('prints exactly the documented JSON keys', () => {
    const { report, raw } = runJson({ condition: 'host = 10.20.* => zone = zoneB' });
    expect(Object.keys(report)).toEqual(['providers', 'trace', 'error']);
    for (const row of report.trace) expect(Object.keys(row)).toEqual(['router', 'rule', 'matchedWhen', 'before', 'after', 'note']);
    expect(raw.trim().startsWith('{') && raw.trim().endsWith('}')).toBe(true);
  });

  it('echoes surviving provider URLs exactly as given, in the given order', () => {
    const providers = [
      'dubbo://10.0.2.3:20880/com.example.UserService?zone=zoneB&b=2&a=1',
      'dubbo://10.0.2.1:20880/com.example.UserService?zone=zoneA',
      'dubbo://10.0.2.2:20880/com.example.UserService?a=1&zone=zoneB ',
    ];
    const { report } = runJson({ providers, condition: '=> zone = zoneB' });
    expect(report.providers).toEqual([providers[0], providers[2]]);
  });

  it('reports the mock selector and the tag router before the condition rule', () => {
    const { report } = runJson({ condition: '=> zone = zoneB' });
    expect(report.trace.map((r) => [r.router, r.before, r.after])).toEqual([
      ['mock', 3, 3],
      ['tag', 3, 3],
      ['condition', 3, 1],
    ]);
  });

  it('accepts Dubbo Admin YAML and shows one row per condition', () => {
    const yaml = 'configVersion: v3.0\nscope: service\nkey: com.example.UserService\nforce: false\nenabled: true\nconditions:\n  - method = getUser => zone = zoneA\n  - => host != 10.0.2.2\n';
    const { report } = runJson({ condition: yaml, method: 'getUser' });
    expect(report.providers).toEqual([GRAY_PROVIDERS[0]]);
    expect(report.trace.slice(2).map((r) => [r.rule, r.matchedWhen, r.before, r.after])).toEqual([
      ['method = getUser => zone = zoneA', true, 3, 2],
      ['=> host != 10.0.2.2', true, 2, 1],
    ]);
  });

  it('uses --method, --arg and --attachment as the call', () => {
    const rule = 'method = getUser & arguments[0] = 42 & attachments[region] = east => zone = zoneB';
    expect(runJson({ condition: rule, method: 'getUser', args: ['42'], attachments: { region: 'east' } }).report.providers).toEqual([GRAY_PROVIDERS[2]]);
    expect(runJson({ condition: rule, method: 'getUser', args: ['41'], attachments: { region: 'east' } }).report.providers).toEqual(GRAY_PROVIDERS);
  });

  it('routes a tagged call with a tag rule file', () => {
    const tagRule = 'force: true\ntags:\n  - name: gray\n    addresses: ["10.0.2.3:20880"]\n';
    expect(runJson({ tagRule, attachments: { 'dubbo.tag': 'gray' } }).report.providers).toEqual([GRAY_PROVIDERS[2]]);
    const untagged = runJson({ tagRule });
    expect(untagged.report.providers).toEqual(GRAY_PROVIDERS.slice(0, 2));
  });

  it('names the tag router when it empties the list', () => {
    const tagRule = 'force: true\ntags:\n  - name: gray\n    addresses: ["10.9.9.9:20880"]\n';
    const { report } = runJson({ tagRule, attachments: { 'dubbo.tag': 'gray' } });
    expect(report.providers).toEqual([]);
    expect(report.error?.message).toContain('[zonesim: tag rule "dubbo.tag=gray" left 0 of 3 providers');
  });

  it('prints the survivors and a trace table as text', () => {
    const io = capture();
    runRoute(options({ json: false, condition: 'host = 10.20.* => host = 10.0.1.*', force: true }), io);
    expect(io.out).toContain('0 of 3 providers survive:');
    expect(io.out).toMatch(/condition\s+yes\s+3\s+0\s+host = 10\.20\.\* => host = 10\.0\.1\.\*/);
    expect(io.out).toContain('force: true and the then-part matched none of 3 providers');
    expect(io.out).toContain('error 6: Failed to invoke the method null');
  });

  it('lists the surviving providers in text output', () => {
    const io = capture();
    runRoute(options({ json: false, condition: '=> zone = zoneA' }), io);
    expect(io.out).toContain(`2 of 3 providers survive:\n  ${GRAY_PROVIDERS[0]}\n  ${GRAY_PROVIDERS[1]}\n`);
    expect(io.out).not.toContain('error');
  });

  it('throws a usage error with the parse message for a condition that does not parse', () => {
    expect(() => runRoute(options({ condition: 'host == 10.20.* => host = 10.0.1.*' }), capture())).toThrow(UsageError);
    expect(() => runRoute(options({ condition: 'host == 10.20.* => host = 10.0.1.*' }), capture())).toThrow(/--condition: Illegal route rule/);
  });

  it('throws a usage error for YAML that does not parse', () => {
    expect(() => runRoute(options({ condition: 'conditions: [a\nforce: true' }), capture())).toThrow(/--condition: condition rule: invalid YAML/);
    expect(() => runRoute(options({ tagRule: 'force: true\n' }), capture())).toThrow(/--tag-rule-file: tag rule: tags: expected a non-empty list/);
  });

  it('throws a usage error for a bad URL, no providers, or --force without a rule', () => {
    expect(() => runRoute(options({ consumer: 'nonsense' }), capture())).toThrow(/--consumer: expected protocol/);
    expect(() => runRoute(options({ providers: [] }), capture())).toThrow(/at least one provider/);
    expect(() => runRoute(options({ force: true }), capture())).toThrow(/--force applies to a condition rule/);
  });
});
