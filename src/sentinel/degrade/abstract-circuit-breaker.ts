/**
 * A degrade rule's breaker: CLOSED passes everything; OPEN blocks until `timeWindow` seconds have
 * passed, then lets one probe through (HALF_OPEN) and blocks the rest; the probe's completion closes
 * or reopens it. State changes go to a listener (Sentinel's CircuitBreakerStateChangeObserver).
 * Follows sentinel-core `slots/block/degrade/circuitbreaker/AbstractCircuitBreaker.java` and `CircuitBreaker.java`.
 */
import type { DegradeRule } from '../rules.js';

/** `CircuitBreaker.State`. */
export type State = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

/** An observer of state changes (`CircuitBreakerStateChangeObserver.onStateChange`). */
export type StateChangeObserver = (prev: State, next: State, rule: DegradeRule, snapshotValue: number | null) => void;

/** What a breaker learns when an entry completes (`Context.getCurEntry()`): its RT and error. */
export interface CompletedEntry {
  createTimestamp: number;
  completeTimestamp: number;
  /** Tracer.traceEntry set an error on the entry. */
  error: boolean;
}

/** The probe entry's fate: the half-open pass's `whenTerminate` reopens when a later slot blocked it. */
export interface ProbeHandle {
  whenTerminate(hook: (blocked: boolean) => void): void;
}

/** Sentinel `AbstractCircuitBreaker`. */
export abstract class AbstractCircuitBreaker {
  readonly rule: DegradeRule;
  protected readonly recoveryTimeoutMs: number;
  protected currentState: State = 'CLOSED';
  protected nextRetryTimestamp = 0;
  readonly #observer: StateChangeObserver | undefined;

  constructor(rule: DegradeRule, observer?: StateChangeObserver) {
    this.rule = rule;
    this.recoveryTimeoutMs = rule.timeWindow * 1000;
    this.#observer = observer;
  }

  state(): State {
    return this.currentState;
  }

  /** `tryPass`: CLOSED passes; OPEN passes one probe once the retry time arrived; HALF_OPEN blocks. */
  tryPass(nowMs: number, probe: ProbeHandle): boolean {
    if (this.currentState === 'CLOSED') return true;
    if (this.currentState === 'OPEN') return nowMs >= this.nextRetryTimestamp && this.#fromOpenToHalfOpen(probe);
    return false;
  }

  /** `onRequestComplete` for an entry that was not blocked. */
  abstract onRequestComplete(entry: CompletedEntry, nowMs: number): void;
  protected abstract resetStat(nowMs: number): void;

  #fromOpenToHalfOpen(probe: ProbeHandle): boolean {
    this.currentState = 'HALF_OPEN';
    this.#notify('OPEN', 'HALF_OPEN', null);
    probe.whenTerminate((blocked) => {
      if (blocked && this.currentState === 'HALF_OPEN') {
        this.currentState = 'OPEN';
        // Java does not move nextRetryTimestamp here: the next call may probe at once.
        this.#notify('HALF_OPEN', 'OPEN', 1.0);
      }
    });
    return true;
  }

  protected fromCloseToOpen(snapshotValue: number, nowMs: number): void {
    if (this.currentState !== 'CLOSED') return;
    this.currentState = 'OPEN';
    this.nextRetryTimestamp = nowMs + this.recoveryTimeoutMs;
    this.#notify('CLOSED', 'OPEN', snapshotValue);
  }

  protected fromHalfOpenToOpen(snapshotValue: number, nowMs: number): void {
    if (this.currentState !== 'HALF_OPEN') return;
    this.currentState = 'OPEN';
    this.nextRetryTimestamp = nowMs + this.recoveryTimeoutMs;
    this.#notify('HALF_OPEN', 'OPEN', snapshotValue);
  }

  protected fromHalfOpenToClose(nowMs: number): void {
    if (this.currentState !== 'HALF_OPEN') return;
    this.currentState = 'CLOSED';
    this.resetStat(nowMs);
    this.#notify('HALF_OPEN', 'CLOSED', null);
  }

  protected transformToOpen(triggerValue: number, nowMs: number): void {
    if (this.currentState === 'CLOSED') this.fromCloseToOpen(triggerValue, nowMs);
    else if (this.currentState === 'HALF_OPEN') this.fromHalfOpenToOpen(triggerValue, nowMs);
  }

  #notify(prev: State, next: State, value: number | null): void {
    this.#observer?.(prev, next, this.rule, value);
  }
}
