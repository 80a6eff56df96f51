import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVERY_CORE_V8_FLAGS, simulatesOnEveryCore } from '../../src/parallel/busy-cores.js';
import { childExecArgv, superviseCli } from '../../src/parallel/out-of-memory.js';

const busy = (line: string, cores = 2) => simulatesOnEveryCore(line.split(' ').filter(Boolean), cores);

describe('simulatesOnEveryCore', () => {
  it('is true for the commands that run simulations side by side, with the default --jobs', () => {
    expect(busy('compare s.yaml')).toBe(true);
    expect(busy('compare s.yaml --seeds 2 --json')).toBe(true);
    expect(busy('recommend s.yaml')).toBe(true);
    expect(busy("sweep s.yaml --grid seed=1,2")).toBe(true);
    expect(busy('run s.yaml --seeds 3')).toBe(true);
    expect(busy('run s.yaml --seeds=3')).toBe(true);
  });

  it('is false for one simulation at a time', () => {
    expect(busy('run s.yaml')).toBe(false);
    expect(busy('run s.yaml --seeds 1')).toBe(false);
    expect(busy('run s.yaml --seed 7')).toBe(false);
    expect(busy('compare s.yaml --jobs 1')).toBe(false);
    expect(busy('compare s.yaml --jobs=1')).toBe(false);
    expect(busy('compare s.yaml', 1)).toBe(false);
  });

  it('reads --jobs against the cores: fewer threads than cores leave cores for V8', () => {
    expect(busy('compare s.yaml --jobs 4', 4)).toBe(true);
    expect(busy('compare s.yaml --jobs 8', 4)).toBe(true);
    expect(busy('compare s.yaml --jobs 2', 4)).toBe(false);
    expect(busy('compare s.yaml', 4)).toBe(true);
    // The last --jobs given wins, as in yargs.
    expect(busy('compare s.yaml --jobs 1 --jobs 2')).toBe(true);
  });

  it('counts no more threads than seeds for run: 2 seeds keep 2 of 4 cores busy, whatever --jobs', () => {
    expect(busy('run s.yaml --seeds 2', 4)).toBe(false);
    expect(busy('run s.yaml --seeds 2 --jobs 1000', 4)).toBe(false);
    expect(busy('run s.yaml --seeds 4 --jobs 1000', 4)).toBe(true);
    expect(busy('run s.yaml --seeds 2 --jobs 1000', 2)).toBe(true);
  });

  it('is false for lines that run nothing, and for commands that do not simulate', () => {
    expect(busy('compare s.yaml --dry-run')).toBe(false);
    expect(busy('sweep s.yaml --grid seed=1,2 --explain 3')).toBe(false);
    expect(busy('compare --help')).toBe(false);
    expect(busy('route s.yaml')).toBe(false);
    expect(busy('check rule.yaml')).toBe(false);
    expect(busy('--version')).toBe(false);
    expect(busy('')).toBe(false);
  });

  it('finds the command after the global options, and leaves bad values to the CLI (no flag)', () => {
    expect(busy('--no-plugins compare s.yaml')).toBe(true);
    expect(busy('--plugin-timeout 5s compare s.yaml')).toBe(true);
    expect(busy('--plugin-timeout=5s run s.yaml --seeds 2')).toBe(true);
    expect(busy('compare s.yaml --jobs two')).toBe(false);
    expect(busy('run s.yaml --seeds 1.5')).toBe(false);
    // A value after `--` is the scenario's, not an option.
    expect(busy('run s.yaml -- --seeds 3')).toBe(false);
  });
});

describe('the supervisor and every core busy', () => {
  it('adds the flags after CHILD_V8_FLAGS, unless node\'s command line sets them', () => {
    const base = childExecArgv([]);
    expect(childExecArgv([], EVERY_CORE_V8_FLAGS)).toEqual([...base, ...EVERY_CORE_V8_FLAGS]);
    expect(childExecArgv(['--no-single-threaded'], EVERY_CORE_V8_FLAGS)).toEqual(['--no-single-threaded', ...base]);
    expect(childExecArgv(['--single_threaded'], EVERY_CORE_V8_FLAGS)).toEqual(['--single_threaded', ...base]);
  });

  it('starts the child with them for compare and without them for a single run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zs-busy-'));
    try {
      // A stand-in for the CLI: writes the V8 flags its process got.
      const script = join(dir, 'flags.mjs');
      const out = join(dir, 'flags.json');
      writeFileSync(script, `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(out)}, JSON.stringify(process.execArgv));\n`);
      const flagsFor = async (args: string[]) => {
        expect((await superviseCli(script, args)).exitCode).toBe(0);
        return JSON.parse(readFileSync(out, 'utf8')) as string[];
      };
      const compare = await flagsFor(['compare', 's.yaml', '--jobs', '64']);
      expect(compare.includes('--single-threaded')).toBe(availableParallelism() >= 2);
      expect(await flagsFor(['run', 's.yaml', '--jobs', '64'])).not.toContain('--single-threaded');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
