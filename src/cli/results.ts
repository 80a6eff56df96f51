/**
 * Results folders (SPEC 4.1): `results/<scenario>/<run-id>/` with summary.json, summary.csv,
 * timeline.csv, the scenario as run, and report.html when asked. Written into a hidden temporary
 * folder and renamed into place, so an interrupted run leaves no partial folder behind.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
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

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_') || 'scenario';
}
