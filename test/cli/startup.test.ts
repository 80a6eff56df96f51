/**
 * Start-up: the CLI reads its options without loading the simulation model, so `--version` and
 * `--help` answer at once and `--jobs` workers start loading while this thread loads the model.
 * Runs the compiled CLI (dist/, built by pretest) with a module hook that lists what it loads.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

// Prints each module URL the program loads to stderr, one per line.
const LIST_LOADS =
  'data:text/javascript,' +
  encodeURIComponent(
    `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent('export async function load(url, context, next) { process._rawDebug("LOAD " + url); return next(url, context); }'));`,
  );

function loadedBy(args: string[]): string[] {
  const r = spawnSync(process.execPath, ['--import', LIST_LOADS, join(root, 'bin/zonesim.js'), ...args], {
    cwd: root,
    env: { ...process.env, ZONESIM_NO_SUPERVISOR: '1' },
    encoding: 'utf8',
  });
  expect(r.status).toBe(0);
  return r.stderr
    .split('\n')
    .filter((l) => l.startsWith('LOAD file:'))
    .map((l) => l.slice('LOAD '.length));
}

describe('CLI start-up', () => {
  it('loads no module of the model for --version', () => {
    const loaded = loadedBy(['--version']);
    expect(loaded.some((u) => u.endsWith('/dist/cli/main.js'))).toBe(true);
    expect(loaded.filter((u) => /\/dist\/(engine|world|dubbo|metrics)\//.test(u))).toEqual([]);
  });

  it('loads the model once a command runs a scenario', () => {
    const loaded = loadedBy(['run', 'scenarios/dual-zone-baseline.yaml', '--dry-run']);
    expect(loaded.some((u) => u.endsWith('/dist/dubbo/loadbalance/random-load-balance.js'))).toBe(true);
  });
});
