/**
 * Tag-rule regexes (StringMatch `regex`, Java `String.matches`) are matched in linear time: a rule
 * such as `(a+)+$` on a long `aaaa...ab` parameter cannot hang `zonesim route` or a run, and a Java
 * feature RE2 leaves out is a clear error naming the rule (exit 2). The long-input case runs the
 * built CLI in a child process with a hard limit, so a regression fails instead of hanging the suite.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { bin, cli, scenarioYaml, writeFixture } from '../helpers/plugin-fixtures.js';

const tempDir = useTempDirs();
const CONSUMER = 'consumer://10.20.1.7/com.example.S?application=web';

const tagRule = (regex: string) =>
  `configVersion: v3.0\nforce: true\ntags:\n  - name: gray\n    match:\n      - key: version\n        value: { regex: ${JSON.stringify(regex)} }\n`;

describe('zonesim route with a tag rule regex', () => {
  it('answers (a+)+$ against a 50 000-character aaaa...ab parameter, keeping only the full matches', () => {
    const dir = tempDir('zs-redos-');
    const evil = `dubbo://10.0.2.1:20880/com.example.S?version=${'a'.repeat(50_000)}b`;
    const plain = 'dubbo://10.0.2.2:20880/com.example.S?version=aaaa';
    writeFileSync(join(dir, 'providers.txt'), `${evil}\n${plain}\n`);
    writeFileSync(join(dir, 'tag.yaml'), tagRule('(a+)+$'));
    const r = bin(
      ['route', '--consumer', CONSUMER, '--providers-file', 'providers.txt', '--tag-rule-file', 'tag.yaml', '--attachment', 'dubbo.tag=gray', '--json'],
      dir,
    );
    expect(r.signal).toBeNull();
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).providers).toEqual([plain]);
  });

  it('refuses a backreference with a message naming the rule, the tag and the feature (exit 2)', async () => {
    const dir = tempDir('zs-redos-');
    writeFileSync(join(dir, 'tag.yaml'), tagRule('(a)\\1'));
    const r = await cli(['route', '--consumer', CONSUMER, '--provider', 'dubbo://10.0.2.2:20880/com.example.S?version=aa', '--tag-rule-file', 'tag.yaml'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /^zonesim: --tag-rule-file: tag rule: tags\[0\]\.match\[0\]\.value\.regex \(tag "gray"\): "\(a\)\\\\1" uses a backreference \(\\1\), which RE2 does not support \(zonesim matches rule regexes with RE2 in linear time/,
    );
  });
});

describe('a scenario with a tag rule regex', () => {
  it('refuses a lookahead at load time with the rule position (exit 2)', async () => {
    const rule = `routers:\n  - type: tag\n    rule: |\n${tagRule('a(?=b)').split('\n').map((l) => `      ${l}`).join('\n')}`;
    const path = writeFixture(tempDir('zs-redos-'), scenarioYaml({ extra: rule }));
    const r = await cli(['check', path]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${path}:27:11: routers[0].rule: expected a valid tag rule: tag rule: tags[0].match[0].value.regex (tag "gray"): "a(?=b)" uses a lookahead ((?=...))`);
  });
});
