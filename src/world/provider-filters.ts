/**
 * The provider-side filter chain a process runs on each call, as the world sees it: plugged in from
 * above (stack/provider-filter-chain.ts implements it with Dubbo's ExecuteLimitFilter and
 * TpsLimitFilter; the world imports neither the port nor the stack). The chain runs
 * on the provider thread, after the pool granted it (Dubbo's filters run inside the server's
 * handler thread), so a refused call has held a thread for an instant, and a full pool rejects
 * before any filter sees the call.
 */
import type { IncomingCall, Reply } from './provider-call.js';

/** One process's provider filters; `Target` is the export called (provider.ts's `ProviderExport`). */
export interface ProviderFilterChain<Target> {
  /**
   * Null when the call may run now, else the reply that refuses it (the thread is then released), or a
   * number: the call runs after holding its thread that many ms (a filter's queueing, Sentinel's rate limiter).
   */
  admit(call: IncomingCall, target: Target, nowMs: number): Reply | null | number;
  /** An admitted call finished after `elapsedMs` on its thread; `failed`: its result carries an exception. */
  done(call: IncomingCall, target: Target, elapsedMs: number, failed: boolean): void;
}
