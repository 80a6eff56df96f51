/**
 * What routers need from the consumer instance's runtime: a counter sink for events Dubbo only
 * logs (e.g. "The route result is empty and force execute") and a random stream for the v3.1
 * multi-destination draw. A `DubboRuntime` satisfies it; tools may pass less.
 */
import type { Rng } from '../../engine/random.js';
import type { EventSink } from '../runtime.js';

/** The parts of `DubboRuntime` routers use; both are optional so that tools can route without a simulation. */
export interface RouterRuntime {
  readonly events?: EventSink;
  readonly random?: Rng;
}
