/**
 * The provider-side filter chain a process runs on each call, as the world sees it: plugged in from
 * above (the Dubbo layer implements it with ExecuteLimitFilter and TpsLimitFilter). The chain runs
 * on the provider thread, after the pool granted it (Dubbo's filters run inside the server's
 * handler thread), so a refused call has held a thread for an instant, and a full pool rejects
 * before any filter sees the call.
 */
import type { IncomingCall, ProviderExport, Reply } from './provider.js';

/** One process's provider filters. */
export interface ProviderFilterChain {
  /** Null when the call may run now, else the reply that refuses it (the thread is then released). */
  admit(call: IncomingCall, target: ProviderExport, nowMs: number): Reply | null;
  /** An admitted call finished after `elapsedMs` on its thread. */
  done(call: IncomingCall, target: ProviderExport, elapsedMs: number): void;
}
