/**
 * `zonesim report <results-dir>`: rebuilds report.html from the summary.json (run) or
 * compare.json (comparison) or sweep.json (sweep, best cell by the default objective) in a results
 * folder. The file is written atomically.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Summary } from '../metrics/summary.js';
import { UsageError, type Io } from './io.js';
import { renderReport } from './report.js';
import { renderSweepReport } from './sweep-report.js';
import { parseObjective, type SweepDoc } from './sweep-output.js';

/** Runs the command; returns the exit code. */
export function runReport(opts: { dir: string }, io: Io): number {
  const dir = resolve(io.cwd, opts.dir);
  let html: string;
  const read = (file: string): unknown => {
    try {
      return JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (error) {
      throw new UsageError(`${join(dir, file)}: not a readable JSON file (${(error as Error).message})`);
    }
  };
  if (existsSync(join(dir, 'sweep.json'))) {
    html = renderSweepReport(read('sweep.json') as SweepDoc, parseObjective(undefined, 0.001));
  } else if (existsSync(join(dir, 'compare.json'))) {
    const doc = read('compare.json') as { scenario: string; byStrategy: Record<string, Summary> };
    html = renderReport(doc.byStrategy, `${doc.scenario}: strategies compared`);
  } else if (existsSync(join(dir, 'summary.json'))) {
    const s = read('summary.json') as Summary;
    html = renderReport({ [s.scenario]: s });
  } else {
    throw new UsageError(`${dir}: no summary.json or compare.json (or sweep.json) here`, 'give a folder that zonesim run, compare, sweep or merge wrote');
  }
  const target = join(dir, 'report.html');
  const tmp = `${target}.tmp-${process.pid}`;
  writeFileSync(tmp, html);
  renameSync(tmp, target);
  io.stdout(`report: ${target}\n`);
  return 0;
}
