/**
 * What routers need from the consumer instance's runtime: a counter sink for events Dubbo only
 * logs (e.g. "The route result is empty and force execute"), a random stream for the v3.1
 * multi-destination draw, zone distances for the zone router's nearest fallback and the release
 * (condition rules on keys a URL lacks). A
 * `DubboRuntime` satisfies it; tools may pass less.
 */
import type { Rng } from '../../engine/random.js';
import type { DubboRelease } from '../release.js';
import type { EventSink } from '../runtime.js';
import type { ZoneDistance } from '../zone-order.js';

/** The parts of `DubboRuntime` routers use; both are optional so that tools can route without a simulation. */
export interface RouterRuntime {
  readonly events?: EventSink;
  readonly random?: Rng;
  /** Median RTT between zones (zonesim's zone router `fallback: nearest`). */
  readonly zoneDistance?: ZoneDistance;
  /** The release the consumer runs (condition-rule semantics differ between 2.7 and 3.3); absent: 3.3. */
  readonly release?: DubboRelease;
}
