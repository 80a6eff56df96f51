/**
 * The provider filter chain of one simulated provider process: Dubbo's ExecuteLimitFilter, Sentinel's
 * SentinelDubboProviderFilter when the process loads Sentinel rules, and TpsLimitFilter (all order 0;
 * 3.3's ActivateComparator then sorts by simple class name: Execute…, Sentinel…, Tps…), each activated per
 * exported service by its URL (`executes`, `tps`, or a method-level value; Sentinel's for every call).
 * One filter instance per process: Dubbo's RpcStatus is JVM-wide and TpsLimitFilter's limiter is a
 * singleton extension. TpsLimitFilter returns its refusal (3.2.5+) or throws it (2.7), as the provider
 * group's profile says.
 */
// DIVERGENCE: 2.7's ActivateComparator leaves filters of equal order in loading order; the 3.3 order is kept.
import type { IncomingCall, Reply } from '../world/provider-call.js';
import type { ProviderExport, ProviderInstance } from '../world/provider.js';
import type { ProviderFilterChain } from '../world/provider-filters.js';
import { URL } from '../dubbo/url.js';
import type { RpcError } from '../dubbo/rpc.js';
import type { DubboProfile } from '../model/dubbo-profile.js';
import { ExecuteLimitFilter } from '../dubbo/filter/execute-limit-filter.js';
import { TpsLimitFilter } from '../dubbo/filter/tps-limit-filter.js';
import type { SentinelProviderFilter } from './sentinel-provider-filter.js';

/**
 * Whether an export's URL may activate ExecuteLimitFilter or TpsLimitFilter: `executes`, `tps` and their
 * `<method>.` forms all leave `executes=` or `tps=` in the URL, so an export without either activates neither.
 */
const mayLimit = (e: ProviderExport): boolean => e.url.includes('executes=') || e.url.includes('tps=');

/** The process's chain, or null when none of its exports activates a filter and it loads no Sentinel. */
export function providerFilterChain(instance: ProviderInstance, sentinel?: SentinelProviderFilter): ProviderFilterChain<ProviderExport> | null {
  // PERF: only the exports whose URLs may activate a limit filter are parsed (a parsed URL is some 2 KB, per
  // export and process: at 10^5 processes of eight exports, 1.6 GB); on the others both filters, inactive,
  // would do nothing on any call. A process that loads Sentinel and activates neither runs Sentinel's filter alone.
  const limited = instance.exports.filter(mayLimit);
  if (limited.length === 0) return sentinel === undefined ? null : new DubboProviderFilterChain(null, instance.group.spec.dubbo, sentinel);
  const executes = new ExecuteLimitFilter();
  const tps = new TpsLimitFilter();
  const urls = new Map<ProviderExport, URL>();
  let any = false;
  for (const e of limited) {
    const url = URL.valueOf(e.url);
    urls.set(e, url);
    if (executes.isActive(url) || tps.isActive(url)) any = true;
  }
  return any || sentinel !== undefined ? new DubboProviderFilterChain({ executes, tps, urls }, instance.group.spec.dubbo, sentinel) : null;
}

// The stack frames where the filters throw their refusals (the `throw new RpcException(` lines).
const EXECUTE_LIMIT_FRAME_3_3 = 'org.apache.dubbo.rpc.filter.ExecuteLimitFilter.invoke(ExecuteLimitFilter.java:51)';
const EXECUTE_LIMIT_FRAME_2_7 = 'org.apache.dubbo.rpc.filter.ExecuteLimitFilter.invoke(ExecuteLimitFilter.java:48)';
const TPS_LIMIT_FRAME_2_7 = 'org.apache.dubbo.rpc.filter.TpsLimitFilter.invoke(TpsLimitFilter.java:48)';

/**
 * The SERVICE_ERROR response's message for an RpcException a filter threw: HeaderExchangeHandler's
 * `StringUtils.toString(t)` (3.3 HeaderExchangeHandler.java:117-118, 130-131; StringUtils.java:633-647):
 * the class and message, then `printStackTrace`, which repeats them and lists the frames.
 */
