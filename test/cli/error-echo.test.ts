// Error messages never echo more than ~200 characters of the input, nor raw control characters
// (issue 10): scenario errors, --set errors, yargs usage errors and command errors.
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const BASELINE = 'scenarios/dual-zone-baseline.yaml';
// 'A' appears in no message of zonesim's own: counting it counts the input echoed.
const LONG = 'A'.repeat(5000);
const NASTY = `\u001b[2J\u001b]0;pwned\u0007\r${LONG}\u202e`;

async function cli(args: string[]) {
  const err: string[] = [];
  const code = await main(args, { stdout: () => {}, stderr: (s) => err.push(s), cwd: root });
  return { code, err: err.join('') };
}

/** At most ~200 characters of the long input echoed in all (it is made of 'A's), no raw control character. */
function expectTame(stderr: string) {
  const lines = stderr.trimEnd().split('\n');
  expect(lines.length).toBeGreaterThan(0);
  expect(stderr.split('A').length - 1).toBeLessThanOrEqual(250);
  for (const line of lines) {
    expect(line.length, line.slice(0, 80)).toBeLessThan(700);
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  }
}

describe('error messages are bounded and escaped', () => {
  it('a long unknown key with terminal escapes in a scenario file', async () => {
    const f = join(tempDir('zs-echo-'), 'bad.yaml');
    // An explicit key (`? key`): YAML allows implicit keys of at most 1024 characters.
    const text = readFileSync(join(root, BASELINE), 'utf8') + `? ${JSON.stringify(NASTY)}\n: 1\n`;
    writeFileSync(f, text);
    const r = await cli(['run', f, '--dry-run']);
    expect(r.code).toBe(2);
    expectTame(r.err);
    expect(r.err).toContain('\\x1b[2J');
    expect(r.err).toMatch(/more characters\)|characters\)/);
  });

  it('a long value with control characters given with --set', async () => {
    const r = await cli(['run', BASELINE, '--dry-run', '--set', `duration=${JSON.stringify(NASTY)}`]);
    expect(r.code).toBe(2);
    expectTame(r.err);
  });

  it('a long unknown option (yargs) with control characters', async () => {
    const r = await cli(['run', BASELINE, `--x${NASTY.replace(/\s/g, '')}`]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^zonesim: Unknown argument/);
    expectTame(r.err);
  });

  it('a long unknown load balancer name in select', async () => {
    const r = await cli(['select', '--loadbalance', NASTY, '--provider', 'dubbo://10.0.0.1:20880/S']);
    expect(r.code).toBe(2);
    expectTame(r.err);
  });

  it('thousands of problems are cut at 50 lines with a count of the rest', async () => {
    const f = join(tempDir('zs-echo-'), 'many.yaml');
    const extra = Array.from({ length: 300 }, (_, i) => `unknown${i}: 1`).join('\n');
    writeFileSync(f, `${readFileSync(join(root, BASELINE), 'utf8')}${extra}\n`);
    const r = await cli(['run', f, '--dry-run']);
    expect(r.code).toBe(2);
    const lines = r.err.trimEnd().split('\n').filter((l) => !l.startsWith('  hint:'));
    expect(lines).toHaveLength(51);
    expect(lines[50]).toBe(`... and 250 more problems in ${f}`);
  });
});
