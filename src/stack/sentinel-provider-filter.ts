/**
 * Sentinel's provider filter of one provider JVM (sentinel-apache-dubbo3-adapter
 * `SentinelDubboProviderFilter`, `@Activate(group = PROVIDER)`, order 0): the origin is the consumer's
 * application (`DefaultDubboOriginParser`: the `remote.application` attachment), the context is entered
 * with it, then the interface resource and the method resource (with the arguments) are entered as
 * inbound entries, so system rules apply. A blocked call is answered by the provider fallback; the
 * call's exception (a business error, a failed downstream call) is traced when it completes.
 */
import type { IncomingCall, Reply } from '../world/provider-call.js';
import { EPOCH_MS } from '../world/provider.js';
import type { BlockCause, Entry, Sph } from '../sentinel/sph.js';
import type { SystemUsage } from '../sentinel/system-rule-manager.js';
import { blockMessage, interfaceResourceName, methodResourceName, type Fallback } from './sentinel-resources.js';

/** The two entries of an admitted call, until it completes. */
interface Entries {
  iface: Entry;
  method: Entry;
}

/** One provider JVM's SentinelDubboProviderFilter. */
export class SentinelProviderFilter {
  readonly sph: Sph;
  fallback: Fallback;
  readonly #entries = new Map<IncomingCall, Entries>();
  /** The process's thread use, for the system rule's load and CPU (see SystemRuleManager). */
  readonly #usage: () => SystemUsage;
  /** The simulated clock (ms). */
  readonly #now: () => number;

  constructor(sph: Sph, fallback: Fallback, usage: () => SystemUsage, now: () => number) {
    this.sph = sph;
    this.fallback = fallback;
    this.#usage = usage;
    this.#now = now;
  }

  /**
   * The part of `invoke` before `invoker.invoke`: null when the call runs now, a number of ms when the
   * rate limiter queues it first, or the fallback's reply.
   */
  // DIVERGENCE: after a rate limiter's wait, Java runs the degrade check and counts the pass; here both
  // happen when the call is queued (the provider's filter chain does not suspend).
  admit(call: IncomingCall, nowMs: number): Reply | null | number {
    const sph = this.sph;
    const ifaceName = interfaceResourceName(call.service);
    const methodName = methodResourceName(call.service, call.method);
    // PERF: a call no rule can see (no rule names its resources, no system rule counts it) is not entered.
    if (!sph.tracks(ifaceName, 'IN') && !sph.tracks(methodName, 'IN')) return null;
    // TimeUtil.currentTimeMillis: the simulated epoch clock, as the consumer filter's.
    const now = Math.floor(EPOCH_MS + nowMs);
    const origin = call.remoteApplication ?? '';
    const usage = this.#usage();
    const iface = sph.entry(ifaceName, 'IN', origin, [], now, Math.round(nowMs * 1e6), usage);
    let waitMs = iface.waitMs;
    if (iface.blocked === null && iface.waitMs > 0) {
      const b = sph.afterWait(iface.entry, now);
      if (b !== null) return this.#fallback(b);
    }
    if (iface.blocked !== null) return this.#fallback(iface.blocked);
    const method = sph.entry(methodName, 'IN', origin, call.arguments ?? [], now, Math.round(nowMs * 1e6), usage);
    if (method.blocked === null && method.waitMs > 0) {
      const b = sph.afterWait(method.entry, now);
      if (b !== null) {
        sph.exit(iface.entry, now);
        return this.#fallback(b);
      }
    }
    if (method.blocked !== null) {
      sph.exit(iface.entry, now);
      return this.#fallback(method.blocked);
    }
    waitMs += method.waitMs;
    this.#entries.set(call, { iface: iface.entry, method: method.entry });
    return waitMs > 0 ? waitMs : null;
  }

  /** The call completed: trace its exception, exit both entries. */
  done(call: IncomingCall, failed: boolean): void {
    const e = this.#entries.get(call);
    if (e === undefined) return;
    this.#entries.delete(call);
    const now = Math.floor(EPOCH_MS + this.#now());
    if (failed) {
      this.sph.traceEntry(e.iface, now);
      this.sph.traceEntry(e.method, now);
    }
    this.sph.exit(e.method, now);
    this.sph.exit(e.iface, now);
  }

  /**
   * The provider fallback's reply. DefaultDubboFallback returns a result carrying the RuntimeException;
   * the provider's ExceptionFilter sends it on wrapped (`StringUtils.toString`), and the consumer's
   * cluster takes it as a result (not retried).
   */
  #fallback(cause: BlockCause): Reply {
    const tag = `provider:${cause}`;
    const detail = `java.lang.RuntimeException: ${blockMessage(cause)}`;
    switch (this.fallback.kind) {
      case 'throw':
        return { kind: 'blocked', cause: tag, detail: `org.apache.dubbo.rpc.RpcException: ${blockMessage(cause)}`, thrown: true };
      case 'return':
        return { kind: 'blocked', cause: tag, detail, value: this.fallback.value, answered: true };
      default:
        return { kind: 'blocked', cause: tag, detail };
    }
  }
}