// DIVERGENCE: only the frame that throws is listed; Dubbo's trace goes on through the filter chain, the
// protocol and the server thread (some 30 frames that depend on the deployment).
export function serviceError(error: RpcError, frame: string): string {
  const head = `org.apache.dubbo.rpc.RpcException: ${error.message}`;
  return `${head}\n${head}\n\tat ${frame}\n`;
}

/** ExecuteLimitFilter and TpsLimitFilter of a process, with the parsed URLs of the exports that may activate them. */
interface LimitFilters {
  executes: ExecuteLimitFilter;
  tps: TpsLimitFilter;
  urls: Map<ProviderExport, URL>;
}

class DubboProviderFilterChain implements ProviderFilterChain<ProviderExport> {
  /** Null when no export's URL may activate ExecuteLimitFilter or TpsLimitFilter: Sentinel's filter alone. */
  readonly #limits: LimitFilters | null;
  /** The provider's release decides how TpsLimitFilter refuses (`DubboRelease.tpsLimit`). */
  readonly #tpsThrown: boolean;
  /** Where ExecuteLimitFilter throws, in the provider's release. */
  readonly #executesFrame: string;
  readonly #sentinel: SentinelProviderFilter | undefined;

  constructor(limits: LimitFilters | null, profile: DubboProfile, sentinel?: SentinelProviderFilter) {
    this.#sentinel = sentinel;
    this.#limits = limits;
    this.#tpsThrown = profile.tpsLimit === 'thrown';
    this.#executesFrame = profile.version === '2.7' ? EXECUTE_LIMIT_FRAME_2_7 : EXECUTE_LIMIT_FRAME_3_3;
  }

  admit(call: IncomingCall, target: ProviderExport, nowMs: number): Reply | null | number {
    const limits = this.#limits;
    // An export whose URL activates no limit filter: Sentinel's filter alone.
    const url = limits?.urls.get(target);
    if (limits === null || url === undefined) return this.#sentinel === undefined ? null : this.#sentinel.admit(call, nowMs);
    const { executes, tps } = limits;
    const refused = executes.admit(url, call.method);
    if (refused !== null) return { kind: 'limited', filter: 'executes', detail: serviceError(refused, this.#executesFrame) };
    let heldMs: number | null = null;
    if (this.#sentinel !== undefined) {
      const s = this.#sentinel.admit(call, nowMs);
      if (typeof s === 'number') heldMs = s;
      else if (s !== null) {
        // The fallback's result (or its throw) ends ExecuteLimitFilter's count as Dubbo's listener would.
        if (s.kind === 'blocked' && s.thrown === true) executes.onError({ code: 0, message: s.detail }, url, call.method, 0);
        else executes.onResponse(url, call.method, 0);
        return s;
      }
    }
    const limited = tps.admit(url, call.method, nowMs);
    if (limited !== null) {
      // TpsLimitFilter sits inside Sentinel's filter: Sentinel sees its refusal as the call's exception.
      this.#sentinel?.done(call, true);
      if (this.#tpsThrown) {
        // 2.7 TpsLimitFilter.java:48 throws: ExecuteLimitFilter's onError ends its count as a failure, and
        // HeaderExchangeHandler answers SERVICE_ERROR, which the consumer's failover retries (code 1).
        executes.onError(limited, url, call.method, 0);
        return { kind: 'limited', filter: 'tps', detail: serviceError(limited, TPS_LIMIT_FRAME_2_7), thrown: true };
      }
      // 3.3 TpsLimitFilter.java:48-54 returns the refusal as a result: ExecuteLimitFilter's onResponse ends its count.
      executes.onResponse(url, call.method, 0);
      return { kind: 'limited', filter: 'tps', detail: limited.message };
    }
    return heldMs;
  }

  done(call: IncomingCall, target: ProviderExport, elapsedMs: number, failed: boolean): void {
    this.#sentinel?.done(call, failed);
    const url = this.#limits?.urls.get(target);
    if (url !== undefined) this.#limits!.executes.onResponse(url, call.method, elapsedMs);
  }
}
