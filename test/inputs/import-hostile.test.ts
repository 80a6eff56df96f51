// `zonesim import config` and `import providers` on the inputs of the third hostile-input audit
// (IC-* and IP-* rows): placeholder bombs end with a reason, YAML aliases and merge keys are
// followed as Spring Boot follows them, `.properties` files are read as Java reads them, numbers
// Dubbo cannot read are ignored rather than printed as `.inf`, and what the files hold never sends
// control characters to the terminal.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MAX_ALIASED_NODES, MAX_EXPANDED_CHARS } from '../../src/inputs/config-files.js';
import { importConfig } from '../../src/inputs/import-config.js';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** Runs the CLI in-process on a file written with `content` (text or bytes). */
async function importFile(kind: 'config' | 'providers', name: string, content: string | Buffer, extra: string[] = []) {
  const dir = tempDir('zs-import-');
  writeFileSync(join(dir, name), content);
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['import', kind, name, ...extra], { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: dir });
  return { code, out: out.join(''), err: err.join('') };
}

/** The YAML fragment `import config` printed, as data. */
const fragment = (out: string) => (parse(out) ?? {}) as { consumers?: Array<Record<string, Record<string, unknown>>>; providers?: Array<Record<string, unknown>> };

/** The audit's 4 KB bomb: the timeout names p0 100 times, p0 names p1 100 times, ... down to p6=1 (100^6 expansions unmemoized). */
function placeholderBomb(): { properties: string; yaml: string } {
  const ref = (i: number) => `\${p${i}}`.repeat(100);
  const levels = Array.from({ length: 6 }, (_, i) => [`p${i}`, ref(i + 1)] as const);
  return {
    properties: [`dubbo.consumer.timeout=${ref(0)}`, ...levels.map(([k, v]) => `${k}=${v}`), 'p6=1', 'dubbo.consumer.retries=2', ''].join('\n'),
    yaml: ['dubbo:', '  consumer:', `    timeout: "${ref(0)}"`, '    retries: 2', ...levels.map(([k, v]) => `${k}: "${v}"`), 'p6: 1', ''].join('\n'),
  };
}

describe('import config: Spring placeholders', () => {
  it('a placeholder bomb (IC-ph-bomb100, IC-ph-yaml-bomb) ends with the property ignored as too large, the rest mapped', async () => {
    const bomb = placeholderBomb();
    for (const [name, text, line] of [['ph-bomb100.properties', bomb.properties, 1], ['ph-yaml-bomb.yml', bomb.yaml, 3]] as const) {
      const r = await importFile('config', name, text);
      expect(r.code).toBe(0);
      const ignored = r.out.split('\n').filter((l) => l.startsWith(`#   line ${line}: dubbo.consumer.timeout=`));
      expect(ignored).toHaveLength(1);
      expect(ignored[0]).toMatch(new RegExp(`: placeholder expansion too large \\(it adds more than ${MAX_EXPANDED_CHARS.toLocaleString('en-US')} characters\\)$`));
      expect(fragment(r.out).consumers).toEqual([{ consumerDefaults: { retries: 2 } }]);
    }
  });

  it('resolves each key once and still expands what stays under the cap, nested defaults and names included', () => {
    // a names b 50 times, b names c twice: 100 copies of "7" are a 100-digit number, beyond a Java int.
    const props = ['a=${b}'.replace('${b}', '${b}'.repeat(50)), 'b=${c}${c}', 'c=7', 'ms=1500'];
    const r = importConfig(
      [...props, 'dubbo.consumer.timeout=${T:${ms}}', 'dubbo.consumer.retries=${R:${NONE:3}}', 'dubbo.consumer.actives=${a}', 'dubbo.consumer.forks=${${name}}', 'name=c', ''].join('\n'),
      'dubbo.properties',
    );
    expect(r.consumers).toEqual([{ consumerDefaults: { timeout: 1500, retries: 3, forks: 7 } }]);
    expect(r.ignored).toEqual([
      expect.objectContaining({ key: 'dubbo.consumer.actives', reason: expect.stringMatching(/^expected a whole number, found a 100-digit number/) }),
    ]);
  });

  it('a key that comes back to itself is circular, and an unresolved name deep down is named', () => {
    const r = importConfig('dubbo.consumer.timeout=${a}\na=${b}\nb=${a}\ndubbo.consumer.retries=${x}\nx=${y}\n', 'dubbo.properties');
    expect(r.ignored.map((i) => [i.key, i.reason])).toEqual([
      ['dubbo.consumer.timeout', 'circular placeholder ${a} (its value comes back to itself)'],
      ['dubbo.consumer.retries', 'unresolved placeholder ${y} (no default, not in this file)'],
    ]);
  });
});

