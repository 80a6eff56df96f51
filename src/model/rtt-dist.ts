/**
 * The network section's answer for one pair of zones: the RTT distribution between them. A lookup
 * over the model that the estimate, the pool-load analysis, recommend and check share.
 */
import type { DistSpec } from '../engine/distributions.js';
import type { NetworkSpec } from './types.js';

/** The RTT distribution between two zones, as the network resolves it (the last matching pair wins). */
export function rttDist(network: NetworkSpec, from: string, to: string): DistSpec {
  const pair = [...network.pairs].reverse().find((p) => p.from === from && p.to === to);
  if (pair) return pair.dist;
  return from === to ? network.sameZone : network.default;
}
