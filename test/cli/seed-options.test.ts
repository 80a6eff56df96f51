// Issue 10, "Inputs that should be errors": --seed/--seeds follow the scenario file's rule (a
// non-negative safe integer) on every command that takes them, and a negative value for an option
// (`--bucket -1s`) gets that option's own message, not "Unknown arguments: 1, s".
import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main, joinDashValues } from '../../src/cli/main.js';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const BASELINE = 'scenarios/dual-zone-baseline.yaml';

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

const SELECT = ['select', '--loadbalance', 'random', '--provider', 'dubbo://10.0.0.1:20880/S', '--count', '2'];

describe('--seed and --seeds are non-negative safe integers', () => {
  for (const bad of ['abc', '1.5', '1e300', '-1', '9007199254740992', '']) {
    for (const cmd of [['run', BASELINE], ['compare', BASELINE], ['sweep', BASELINE, '--grid', 'seed=1,2'], SELECT]) {
      it(`${cmd[0]} --seed ${JSON.stringify(bad)} exits 2`, async () => {
        const r = await cli([...cmd, '--seed', bad, '--dry-run'].filter((a) => !(cmd === SELECT && a === '--dry-run')));
        expect(r.err).toContain(`zonesim: --seed: expected a non-negative safe integer (0 to 9007199254740991), found ${JSON.stringify(bad)}`);
        expect(r.code).toBe(2);
        expect(r.out).toBe('');
      });
    }
  }

  for (const bad of ['abc', '1.5', '0', '-2', '1e3']) {
    it(`run --seeds ${bad} exits 2`, async () => {
      const r = await cli(['run', BASELINE, '--seeds', bad, '--dry-run']);
      expect(r.err).toContain(`zonesim: --seeds: expected a whole number >= 1, found ${JSON.stringify(bad)}`);
      expect(r.code).toBe(2);
    });
  }

  it('seeds that run past the largest safe integer are refused', async () => {
    const r = await cli(['run', BASELINE, '--seed', '9007199254740991', '--seeds', '3', '--dry-run']);
    expect(r.err).toContain('--seeds: seeds 9007199254740991..');
    expect(r.code).toBe(2);
  });

  it('good seeds still work', async () => {
    const r = await cli(['run', BASELINE, '--seed', '0', '--seeds', '2', '--dry-run']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('seeds 0..1');
  });

  it('the built CLI refuses --seed abc (ran with seed NaN before)', () => {
    const env = { ...process.env };
    delete env.ZONESIM_SUPERVISED;
    delete env.ZONESIM_NO_SUPERVISOR;
    delete env.NODE_OPTIONS;
    const r = spawnSync(process.execPath, [join(root, 'bin', 'zonesim.js'), 'run', BASELINE, '--seed', 'abc'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('zonesim: --seed: expected a non-negative safe integer (0 to 9007199254740991), found "abc"\n');
    expect(r.status).toBe(2);
  });
});

describe('negative values for options', () => {
  it('joins a value starting with -digit to the option before it', () => {
    expect(joinDashValues(['run', 'x', '--bucket', '-1s', '--seed', '-1', '--', '--a', '-1s'])).toEqual(['run', 'x', '--bucket=-1s', '--seed', '-1', '--', '--a', '-1s']);
  });

  for (const args of [['--bucket', '-1s'], ['--bucket=-1s'], ['--bucket', '-0.5ms']]) {
    it(`run ${args.join(' ')} names --bucket`, async () => {
      const r = await cli(['run', BASELINE, ...args, '--dry-run']);
      expect(r.err).toMatch(/^zonesim: --bucket: expected a positive duration such as 1s or 500ms, found "-/);
      expect(r.err).not.toContain('Unknown argument');
      expect(r.code).toBe(2);
    });
  }

  it('--max-requests -1e3 is not read as short flags', async () => {
    const r = await cli(['run', BASELINE, '--max-requests', '-1e3', '--dry-run']);
    expect(r.err).not.toContain('Unknown argument');
    expect(r.code).toBe(2);
  });
});
