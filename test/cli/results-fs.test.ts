/**
 * Results folders when the file system changes under a run: another run taking the same run id
 * between the check and the rename, and writing failing after a finished simulation.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkResultsDir, writeResults } from '../../src/cli/results.js';
import { writePart } from '../../src/cli/parts.js';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

/** Runs before each renameSync of a `.tmp-` folder (set by a test). */
const hooks: {
  beforeRename?: (from: string, to: string) => void;
  /** Runs before each writeFileSync, each file created by openSync(path, 'wx'), and each mkdirSync (set by a test). */
  beforeWrite?: (path: string) => void;
  beforeMkdir?: (path: string) => void;
  /** Runs before each writeSync, with the path its file was opened with. */
  onWrite?: (path: string) => void;
} = {};

/** The path each open file descriptor was opened with. */
const paths = new Map<number, string>();

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const renameSync = (from: string, to: string) => {
    if (String(from).includes('.tmp-')) hooks.beforeRename?.(String(from), String(to));
    return actual.renameSync(from, to);
  };
  const writeFileSync = ((path: string, ...rest: unknown[]) => {
    hooks.beforeWrite?.(String(path));
    return (actual.writeFileSync as (...a: unknown[]) => void)(path, ...rest);
  }) as typeof actual.writeFileSync;
  // Files zonesim writes are created with openSync(path, 'wx'), then written with writeSync.
  const openSync = ((path: string, ...rest: unknown[]) => {
    if (rest[0] === 'wx') hooks.beforeWrite?.(String(path));
    const fd = (actual.openSync as (...a: unknown[]) => number)(path, ...rest);
    paths.set(fd, String(path));
    return fd;
  }) as typeof actual.openSync;
  const writeSync = ((fd: number, ...rest: unknown[]) => {
    hooks.onWrite?.(paths.get(fd) ?? '');
    return (actual.writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof actual.writeSync;
  const mkdirSync = ((path: string, ...rest: unknown[]) => {
    hooks.beforeMkdir?.(String(path));
    return (actual.mkdirSync as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof actual.mkdirSync;
  const fs = { ...actual, renameSync, writeFileSync, openSync, writeSync, mkdirSync };
  return { ...fs, default: fs };
});

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const SHORT = ['--set', 'duration=8s', '--set', 'warmup=1s'];

beforeEach(() => {
  hooks.beforeRename = undefined;
  hooks.beforeWrite = undefined;
  hooks.beforeMkdir = undefined;
  hooks.onWrite = undefined;
});

describe('two runs writing under one --out at once', () => {
  it('moves on to the next suffix when another run takes the name just before the rename', () => {
    const out = tempDir('zs-race-');
    let raced = 0;
    hooks.beforeRename = (_from, to) => {
      // Another run finishes its folder under the same name (twice), after this one checked it.
      if (raced++ < 2) {
        mkdirSync(to);
        writeFileSync(join(to, 'a.txt'), `other ${raced}`);
      }
    };
    const dir = writeResults(out, 's', 'r1', { 'a.txt': 'mine' });
    expect(dir).toBe(join(out, 's', 'r1-3'));
    expect(readdirSync(join(out, 's')).sort()).toEqual(['r1', 'r1-2', 'r1-3']);
    expect(readFileSync(join(out, 's', 'r1', 'a.txt'), 'utf8')).toBe('other 1');
    expect(readFileSync(join(out, 's', 'r1-2', 'a.txt'), 'utf8')).toBe('other 2');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('mine');
  });
});

describe('another zonesim checking the same --out while one writes', () => {
  // checkResultsDir removes the scenario folder it created once its probe is done; a writer that made
  // the folder just before then finds it gone. Here the folder goes between the writer's mkdir and its
  // first write: two shards on one --out, one finishing as the other starts, can hit that moment.
  it('writes its part file all the same', () => {
    const dir = join(tempDir('zs-race-'), 'timeout-sweep');
    let writes = 0;
    hooks.beforeWrite = (path) => {
      if (path.includes('.tmp-sweep.part-') && writes++ === 0) rmdirSync(dir);
    };
    expect(readFileSync(writePart(dir, 'sweep.part-3-of-3.json', '{"k": 3}'), 'utf8')).toBe('{"k": 3}');
    expect(writes).toBe(2);
  });

  it('writes its part file all the same when the creation of its folder finds a parent gone', () => {
    const dir = join(tempDir('zs-race-'), 'parts', 'timeout-sweep');
    let failed = 0;
    hooks.beforeMkdir = (path) => {
      if (path === dir && failed++ === 0) throw Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${path}'`), { code: 'ENOENT' });
    };
    expect(readFileSync(writePart(dir, 'sweep.part-1-of-3.json', '{"k": 1}'), 'utf8')).toBe('{"k": 1}');
    expect(failed).toBe(2);
  });

  it('writes its results folder all the same', () => {
    const out = tempDir('zs-race-');
    let removed = false;
    hooks.beforeMkdir = (path) => {
      if (!removed && path.includes('.tmp-')) {
        removed = true;
        // What the other run's check leaves: its probe done, the folder it created removed again.
        rmdirSync(dirname(path));
        checkResultsDir(out, 'dual-zone-baseline');
        expect(existsSync(dirname(path))).toBe(false);
      }
    };
    const dir = writeResults(out, 'dual-zone-baseline', 'r1', { 'a.txt': 'x' });
    expect(removed).toBe(true);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('x');
  });
});

describe('two zonesims checking the same --out at once', () => {
  // Each check creates the scenario folder if missing and removes it again when it created it; a check
  // that found the folder there can see it removed before its probe (CI saw "ENOENT ... mkdir
  // '.../parts/timeout-sweep/.tmp-probe-…'" with three shards on one folder).
  it('makes the folder again when the other check removed it, and leaves none behind', () => {
    const out = tempDir('zs-race-');
    let removed = 0;
    hooks.beforeMkdir = (path) => {
      if (path.includes('.tmp-probe-') && removed++ === 0) rmdirSync(dirname(path));
    };
    expect(() => checkResultsDir(out, 'timeout-sweep')).not.toThrow();
    expect(removed).toBe(2);
    expect(existsSync(join(out, 'timeout-sweep'))).toBe(false);
  });

  // The folder's own creation can lose the race too: a recursive mkdir that made `parts` finds it
  // removed by the other check when it makes `parts/timeout-sweep` (CI saw "ENOENT ... mkdir
  // '.../parts/timeout-sweep'" with three shards on one folder).
  it('makes the folder again when its own creation finds a parent gone', () => {
    const parts = join(tempDir('zs-race-'), 'parts');
    let failed = 0;
    hooks.beforeMkdir = (path) => {
      if (path === join(parts, 'timeout-sweep') && failed++ === 0) {
        throw Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${path}'`), { code: 'ENOENT' });
      }
    };
    expect(() => checkResultsDir(parts, 'timeout-sweep')).not.toThrow();
    expect(failed).toBe(2);
    expect(existsSync(parts)).toBe(false);
    const dir = writeResults(parts, 'timeout-sweep', 'r1', { 'a.txt': 'x' });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('x');
  });
});

describe('writing fails after a finished run', () => {
  for (const json of [false, true]) {
    it(`still prints the ${json ? 'JSON' : 'table'}, says nothing was written, exits 1`, async () => {
      const out = tempDir('zs-fail-');
      hooks.beforeRename = () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, rename'), { code: 'ENOSPC' });
      };
      const o: string[] = [];
      const e: string[] = [];
      const io = { stdout: (s: string) => o.push(s), stderr: (s: string) => e.push(s), cwd: root };
      const code = await main(['run', 'scenarios/dual-zone-baseline.yaml', '--out', out, ...(json ? ['--json'] : []), ...SHORT], io);
      expect(code).toBe(1);
      if (json) expect(JSON.parse(o.join(''))).toHaveProperty('requests');
      else expect(o.join('')).toMatch(/p99/);
      expect(o.join('')).not.toContain('results:');
      expect(e.join('')).toMatch(/could not write the results folder under .*no space left.*nothing was written/);
      // No partial or temporary folder stays behind.
      expect(readdirSync(resolve(out, 'dual-zone-baseline'))).toEqual([]);
    });
  }
});

describe('the disk fills up while a part file or a report is written', () => {
  const full = () => {
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };

  it('sweep --shard: one line, exit 1, the JSON still printed, no partial or temporary file left', async () => {
    const out = tempDir('zs-full-');
    hooks.onWrite = (path) => {
      if (path.includes('.tmp-sweep.part-')) full();
    };
    const o: string[] = [];
    const e: string[] = [];
    const io = { stdout: (s: string) => o.push(s), stderr: (s: string) => e.push(s), cwd: root };
    const args = ['sweep', 'scenarios/timeout-sweep.yaml', '--grid', 'consumers[0].consumerDefaults.retries=0,1', ...SHORT, '--shard', '1/2', '--json', '--out', out];
    const code = await main(args, io);
    expect(code).toBe(1);
    expect(JSON.parse(o.join('')).zonesim).toBe('sweep-part');
    const part = join(out, 'timeout-sweep', 'sweep.part-1-of-2.json');
    expect(e.join('')).toBe(`zonesim: could not write the part file ${part} (ENOSPC: no space left on device): nothing was written\n`);
    expect(readdirSync(join(out, 'timeout-sweep'))).toEqual([]);
  });

  it('report: one line, exit 1, the report there before kept, no temporary file left', async () => {
    const out = tempDir('zs-full-');
    const io = { stdout: () => undefined, stderr: () => undefined, cwd: root };
    expect(await main(['run', 'scenarios/dual-zone-baseline.yaml', '--out', out, '--report', ...SHORT], io)).toBe(0);
    const dir = join(out, 'dual-zone-baseline', readdirSync(join(out, 'dual-zone-baseline'))[0]!);
    const before = readFileSync(join(dir, 'report.html'), 'utf8');
    const files = readdirSync(dir).sort();
    hooks.onWrite = (path) => {
      if (path.includes('.tmp-report.html-')) full();
    };
    const e: string[] = [];
    const code = await main(['report', dir], { ...io, stderr: (s: string) => e.push(s) });
    expect(code).toBe(1);
    expect(e.join('')).toBe(`zonesim: could not write ${join(dir, 'report.html')} (ENOSPC: no space left on device): nothing was written\n`);
    expect(readdirSync(dir).sort()).toEqual(files);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toBe(before);
  });
});
