/**
 * Start-up: the CLI reads its options without loading the simulation model, so `--version` and
 * `--help` answer at once and `--jobs` workers start loading while this thread loads the model.
 * Runs the CLI as shipped (the bundle in dist/bundle/, built by pretest) with a module hook that
 * lists what it loads; a loaded file holds the model when it defines the load balancers.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

// The bundle's files that define the model (its load balancers' classes).
const holdingModel = (urls: string[]): string[] =>
  urls.filter((u) => u.includes('/dist/') && /\bRandomLoadBalance = class\b|class RandomLoadBalance\b/.test(readFileSync(fileURLToPath(u), 'utf8')));

describe('CLI start-up', () => {
  it('loads no module of the model for --version', () => {
    const loaded = loadedBy(['--version']);
    expect(loaded.some((u) => u.endsWith('/dist/bundle/main.js'))).toBe(true);
    expect(loaded.filter((u) => u.includes('/dist/') && !u.includes('/dist/bundle/'))).toEqual([]);
    expect(holdingModel(loaded)).toEqual([]);
  });

  it('loads the model once a command runs a scenario', () => {
    const loaded = loadedBy(['run', 'scenarios/dual-zone-baseline.yaml', '--dry-run']);
    expect(holdingModel(loaded)).toHaveLength(1);
  });
});