describe('import config: YAML aliases and merge keys, as Spring Boot reads them', () => {
  it('a merge key brings the anchored map in (IC-merge2)', async () => {
    const r = await importFile('config', 'a.yml', 'common: &c\n  timeout: 1500\n  retries: 4\ndubbo:\n  consumer:\n    <<: *c\n    loadbalance: roundrobin\n');
    expect(r.code).toBe(0);
    expect(fragment(r.out).consumers).toEqual([{ consumerDefaults: { timeout: 1500, retries: 4, loadbalance: 'roundrobin' } }]);
  });

  it('an alias to a scalar gives its value (IC-alias-scalar), with the line where the value is written', () => {
    const r = importConfig('t: &t abc\ndubbo:\n  consumer:\n    timeout: *t\n    retries: 1\n', 'application.yml');
    expect(r.ignored).toEqual([{ line: 1, key: 'dubbo.consumer.timeout', value: 'abc', reason: 'expected a whole number, found "abc"' }]);
    expect(importConfig('t: &t 2500\ndubbo:\n  consumer:\n    timeout: *t\n', 'application.yml').consumers).toEqual([{ consumerDefaults: { timeout: 2500 } }]);
  });

  it("a map's own keys win over merged ones, earlier merged maps over later ones (IC-merge)", () => {
    const yaml = 'base: &b\n  timeout: 1000\n  retries: 2\n  cluster: failover\nfast: &f\n  timeout: 200\ndubbo:\n  consumer:\n    retries: 0\n    <<: [*f, *b]\n';
    expect(importConfig(yaml, 'application.yml').consumers).toEqual([{ consumerDefaults: { timeout: 200, cluster: 'failover', retries: 0 } }]);
  });

  it('a quoted "<<" is an ordinary key, not a merge', () => {
    const r = importConfig('c: &c\n  timeout: 1500\ndubbo:\n  consumer:\n    "<<": *c\n', 'application.yml');
    expect(r.consumers).toBeUndefined();
    expect(r.ignored.map((i) => i.key)).toEqual(['dubbo.consumer.<<.timeout']);
  });

  it(`an alias bomb is refused once aliases expand to more than ${MAX_ALIASED_NODES.toLocaleString('en-US')} values (exit 2)`, async () => {
    const level = (name: string, of: string) => `${name}: &${name} [${Array(10).fill(of).join(', ')}]`;
    const yaml = [level('a', 'x'), level('b', '*a'), level('c', '*b'), level('d', '*c'), level('e', '*d'), level('f', '*e'), 'dubbo:', '  consumer:', '    timeout: 100', ''].join('\n');
    const r = await importFile('config', 'bomb.yml', yaml);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^zonesim: YAML aliases expand to more than 100,000 values \(at line \d+\); not read\n$/);
  });

  it('a map that merges its own ancestor is followed once, not forever', () => {
    const r = importConfig('a: &a\n  b: 1\n  c:\n    <<: *a\ndubbo:\n  consumer:\n    <<: *a\n    timeout: 100\n', 'application.yml');
    expect(r.consumers).toEqual([{ consumerDefaults: { timeout: 100 } }]);
  });
});

