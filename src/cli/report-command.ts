/**
 * `zonesim report <results-dir>`: rebuilds report.html from the summary.json (run) or
 * compare.json (comparison) or sweep.json (sweep, best cell by the objective its `best` names) in a results
 * folder. The JSON is checked first (`report-input.ts`): a malformed file is one positioned line
 * and exit 2. The file is written atomically.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError, type Io } from '../scenario/io.js';
import { renderReport } from '../report/report.js';
import { readCompareFile, readSummaryFile, readSweepFile } from './report-input.js';
import { renderSweepReport } from '../report/sweep-report.js';
import { objectiveOf } from '../report/sweep-objective.js';
import { describeFsError } from './results.js';
import { writeFileAtomically } from './safe-write.js';

/** Runs the command; returns the exit code. */
export function runReport(opts: { dir: string }, io: Io): number {
  const dir = resolve(io.cwd, opts.dir);
  let html: string;
  if (existsSync(join(dir, 'sweep.json'))) {
    const file = join(dir, 'sweep.json');
    const doc = readSweepFile(file);
    html = renderSweepReport(doc, objectiveOf(doc.best, file));
  } else if (existsSync(join(dir, 'compare.json'))) {
    const doc = readCompareFile(join(dir, 'compare.json'));
    html = renderReport(doc.byStrategy, `${doc.scenario}: strategies compared`, doc.strategies);
  } else if (existsSync(join(dir, 'summary.json'))) {
    const summary = readSummaryFile(join(dir, 'summary.json'));
    html = renderReport({ [summary.scenario]: summary });
  } else {
    throw new UsageError(`${dir}: no summary.json or compare.json (or sweep.json) here`, 'give a folder that zonesim run, compare, sweep or merge wrote');
  }
  const target = join(dir, 'report.html');
  try {
    writeFileAtomically(dir, 'report.html', html);
  } catch (error) {
    io.stderr(`zonesim: could not write ${target} (${describeFsError(error)}): nothing was written\n`);
    return 1;
  }
  io.stdout(`report: ${target}\n`);
  return 0;
}
