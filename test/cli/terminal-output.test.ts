// What the CLI prints never sends a control character from its inputs to the terminal (audit
// defect 17): a scenario name in the run table's heading (S-ctrl-name), strategy names in the
// compare table, grid values in the table `merge` prints (M-values-inject), and skipped or ignored
// lines copied into `import` comments (IP-esc, IC-ctrl). They are shown escaped (`\x1b`), as
// errors show them; JSON output stays valid JSON with the same values.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** Every control character a terminal acts on, except the line feeds and tabs that lay out output. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/;

/** An OSC window-title change, a CSI screen clear and colour, a carriage return and a bell. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u001b[31mred\r\u0007';
const SHOWN = '\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred\\r\\x07';

async function zonesim(args: string[], cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd });
  return { code, out: out.join(''), err: err.join('') };
}

/** A one-zone scenario of 1 s (YAML double-quoted, so `\e` and `\a` in `name` are the control characters). */
function tinyScenario(dir: string, name: string, extra = ''): string {
  const file = join(dir, 'tiny.yaml');
  writeFileSync(
    file,
    `name: ${JSON.stringify(name)}
duration: 1s
warmup: 0s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
services:
  com.example.S:
    methods:
      m: { serviceTime: 5ms }
providers:
  - { service: com.example.S, zone: zoneA, count: 2, threads: 50 }
consumers:
  - { application: c, zone: zoneA, instances: 1, rate: 50/s, calls: { com.example.S.m: 1 } }
${extra}`,
  );
  return file;
}

describe('control characters from inputs are escaped in human output', () => {
  it('run: the scenario name in the table heading (S-ctrl-name)', async () => {
    const dir = tempDir('zs-ctrl-');
    const r = await zonesim(['run', tinyScenario(dir, `a${HOSTILE}`), '--out', join(dir, 'out')], dir);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(RAW_CONTROL);
    expect(r.out.split('\n')[0]).toBe(`a${SHOWN}: seed 1`);
  });

  it('compare: strategy names in the table', async () => {
    const dir = tempDir('zs-ctrl-');
    const strategies = `strategies:\n  ${JSON.stringify(`plain${HOSTILE}`)}: { description: d }\n  other: { description: d }\n`;
    const r = await zonesim(['compare', tinyScenario(dir, 'tiny', strategies), '--out', join(dir, 'out')], dir);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(RAW_CONTROL);
    expect(r.out).toContain(`plain${SHOWN}`);
  });

  it('merge: a grid value in the table of the merged sweep (M-values-inject)', async () => {
    const dir = tempDir('zs-ctrl-');
    const scenario = tinyScenario(dir, 'tiny');
    const grid = ['--grid', `description=x${HOSTILE}`, '--grid', 'consumers[0].instances=1,2'];
    for (const k of [1, 2]) expect((await zonesim(['sweep', scenario, ...grid, '--shard', `${k}/2`, '--out', join(dir, 'parts')], dir)).code).toBe(0);
    const partsDir = join(dir, 'parts', 'tiny');
    const parts = readdirSync(partsDir).filter((f) => f.startsWith('sweep.part-')).map((f) => join(partsDir, f));
    expect(parts).toHaveLength(2);
    const r = await zonesim(['merge', ...parts, '--out', join(dir, 'merged')], dir);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(RAW_CONTROL);
    expect(r.out).toContain(`x${SHOWN}`);
  });

  it('import providers: a skipped line copied into the comments (IP-esc)', async () => {
    const dir = tempDir('zs-ctrl-');
    writeFileSync(join(dir, 'esc.txt'), `dubbo://10.0.0.1:20880/com.example.S?zone=a\n${HOSTILE}garbage\n`);
    const r = await zonesim(['import', 'providers', 'esc.txt'], dir);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(RAW_CONTROL);
    expect(r.out).toContain(`#   line 2: not a provider URL (expected dubbo://IP:PORT/Service?...): ${SHOWN}garbage\n`);
  });

  it('import config: an ignored property copied into the comments (IC-ctrl)', async () => {
    const dir = tempDir('zs-ctrl-');
    writeFileSync(join(dir, 'ctrl.properties'), `dubbo.consumer.foo${HOSTILE.replace('\r', '')}=${HOSTILE.replace('\r', '')}\ndubbo.consumer.timeout=1000\n`);
    const r = await zonesim(['import', 'config', 'ctrl.properties'], dir);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(RAW_CONTROL);
    const shown = SHOWN.replace('\\r', '');
    expect(r.out).toContain(`#   line 1: dubbo.consumer.foo${shown}=${shown}: not modelled by zonesim\n`);
  });

  it('--json stays one valid JSON document with the same name, DEL, C1 and bidi characters as \\u escapes', async () => {
    const dir = tempDir('zs-ctrl-');
    const name = `a${HOSTILE}\u007f\u009b\u202eb`;
    const r = await zonesim(['run', tinyScenario(dir, name), '--json', '--out', join(dir, 'out')], dir);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(RAW_CONTROL);
    expect(r.out).toContain('"scenario": "a\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[31mred\\r\\u0007\\u007f\\u009b\\u202eb"');
    expect((JSON.parse(r.out) as { scenario: string }).scenario).toBe(name);
  });
});
