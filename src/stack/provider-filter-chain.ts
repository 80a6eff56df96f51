/**
 * The provider filter chain of one simulated provider process: Dubbo's ExecuteLimitFilter outside
 * TpsLimitFilter (both order 0; ActivateComparator then sorts by class name), each activated per
 * exported service by its URL (`executes`, `tps`, or a method-level value). One filter instance per
 * process: Dubbo's RpcStatus is JVM-wide and TpsLimitFilter's limiter is a singleton extension.
 * TpsLimitFilter returns its refusal (3.2.5+) or throws it (2.7), as the provider group's profile says.
 */
import type { IncomingCall, Reply } from '../world/provider-call.js';
import type { ProviderExport, ProviderInstance } from '../world/provider.js';
import type { ProviderFilterChain } from '../world/provider-filters.js';
import { URL } from '../dubbo/url.js';
import { ExecuteLimitFilter } from '../dubbo/filter/execute-limit-filter.js';
import { TpsLimitFilter } from '../dubbo/filter/tps-limit-filter.js';

/** The process's chain, or null when none of its exports activates a filter. */
export function providerFilterChain(instance: ProviderInstance): ProviderFilterChain<ProviderExport> | null {
  // PERF: most processes have neither key on any URL; skip parsing them.
  if (!instance.exports.some((e) => e.url.includes('executes=') || e.url.includes('tps='))) return null;
  const executes = new ExecuteLimitFilter();
  const tps = new TpsLimitFilter();
  const urls = new Map<ProviderExport, URL>();
  let any = false;
  for (const e of instance.exports) {
    const url = URL.valueOf(e.url);
    urls.set(e, url);
    if (executes.isActive(url) || tps.isActive(url)) any = true;
  }
  return any ? new DubboProviderFilterChain(executes, tps, urls, instance.group.spec.dubbo.tpsLimit) : null;
}

class DubboProviderFilterChain implements ProviderFilterChain<ProviderExport> {
  readonly #executes: ExecuteLimitFilter;
  readonly #tps: TpsLimitFilter;
  readonly #urls: Map<ProviderExport, URL>;
  /** The provider's release decides how TpsLimitFilter refuses (`DubboRelease.tpsLimit`). */
  readonly #tpsThrown: boolean;

  constructor(executes: ExecuteLimitFilter, tps: TpsLimitFilter, urls: Map<ProviderExport, URL>, tpsLimit: 'returned' | 'thrown') {
    this.#executes = executes;
    this.#tps = tps;
    this.#urls = urls;
    this.#tpsThrown = tpsLimit === 'thrown';
  }

  admit(call: IncomingCall, target: ProviderExport, nowMs: number): Reply | null {
    const url = this.#urls.get(target)!;
    const refused = this.#executes.admit(url, call.method);
    if (refused !== null) return { kind: 'limited', filter: 'executes', detail: refused.message };
    const limited = this.#tps.admit(url, call.method, nowMs);
    if (limited !== null) {
      if (this.#tpsThrown) {
        // 2.7 TpsLimitFilter.java:48 throws: ExecuteLimitFilter's onError ends its count as a failure, and
        // HeaderExchangeHandler answers SERVICE_ERROR, which the consumer's failover retries (code 1).
        this.#executes.onError(limited, url, call.method, 0);
        return { kind: 'limited', filter: 'tps', detail: limited.message, thrown: true };
      }
      // 3.3 TpsLimitFilter.java:48-54 returns the refusal as a result: ExecuteLimitFilter's onResponse ends its count.
      this.#executes.onResponse(url, call.method, 0);
      return { kind: 'limited', filter: 'tps', detail: limited.message };
    }
    return null;
  }

  done(call: IncomingCall, target: ProviderExport, elapsedMs: number): void {
    this.#executes.onResponse(this.#urls.get(target)!, call.method, elapsedMs);
  }
}
