/**
 * Dubbo's RpcStatus: per (invoker URL identity, method) active and completed counts and elapsed
 * times. Only ActiveLimitFilter updates it in Dubbo 3.3, so without `actives` every count stays 0.
 * Follows dubbo-rpc-api `RpcStatus.java`.
 */
import type { URL } from './url.js';

/** Counters of one invoker and method. */
export class RpcStatus {
  active = 0;
  total = 0;
  failed = 0;
  totalElapsed = 0;
  failedElapsed = 0;
  maxElapsed = 0;
  succeededMaxElapsed = 0;

  getActive(): number {
    return this.active;
  }
  getSucceeded(): number {
    return this.total - this.failed;
  }
  getSucceededElapsed(): number {
    return this.totalElapsed - this.failedElapsed;
  }
}

/** The JVM-wide table of RpcStatus (one per simulated consumer instance). */
export class RpcStatusTable {
  readonly #byMethod = new Map<string, RpcStatus>();

  /** Status for `url` and `method` (created on first use). */
  getStatus(url: URL, method: string): RpcStatus {
    const key = `${url.toIdentityString()}#${method}`;
    let s = this.#byMethod.get(key);
    if (s === undefined) {
      s = new RpcStatus();
      this.#byMethod.set(key, s);
    }
    return s;
  }

  /** Dubbo `RpcStatus.beginCount`. */
  beginCount(url: URL, method: string): void {
    this.getStatus(url, method).active++;
  }

  /** Dubbo `RpcStatus.endCount`. */
  endCount(url: URL, method: string, elapsedMs: number, succeeded: boolean): void {
    const s = this.getStatus(url, method);
    s.active--;
    s.total++;
    s.totalElapsed += elapsedMs;
    if (s.maxElapsed < elapsedMs) s.maxElapsed = elapsedMs;
    if (succeeded) {
      if (s.succeededMaxElapsed < elapsedMs) s.succeededMaxElapsed = elapsedMs;
    } else {
      s.failed++;
      s.failedElapsed += elapsedMs;
    }
  }
}
