// A scenario from others cannot print the user's secrets (issue 37, audit 3 defect 1): every command
// that loads a scenario refuses a data file outside the scenario's folder tree (exit 2, at the field
// that names it), `--data-root DIR` allows another folder, and bad data is reported by position
// without quoting the file.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const TOKEN = 'npm_FAKETOKEN0123456789';
const KEY_ID = 'AKIAFAKEFAKEFAKE1234';

/**
 * dir/secret.txt (an .npmrc and AWS credentials in one), dir/data/rt.csv (good data outside the
 * scenario's folder), dir/s/link.txt -> ../secret.txt, dir/urls.txt (for import), and
 * dir/s/scenario.yaml whose service time and RTT both read `fileOf(dir)` (the RTT as a histogram).
 */
function fixture(fileOf: (dir: string) => string) {
  const dir = tempDir('zs-secret-');
  const file = fileOf(dir);
  mkdirSync(join(dir, 's'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'secret.txt'), `//registry.npmjs.org/:_authToken=${TOKEN}\naws_access_key_id = ${KEY_ID}\n`);
  writeFileSync(join(dir, 'data', 'rt.csv'), 'rt_ms\n4\n5\n6\n');
  symlinkSync('../secret.txt', join(dir, 's', 'link.txt'));
  writeFileSync(join(dir, 'urls.txt'), 'dubbo://10.1.0.5:20880/S\n');
  const scenario = join(dir, 's', 'scenario.yaml');
  writeFileSync(
    scenario,
    [
      'zones: { zoneA: { cidr: 10.1.0.0/16 }, zoneB: { cidr: 10.2.0.0/16 } }',
      'network:',
      '  rtt:',
      `    zoneA<->zoneB: { dist: histogram, file: ${JSON.stringify(file)}, metric: rt_seconds }`,
      'services:',
      '  S:',
      '    methods:',
      `      m: { serviceTime: { dist: samples, file: ${JSON.stringify(file)} } }`,
      'providers: [{ service: S, zone: zoneA }, { service: S, zone: zoneB }]',
      'consumers: [{ zone: zoneA, rate: 10/s, calls: { S.m: 1 } }]',
      'duration: 10s',
      '',
    ].join('\n'),
  );
  return { dir, scenario };
}

async function cli(args: string[], cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd });
  return { code, out: out.join(''), err: err.join('') };
}

/** Every command that loads a scenario, as argv for the scenario `s` (commands that simulate on one thread). */
const COMMANDS: Array<[string, (s: string, dir: string) => string[]]> = [
  ['run --dry-run --no-plugins', (s) => ['run', s, '--dry-run', '--no-plugins']],
  ['run', (s, dir) => ['run', s, '--out', join(dir, 'out'), '--jobs', '1']],
  ['compare', (s, dir) => ['compare', s, '--out', join(dir, 'out'), '--jobs', '1']],
  ['sweep', (s, dir) => ['sweep', s, '--grid', 'duration=10s,20s', '--out', join(dir, 'out'), '--jobs', '1']],
  ['recommend', (s) => ['recommend', s, '--jobs', '1']],
  ['check --no-plugins --json', (s) => ['check', s, '--no-plugins', '--json']],
  ['import providers --zone-from cidr', (s) => ['import', 'providers', 'urls.txt', '--zone-from', 'cidr', '--scenario', s]],
];

const REFERENCES: Array<[string, (dir: string) => string]> = [
  ['an absolute path', (dir) => join(dir, 'secret.txt')],
  ['../secret.txt', () => '../secret.txt'],
  ['a symlink inside the folder that leads out', () => 'link.txt'],
];

const never = (r: { out: string; err: string }) => {
  for (const secret of [TOKEN, KEY_ID, 'FAKETOKEN', 'FAKEFAKE']) {
    expect(r.err).not.toContain(secret);
    expect(r.out).not.toContain(secret);
  }
};

describe('a data file outside the scenario\'s folder', () => {
  describe.each(REFERENCES)('referenced by %s', (_how, reference) => {
    it.each(COMMANDS)('%s: exit 2 at the fields that name it, the secret never printed', async (_name, argv) => {
      const { dir, scenario } = fixture(reference);
      const r = await cli(argv(scenario, dir), dir);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      const lines = r.err.trimEnd().split('\n');
      const escaped = scenario.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(new RegExp(`^${escaped}:4:\\d+: network\\.rtt\\["zoneA<->zoneB"\\]\\.file: cannot read the data file \\S+: it (is|leads through a symbolic link) outside the scenario's folder `));
      expect(lines[1]).toMatch(new RegExp(`^${escaped}:8:\\d+: services\\.S\\.methods\\.m\\.serviceTime\\.file: cannot read the data file \\S+: it (is|leads through a symbolic link) outside the scenario's folder `));
      never(r);
    });
  });
});

describe('--data-root DIR', () => {
  it.each(COMMANDS)('%s: allows the folder, and bad data there is reported by position without quoting it', async (_name, argv) => {
    const { dir, scenario } = fixture(() => '../secret.txt');
    const r = await cli([...argv(scenario, dir), '--data-root', dir], dir);
    expect(r.code).toBe(2);
    never(r);
    const secret = join(dir, 'secret.txt').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // The samples file: its second line is the first value; the histogram: no _bucket series at all.
    expect(r.err).toMatch(new RegExp(`^${secret}:2:1: services\\.S\\.methods\\.m\\.serviceTime: the column: expected a number, found text that is not one \\(40 characters\\)$`, 'm'));
    expect(r.err).toMatch(/network\.rtt\["zoneA<->zoneB"\]\.metric: no rt_seconds_bucket series in the file \(the file has no _bucket series\)$/m);
  });

  it('reads good data from outside the scenario\'s folder only when given (a relative DIR is from the working directory)', async () => {
    const { dir, scenario } = fixture(() => '../data/rt.csv');
    // The RTT's histogram would need a Prometheus file: a constant RTT instead.
    writeFileSync(scenario, readFileSync(scenario, 'utf8').replace(/zoneA<->zoneB: .*/, 'zoneA<->zoneB: 2ms'));
    const refused = await cli(['check', scenario, '--json'], dir);
    expect(refused.code).toBe(2);
    const allowed = await cli(['check', scenario, '--json', '--data-root', '.'], dir);
    expect(allowed.err).toBe('');
    expect(allowed.code).toBe(0);
  });

  it('refuses a DIR that is not an existing folder (exit 2, before anything runs)', async () => {
    const { dir, scenario } = fixture(() => '../data/rt.csv');
    const missing = await cli(['run', scenario, '--dry-run', '--data-root', 'nowhere'], dir);
    expect([missing.code, missing.err]).toEqual([2, `zonesim: --data-root: no such folder ${join(dir, 'nowhere')}\n`]);
    const file = await cli(['run', scenario, '--dry-run', '--data-root', 'secret.txt'], dir);
    expect([file.code, file.err]).toEqual([2, `zonesim: --data-root: ${join(dir, 'secret.txt')} is not a folder\n`]);
  });
});
