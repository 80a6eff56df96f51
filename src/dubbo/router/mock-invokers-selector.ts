/**
 * Dubbo's first state router: keeps `mock://` invokers away from normal calls and serves only them
 * when the call carries `invocation.need.mock=true` (set by MockClusterInvoker). Owns the split of
 * the address list on notify; not the mock cluster itself.
 * Follows dubbo-cluster `router/mock/MockInvokersSelector.java`.
 */
import type { Invoker, RpcInvocation } from '../rpc.js';
import { parentList, perList } from '../per-list.js';
import type { URL } from '../url.js';
import type { RouterResult, RoutingInputs, StateRouter } from './router.js';

/** The attachment MockClusterInvoker sets. */
export const INVOCATION_NEED_MOCK = 'invocation.need.mock';
const MOCK_PROTOCOL = 'mock';

const MOCK_INPUTS: RoutingInputs = Object.freeze({
  method: false,
  attachments: [INVOCATION_NEED_MOCK],
  arguments: [],
  random: false,
}) as RoutingInputs;

interface Split {
  readonly normal: ReadonlySet<Invoker>;
  readonly mocked: ReadonlySet<Invoker>;
}

// PERF: the split depends only on the list, and every consumer instance that received one list
// version holds the same list object: split it once per list, not once per instance.
const splitOf = perList((invokers: Invoker[]): Split => {
  const normal = new Set<Invoker>();
  const mocked = new Set<Invoker>();
  for (const inv of invokers) (inv.getUrl().protocol === MOCK_PROTOCOL ? mocked : normal).add(inv);
  return { normal, mocked };
});
const NO_INVOKERS: ReadonlySet<Invoker> = new Set();

/** MockInvokersSelector (order -100). */
export class MockInvokersSelector implements StateRouter {
  readonly name = 'mock';
  readonly order = -100;
  #notified: readonly Invoker[] = [];
  #normal: ReadonlySet<Invoker> = NO_INVOKERS;
  #mocked: ReadonlySet<Invoker> = NO_INVOKERS;

  /** Splits the full list into mock:// and normal invokers. */
  notify(invokers: Invoker[]): void {
    const split = splitOf(invokers);
    this.#notified = invokers;
    this.#normal = split.normal;
    this.#mocked = split.mocked;
  }

  routingInputs(): RoutingInputs {
    return MOCK_INPUTS;
  }

  /** The cache decision: normal, mock or pass-through. */
  routeKey(_consumerUrl: URL, invocation: RpcInvocation): string {
    const value = invocation.getAttachment(INVOCATION_NEED_MOCK);
    return value === undefined ? 'n' : value.toLowerCase() === 'true' ? 'm' : 'p';
  }

  route(invokers: Invoker[], _consumerUrl: URL, invocation: RpcInvocation): RouterResult {
    const before = invokers.length;
    const entry = (out: Invoker[], note: string): RouterResult => ({
      invokers: out,
      trace: { router: this.name, before, after: out.length, note },
    });
    if (before === 0) return entry(invokers, 'no provider reached the mock selector');
    const value = invocation.getAttachment(INVOCATION_NEED_MOCK);
    if (value === undefined) {
      // PERF: with no mock invoker in the notified list, that list and every sub-list a directory made of it
      // (providers set aside) keep every invoker: no filtering pass over each instance's own copy.
      const all = this.#mocked.size === 0 && (invokers === this.#notified || parentList(invokers) === this.#notified);
      return entry(all ? invokers : and(invokers, this.#normal), `${INVOCATION_NEED_MOCK} not set: normal (non-mock) invokers`);
    }
    if (value.toLowerCase() === 'true') return entry(and(invokers, this.#mocked), `${INVOCATION_NEED_MOCK}=true: mock invokers only`);
    return entry(invokers, `${INVOCATION_NEED_MOCK}=${value}: passed through`);
  }
}

// BitList.and: the input's order, keeping those in the cached set; the same list when all are kept.
function and(invokers: Invoker[], keep: ReadonlySet<Invoker>): Invoker[] {
  const out = invokers.filter((inv) => keep.has(inv));
  return out.length === invokers.length ? invokers : out;
}
