/**
 * Errors across the worker-thread boundary. A worker's thrown Error reaches the main thread as a
 * plain Error (structured clone keeps the message, drops the class, `name` and extra fields), so a
 * bad plugin path found in a worker would print as a failure (exit 1) instead of bad input
 * (exit 2). Workers throw `toTransferable(error)` instead, a plain object that keeps what
 * `reportError` (cli/report-error.ts) reads, and the main thread rebuilds the error with
 * `fromTransferable`.
 */
import { ScenarioError, type ScenarioIssue } from '../scenario/scenario-error.js';
import { InvariantError } from '../scenario/run.js';
import { UsageError } from '../scenario/io.js';

const MARK = 'zonesimWorkerError';

interface TransferableError {
  [MARK]: true;
  name: string;
  message: string;
  stack?: string;
  code?: string;
  hint?: string;
  details?: string;
  issues?: ScenarioIssue[];
  violations?: string[];
}

/**
 * What a worker throws in place of `error`: a plain object structured clone keeps whole. A value
 * whose reading throws (a Proxy thrown by plugin code outside its guarded calls) still gives one.
 */
export function toTransferable(error: unknown): TransferableError {
  try {
    return transferable(error);
  } catch {
    return { [MARK]: true, name: 'Error', message: 'a worker thread threw an object that throws when read' };
  }
}

function transferable(error: unknown): TransferableError {
  const e = (error ?? {}) as Partial<TransferableError> & { issues?: ScenarioIssue[] };
  const out: TransferableError = {
    [MARK]: true,
    name: typeof e.name === 'string' ? e.name : 'Error',
    message: typeof e.message === 'string' ? e.message : String(error),
  };
  if (typeof e.stack === 'string') out.stack = e.stack;
  if (typeof e.code === 'string') out.code = e.code;
  if (typeof e.hint === 'string') out.hint = e.hint;
  if (typeof e.details === 'string') out.details = e.details;
  if (Array.isArray(e.issues)) out.issues = e.issues.map((i) => ({ ...i }));
  if (Array.isArray(e.violations)) out.violations = [...e.violations];
  return out;
}

/** The error a worker threw, rebuilt (anything else, such as a pool's own error, is returned as is). */
export function fromTransferable(thrown: unknown): unknown {
  const t = thrown as Partial<TransferableError> | null;
  if (t === null || typeof t !== 'object' || t[MARK] !== true) return thrown;
  let error: Error;
  if (t.name === 'ScenarioError' && t.issues !== undefined && t.issues.length > 0) error = new ScenarioError(t.issues);
  else if (t.name === 'UsageError') {
    error = new UsageError(t.message ?? '', t.hint);
    if (t.details !== undefined) (error as UsageError & { details?: string }).details = t.details;
  } else if (t.name === 'InvariantError' && t.violations !== undefined) error = new InvariantError(t.violations);
  else {
    error = new Error(t.message);
    error.name = t.name ?? 'Error';
    if (t.code !== undefined) (error as Error & { code?: string }).code = t.code;
  }
  if (t.stack !== undefined) error.stack = t.stack;
  return error;
}
