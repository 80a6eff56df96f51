/**
 * The record a request carries while the world runs it: when it started, whether it counts in the
 * figures and where (its cell, timeline bucket and scope), and its attempts, executions and outcome
 * so far. The recorder (recorder.ts) makes one per request and updates it; the world keeps it and
 * reads only whether it has ended.
 */
import type { ScopeCell } from './scope-cell.js';
import type { Outcome } from './summary.js';

/** The per-request state the world keeps with a request (a plain mutable record, no per-event allocation). */
export class RequestRecord {
  readonly startMs: number;
  readonly idempotent: boolean;
  /** True when the request counts in the figures (`warmupMs <= startMs < durationMs`). */
  readonly measured: boolean;
  /** The cell of the figures this request updates; null when not measured. */
  readonly cell: ScopeCell | null;
  /** Timeline bucket; -1 when not measured. */
  readonly bucket: number;
  /** Timeline scope (the consumer zone's); -1 when not measured. */
  readonly scope: number;
  attempts = 0;
  executions = 0;
  /** The outcome once ended, null while in flight. */
  outcome: Outcome | null = null;
  /** True once the request has ended (the world's `RequestHandle`). */
  ended = false;

  constructor(startMs: number, idempotent: boolean, cell: ScopeCell | null, bucket: number, scope = -1) {
    this.startMs = startMs;
    this.idempotent = idempotent;
    this.measured = cell !== null;
    this.cell = cell;
    this.bucket = bucket;
    this.scope = scope;
  }
}