describe('import config: .properties read as Java reads them', () => {
  it('a lone CR ends a line (IC-cr-only)', async () => {
    const r = await importFile('config', 'cr.properties', 'dubbo.consumer.timeout=1500\rdubbo.consumer.retries=3\r');
    expect(fragment(r.out).consumers).toEqual([{ consumerDefaults: { timeout: 1500, retries: 3 } }]);
  });

  it('bytes are ISO-8859-1 characters (IC-latin1), said in a note; \\u escapes give the same text', async () => {
    const latin1 = await importFile('config', 'l.properties', Buffer.from('dubbo.application.name=caf\u00e9\ndubbo.consumer.timeout=1000\n', 'latin1'));
    expect(fragment(latin1.out).consumers).toEqual([{ application: 'café', consumerDefaults: { timeout: 1000 } }]);
    expect(latin1.out).toContain('# note: line 1: bytes above 127 read as ISO-8859-1 characters, as Java reads .properties files\n');
    const escaped = await importFile('config', 'u.properties', 'dubbo.application.name=caf\\u00e9\ndubbo.consumer.timeout=1000\n');
    expect(fragment(escaped.out).consumers).toEqual(fragment(latin1.out).consumers);
    expect(escaped.out).not.toContain('note: line');
  });

  it('a UTF-8 file is read as Java would (mojibake) and the note says how to write it; a UTF-8 BOM makes it UTF-8', async () => {
    const utf8 = await importFile('config', 'u8.properties', Buffer.from('dubbo.application.name=café\ndubbo.consumer.timeout=1000\n', 'utf8'));
    expect(fragment(utf8.out).consumers![0]!.application).toBe('cafÃ©');
    expect(utf8.out).toContain('(this file looks like UTF-8: write such characters as \\uXXXX escapes)');
    const bom = await importFile('config', 'bom.properties', Buffer.from('\ufeffdubbo.application.name=café\ndubbo.consumer.timeout=1000\n', 'utf8'));
    expect(fragment(bom.out).consumers).toEqual([{ application: 'café', consumerDefaults: { timeout: 1000 } }]);
  });

  it('a YAML file that is not UTF-8 is refused (exit 2)', async () => {
    const r = await importFile('config', 'l.yml', Buffer.from('dubbo:\n  application:\n    name: caf\u00e9\n', 'latin1'));
    expect(r.code).toBe(2);
    expect(r.err).toBe('zonesim: not a YAML file: not UTF-8 text (Spring Boot reads YAML files as UTF-8)\n');
  });
});

describe('numbers Dubbo cannot read are ignored, never printed as .inf (IC-huge-values)', () => {
  it('a 400-digit timeout and a 30-digit thread count are ignored with the reason', async () => {
    const r = await importFile('config', 'h.properties', `dubbo.consumer.timeout=${'9'.repeat(400)}\ndubbo.consumer.retries=2\ndubbo.protocol.threads=${'9'.repeat(30)}\n`);
    expect(r.out).not.toMatch(/\.inf|Infinity/);
    expect(fragment(r.out).consumers).toEqual([{ consumerDefaults: { retries: 2 } }]);
    expect(fragment(r.out).providers).toBeUndefined();
    expect(r.out).toContain(`: expected a whole number, found a 400-digit number, beyond 2147483647, the most a Java int holds (Dubbo could not read it)\n`);
    expect(r.out).toContain(`: expected a whole number >= 1, found a 30-digit number, beyond 2147483647, the most a Java int holds (Dubbo could not read it)\n`);
  });

  it('the largest Java int is kept; one more is not', () => {
    expect(importConfig('dubbo.consumer.timeout=2147483647\n', 'dubbo.properties').consumers).toEqual([{ consumerDefaults: { timeout: 2147483647 } }]);
    expect(importConfig('dubbo.consumer.timeout=2147483648\n', 'dubbo.properties').ignored).toHaveLength(1);
  });

  it('import providers keeps a weight too large for Dubbo as a parameter, not a number', async () => {
    const r = await importFile('providers', 'p.txt', `dubbo://10.0.0.1:20880/com.example.S?zone=a&weight=${'9'.repeat(400)}&threads=200\n`);
    expect(r.out).not.toMatch(/\.inf|Infinity/);
    const group = (parse(r.out) as { providers: Array<Record<string, unknown>> }).providers[0]!;
    expect(group.threads).toBe(200);
    expect(group.weight).toBeUndefined();
    expect(group.params).toEqual({ weight: '9'.repeat(400) });
  });
});

describe('import providers: encodings and usage errors', () => {
  it('a file that is not UTF-8 is read as ISO-8859-1, with a note on stderr (IP-latin1)', async () => {
    const r = await importFile('providers', 'l.txt', Buffer.from('dubbo://10.0.0.1:20880/com.example.S?zone=a&application=caf\u00e9\n', 'latin1'));
    expect(r.code).toBe(0);
    expect((parse(r.out) as { providers: Array<{ application: string }> }).providers[0]!.application).toBe('café');
    expect(r.err).toBe('zonesim: note: l.txt is not UTF-8 text: read as ISO-8859-1 (Latin-1)\n');
  });

  it('a bad --zone-from is one line, without a literal \\n (IP-zonefrom-bad)', async () => {
    const r = await importFile('providers', 'p.txt', 'dubbo://10.0.0.1:20880/com.example.S\n', ['--zone-from', 'dns']);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe('zonesim: Invalid values: Argument: zone-from, Given: "dns", Choices: "param", "cidr"');
  });
});
