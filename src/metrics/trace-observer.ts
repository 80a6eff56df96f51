/**
 * What the world reports for simulated traces (`run --traces`), beyond the figures the WorldObserver
 * gets: who made a request and for which execution, each attempt's provider and timeout, when a call
 * reached its provider, started on a thread and finished, and how each attempt ended. A world has one
 * only when traces are asked for (else null, and every call site is skipped); trace-recorder.ts
 * implements it. Calls and requests are identified by the objects the world already holds.
 */
import type { Outcome, RequestHandle } from './observer.js';

/** A provider process as a trace names it (the world's ProviderExport has these fields). */
export interface TracedProvider {
  readonly ip: string;
  readonly port: number;
  readonly zone: string;
  readonly group: { readonly spec: { readonly name: string; readonly application: string } };
}

/**
 * How an attempt ended, from the consumer's side: a reply (`ok`, `biz`, `refused`, `exhausted`, `limited`),
 * its timeout, or at once without sending (`closed`: the channel is closed; `noTimeLeft`: the timeout
 * countdown left nothing; `actives`: the consumer's ActiveLimitFilter refused it).
 */
export type AttemptResult = 'ok' | 'biz' | 'refused' | 'exhausted' | 'limited' | 'blocked' | 'timeout' | 'closed' | 'noTimeLeft' | 'actives';

/** Receives the world's events for traces; every method ignores requests and calls it does not trace. */
export interface TraceObserver {
  /**
   * A request started (after `WorldObserver.startRequest` made `req`): by `application` on the process
   * `instance` (`host` its IP, in `zone`); `parent` is the call whose execution makes it (a call graph's
   * downstream call), null for a consumer's own request.
   */
  request(req: RequestHandle, application: string, instance: string, host: string, zone: string, service: string, method: string, startMs: number, parent: object | null): void;
  requestEnded(req: RequestHandle, outcome: Outcome, endMs: number, cause: string | undefined): void;
  /**
   * The cluster invoked a provider for `req`: `call` is what was sent, or null when the attempt ended at
   * once with `immediate` (nothing sent).
   */
  attempt(req: RequestHandle, call: object | null, provider: TracedProvider, service: string, method: string, timeoutMs: number, crossZone: boolean, atMs: number, immediate?: AttemptResult): void;
  attemptEnded(call: object, result: AttemptResult, atMs: number): void;
  /** The call's message reached its provider process. */
  received(call: object, atMs: number): void;
  /**
   * The call will never execute: its message was lost, a black-holed process ignored it, a crashed one
   * refused it, the pool rejected it, a provider filter refused it, or the process died while it queued.
   */
  notExecuted(call: object): void;
  /** A thread started executing the call; its own service time is `serviceMs` (downstream calls come on top). */
  executing(call: object, atMs: number, serviceMs: number): void;
  /** The execution finished and freed its thread. */
  executed(call: object, atMs: number): void;
  /** The execution's response was lost, late or never sent: no consumer used it. */
  orphaned(call: object): void;
}
