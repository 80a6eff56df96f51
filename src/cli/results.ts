/**
 * Results folders (SPEC 4.1): `results/<scenario>/<run-id>/` with summary.json, summary.csv,
 * timeline.csv, the scenario as run, and report.html when asked. Written into a hidden temporary
 * folder and renamed into place, so an interrupted run leaves no partial folder behind.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** A run id from the wall clock (the CLI is the only layer allowed to read it). */
export function newRunId(seed: number, now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return (
    `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-` +
    `${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}-seed${seed}`
  );
}

/** Writes `files` (name → content) atomically into `<root>/<scenario>/<runId>/` and returns that path. */
export function writeResults(root: string, scenario: string, runId: string, files: Record<string, string>): string {
  const parent = resolve(root, safeName(scenario));
  mkdirSync(parent, { recursive: true });
  removeAbandoned(parent);
  let finalDir = join(parent, runId);
  for (let i = 2; existsSync(finalDir); i++) finalDir = join(parent, `${runId}-${i}`);
  const tmp = join(parent, `.tmp-${runId}-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(tmp, name), content);
    renameSync(tmp, finalDir);
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
  return finalDir;
}

// A run killed while writing (SIGKILL, power loss) leaves its hidden temporary folder: remove those
// whose process is gone, so no partial results stay behind.
function removeAbandoned(parent: string): void {
  for (const entry of readdirSync(parent)) {
    const m = /^\.tmp-.*-(\d+)$/.exec(entry);
    if (!m || Number(m[1]) === process.pid) continue;
    let alive = true;
    try {
      process.kill(Number(m[1]), 0);
    } catch {
      alive = false;
    }
    if (!alive) rmSync(resolve(parent, entry), { recursive: true, force: true });
  }
}

/** A scenario name as a folder name. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_') || 'scenario';
}
