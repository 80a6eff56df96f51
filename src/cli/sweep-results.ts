/**
 * The results folder of a sweep, shared by `zonesim sweep` and `zonesim merge`: `sweep.json`,
 * `sweep.csv`, the scenario as run and `report.html` when asked, written from the sweep document
 * alone (report/sweep-output.ts renders it), and the JSON or the table printed.
 */
import type { Objective } from '../report/sweep-objective.js';
import { bestLine, formatSweepTable, sweepCsv, sweepHeading, type SweepDoc } from '../report/sweep-output.js';
import type { Io } from '../scenario/io.js';
import { emitBody, jsonBody, type Body } from './json-out.js';
import { addReportOrSay, newRunId, resultsRoot, writeResultsOrSay } from './results.js';

/** How a sweep's results are written and shown. */
export interface SweepWriteOptions {
  out?: string;
  json: boolean;
  report: boolean;
  objective: Objective;
}

/**
 * Writes the sweep's results folder (`sweep.json`, `sweep.csv`, the scenario as run, and
 * `report.html` when asked, added last) and prints the JSON or the table; returns the folder, or
 * undefined when it or its report could not be written (the output is printed all the same, and
 * stderr says so in one line).
 */
export async function writeSweep(
  doc: SweepDoc,
  scenario: { fileName: string; text: string },
  opts: SweepWriteOptions,
  io: Io,
): Promise<string | undefined> {
  const json = jsonBody(doc);
  const files: Record<string, Body> = {
    'sweep.json': json,
    'sweep.csv': sweepCsv(doc),
    [`scenario${scenario.fileName.endsWith('.json') ? '.json' : '.yaml'}`]: scenario.text,
  };
  const dir = writeResultsOrSay(io, resultsRoot(io.cwd, opts.out), doc.scenario, `${newRunId(doc.seed)}-sweep`, files);
  if (opts.json) emitBody(json, (s) => io.stdout(s));
  else {
    io.stdout(`${sweepHeading(doc)}\n\n${formatSweepTable(doc, opts.objective)}\n${bestLine(doc, opts.objective)}\n`);
    if (dir !== undefined) io.stdout(`\nresults: ${dir}\n`);
  }
  // The report comes last: whatever happens to it, the results are written and printed.
  if (opts.report && dir !== undefined) {
    const { renderSweepReport } = await import('../report/sweep-report.js');
    if (!addReportOrSay(io, dir, () => renderSweepReport(doc, opts.objective))) return undefined;
  }
  return dir;
}
