/**
 * Shared fixtures for router tests: invokers around a URL (or URL-less, as Dubbo's MockInvoker
 * without a URL), invocations from vector-style descriptions, a counting event sink.
 */
import { OK, RpcInvocation, type Invoker, type Result } from '../../../src/dubbo/rpc.js';
import { URL } from '../../../src/dubbo/url.js';
import type { Proc } from '../../../src/engine/simulation.js';

/** An invoker that only carries a URL (routing never invokes). */
export class UrlInvoker implements Invoker {
  readonly #url: URL | null;
  readonly label: string;
  constructor(url: string | URL | null, label?: string) {
    this.#url = url === null ? null : typeof url === 'string' ? URL.valueOf(url) : url;
    this.label = label ?? (this.#url === null ? '<no url>' : this.#url.toString());
  }
  getUrl(): URL {
    if (this.#url === null) throw new Error(`invoker ${this.label} has no URL`);
    return this.#url;
  }
  isAvailable(): boolean {
    return true;
  }
  *invoke(): Proc<Result> {
    return OK;
  }
}

/** Invokers for a list of provider URLs (`null` = a URL-less mock invoker). */
export function invokersOf(urls: readonly (string | null)[]): UrlInvoker[] {
  return urls.map((u, i) => new UrlInvoker(u, u ?? `<no url #${i}>`));
}

/** A vector's invocation (`null` = none: an invocation with no method, arguments or attachments). */
export function invocationOf(
  spec: { methodName?: string | null; arguments?: unknown[] | null; attachments?: Record<string, string> | null } | null,
): RpcInvocation {
  return new RpcInvocation({
    methodName: spec?.methodName ?? '',
    arguments: spec?.arguments ?? [],
    attachments: spec?.attachments ?? {},
  });
}

/** An event sink that counts by name. */
export function countingEvents(): { count(name: string, by?: number): void; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  return { counts, count: (name, by = 1) => void counts.set(name, (counts.get(name) ?? 0) + by) };
}

/** Indexes of `result` in `all` (identity), in result order. */
export function indicesIn(all: readonly Invoker[], result: readonly Invoker[]): number[] {
  return result.map((inv) => all.indexOf(inv));
}
