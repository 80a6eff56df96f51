/**
 * `run --traces FILE [--trace-sample F | errors]`: the options' checks before any simulation (a
 * sample that parses, a file that can be written, a scenario without plugins, whose code runs on a
 * worker thread where traces are not recorded), the trace recorder of the traced seed, and writing
 * the OTLP JSON file through safe-write.ts (a new temporary file renamed into place: a symlink at the
 * path is replaced, never followed).
 */
import { rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { writeOtlpTraces } from '../metrics/otlp-traces.js';
import { DEFAULT_TRACE_SAMPLE, TraceRecorder, type TraceSample } from '../metrics/trace-recorder.js';
import type { Scenario } from '../model/types.js';
import { UsageError, type Io } from '../scenario/io.js';
import { pluginNames } from '../scenario/plugin-refs.js';
import { VERSION } from '../scenario/version.js';
import { EPOCH_MS } from '../world/provider.js';
import { describeFsError } from './results.js';
import { tempName, writeFileAtomically, writeNewFile } from './safe-write.js';

/** Where the traces go and which requests they hold. */
export interface TracesOut {
  path: string;
  sample: TraceSample;
}

/** `--trace-sample`: a fraction of requests in (0, 1], or `errors` (every request whose outcome is not ok). */
export function parseTraceSample(text: string): TraceSample {
  const t = text.trim();
  if (t === 'errors') return { kind: 'errors' };
  const ratio = /^(?:\d+(?:\.\d*)?|\.\d+)(?:e-?\d+)?$/i.test(t) ? Number(t) : NaN;
  if (!(ratio > 0 && ratio <= 1)) throw new UsageError(`--trace-sample: expected a fraction of requests in (0, 1] such as 0.01, or "errors", found "${text}"`);
  return { kind: 'ratio', ratio };
}

/**
 * The traces asked for on the command line (undefined without `--traces`), checked before the run:
 * the file's folder must exist and take a new file, and the scenario must call no plugin.
 */
export function tracesOut(cwd: string, scenario: Scenario, traces: string | undefined, sample: string | undefined): TracesOut | undefined {
  if (traces === undefined) {
    if (sample !== undefined) throw new UsageError('--trace-sample: only with --traces FILE.json');
    return undefined;
  }
  if (traces.trim() === '') throw new UsageError('--traces: expected a file name such as traces.json');
  const out = { path: resolve(cwd, traces), sample: sample === undefined ? DEFAULT_TRACE_SAMPLE : parseTraceSample(sample) };
  const plugins = pluginNames([scenario]);
  if (plugins.length > 0) {
    throw new UsageError(`--traces: the scenario calls plugins (${plugins.join(', ')}), whose simulations run on a worker thread that records no traces`);
  }
  checkWritable(out.path);
  return out;
}

// Writes and removes a probe file beside the target, so that a bad path is an exit-2 error before the run.
function checkWritable(path: string): void {
  const dir = dirname(path);
  try {
    if (!statSync(dir).isDirectory()) throw new Error(`ENOTDIR: not a directory`);
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      // Not there yet: it will be created.
    }
    if (isDir) throw new UsageError(`--traces: ${path} is a folder; expected a file name such as ${join(path, 'traces.json')}`);
    const probe = join(dir, tempName('probe'));
    writeNewFile(probe, '');
    rmSync(probe, { force: true });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--traces: cannot write ${path} (${describeFsError(error)})`, 'give --traces a file in a writable folder');
  }
}

/** The recorder of the traced seed's simulation. */
export function traceRecorder(out: TracesOut, scenario: Scenario, seed: number): TraceRecorder {
  return new TraceRecorder({
    sample: out.sample,
    warmupMs: scenario.warmupMs,
    durationMs: scenario.durationMs,
    run: { scenario: scenario.name, seed, version: VERSION },
  });
}

/**
 * Writes the traces file and says what it holds (stdout, unless `--json` keeps stdout for the summary)
 * and whether the cap cut it short (stderr). False when the file could not be written (said on stderr).
 */
export function writeTracesOrSay(io: Io, out: TracesOut, recorder: TraceRecorder, json: boolean): boolean {
  const truncatedAt = recorder.truncatedAtMs;
  if (truncatedAt !== null) {
    io.stderr(
      `zonesim: warning: --traces: the cap of ${recorder.maxSpans} spans was reached at simulated ${(truncatedAt / 1000).toFixed(3)} s; ` +
        `later requests were not traced (the file's resources say zonesim.trace.truncated=true; a smaller --trace-sample covers the whole run)\n`,
    );
  }
  try {
    writeFileAtomically(dirname(out.path), basename(out.path), (write) => writeOtlpTraces(recorder, { epochMs: EPOCH_MS, version: VERSION }, write));
  } catch (error) {
    io.stderr(`zonesim: error: could not write the traces to ${out.path} (${describeFsError(error)})\n`);
    return false;
  }
  if (!json) io.stdout(`traces: ${out.path} (${recorder.traces} traces, ${recorder.spans} spans)\n`);
  return true;
}
