/**
 * `zonesim merge <part>...`: combines the part files of a sharded sweep or comparison into the
 * result the unsharded command gives: the same JSON and CSV bytes, the same table, the same
 * results folder (with the scenario as run, and `report.html` with `--report`). The parts are
 * checked first (`parts.ts`): one job, every shard once.
 */
import { compareByStrategy, writeCompare } from './compare.js';
import type { CompareTableOptions } from '../report/compare-table.js';
import type { Io } from '../scenario/io.js';
import { partPaths, readParts, type ComparePart, type SweepPart } from './parts.js';
import { parseObjective } from '../report/sweep-objective.js';
import { sweepDoc } from '../report/sweep-output.js';
import { writeSweep } from './sweep-results.js';

export interface MergeOptions {
  parts: string[];
  out?: string;
  json: boolean;
  report: boolean;
  objective?: string;
  maxTimeoutRate?: number;
  /** A comparison's table: `zone` adds one row per strategy and consumer zone. */
  by?: CompareTableOptions['by'];
}

/** Runs the command; returns the exit code. */
export async function runMerge(opts: MergeOptions, io: Io): Promise<number> {
  const objective = parseObjective(opts.objective, opts.maxTimeoutRate);
  const parts = readParts(partPaths(opts.parts, io));
  const first = parts[0]!;
  const scenarioFile = { fileName: first.scenarioFile, text: first.scenarioText };
  if (first.zonesim === 'sweep-part') {
    const cells = (parts as SweepPart[]).flatMap((p) => p.cells).sort((a, b) => a.index - b.index);
    const doc = sweepDoc(first.header, cells, objective);
    const dir = await writeSweep(doc, scenarioFile, { out: opts.out, json: opts.json, report: opts.report, objective }, io);
    return dir === undefined ? 1 : 0;
  }
  const header = (first as ComparePart).header;
  const runs = (parts as ComparePart[]).flatMap((p) => p.runs).sort((a, b) => a.index - b.index);
  const names = Object.keys(header.strategies);
  const byStrategy = compareByStrategy(names, header.seeds.length, runs.map((r) => r.summary));
  const dir = await writeCompare({ ...header, byStrategy }, scenarioFile, opts, io);
  return dir === undefined ? 1 : 0;
}
