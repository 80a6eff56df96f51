/**
 * Dubbo's first state router: keeps `mock://` invokers away from normal calls and serves only them
 * when the call carries `invocation.need.mock=true` (set by MockClusterInvoker). Owns the split of
 * the address list on notify; not the mock cluster itself.
 * Follows dubbo-cluster `router/mock/MockInvokersSelector.java`.
 */
import type { Invoker, RpcInvocation } from '../rpc.js';
import { membersOf, parentList, perList } from '../per-list.js';
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
// version holds the same list object: split it once per list, not once per instance. A list without
// mock invokers (nearly every one) gets no sets of its own: its normal invokers are the list itself
// (`ALL_NORMAL`), made a set only if a route needs to test membership (`#normalSet`).
const splitOf = perList((invokers: Invoker[]): Split | typeof ALL_NORMAL => {
  if (!invokers.some(isMock)) return ALL_NORMAL;
  const normal = new Set<Invoker>();
  const mocked = new Set<Invoker>();
  for (const inv of invokers) (isMock(inv) ? mocked : normal).add(inv);
  return { normal, mocked };
});
const NO_INVOKERS: ReadonlySet<Invoker> = new Set();
/** The split of a list without mock invokers. */
const ALL_NORMAL = null;

function isMock(inv: Invoker): boolean {
  return inv.getUrl().protocol === MOCK_PROTOCOL;
}

/** MockInvokersSelector's cache decision, which reads only the call: normal, mock or pass-through. */
function mockRouteKey(_consumerUrl: URL, invocation: RpcInvocation): string {
  const value = invocation.getAttachment(INVOCATION_NEED_MOCK);
  return value === undefined ? 'n' : value.toLowerCase() === 'true' ? 'm' : 'p';
}

/** MockInvokersSelector (order -100). */
export class MockInvokersSelector implements StateRouter {
  readonly name = 'mock';
  readonly order = -100;
  #notified: Invoker[] = [];
  /** The normal invokers of the notified list, or null while they are all of it (see `#normalSet`). */
  #normal: ReadonlySet<Invoker> | null = NO_INVOKERS;
  #mocked: ReadonlySet<Invoker> = NO_INVOKERS;

  /** Splits the full list into mock:// and normal invokers. */
  notify(invokers: Invoker[]): void {
    const split = splitOf(invokers);
    this.#notified = invokers;
    this.#normal = split === ALL_NORMAL ? null : split.normal;
    this.#mocked = split === ALL_NORMAL ? NO_INVOKERS : split.mocked;
  }

  #normalSet(): ReadonlySet<Invoker> {
    return this.#normal ?? membersOf(this.#notified);
  }

  routingInputs(): RoutingInputs {
    return MOCK_INPUTS;
  }

  /** The cache decision: normal, mock or pass-through. */
  routeKey(consumerUrl: URL, invocation: RpcInvocation): string {
    return mockRouteKey(consumerUrl, invocation);
  }

  readonly routeKeyOf = mockRouteKey;

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
      return entry(all ? invokers : and(invokers, this.#normalSet()), `${INVOCATION_NEED_MOCK} not set: normal (non-mock) invokers`);
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
