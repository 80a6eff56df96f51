import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import { Network } from '../../src/world/network.js';
import { RegistryServers } from '../../src/world/registry-servers.js';
import { splitMembers } from '../../src/world/cohorts.js';
import { constant, registrySpec } from './registry-fixtures.js';

// The constructed case of issue 41: one change pushed to M exchangeable subscribers through a FIFO NIC of
// bandwidth B, each push S bytes, behind Q bytes already queued. The i-th push (1-based) is off the card at
// t0 + (Q + i·S)/B, so the share of instances updated by t is min(1, (t − t0 − Q/B)·B / (M·S)) once the queue
// ahead has drained, 0 before. A cohort of M members over k representatives queues each representative's
// members together and delivers the representative at a uniformly drawn member's time: the share its
// representatives give (each weighted by its members) must average to that line.
const B = 1_000_000; // bytes per second (8 Mbit/s)
const S = 1000;
const M = 3000;
const Q = 500_000;
const K = 32;
const T0 = 2000;
const grid = { fromMs: 0, bucketMs: 1000, buckets: 10 };
const drainStartMs = T0 + (Q / B) * 1000;
const drainMs = ((M * S) / B) * 1000;

function expectedShare(tMs: number): number {
  return Math.min(1, Math.max(0, ((tMs - drainStartMs) / 1000) * B) / (M * S));
}

/** One run: a fresh node, the queue ahead, then the change pushed to each representative; its deliveries. */
function deliveries(seed: number): Array<{ members: number; atMs: number }> {
  const network = new Network({ sameZone: constant(0.2), default: constant(2), pairs: [] }, ['zoneA'], new RandomStreams(1).stream('network'));
  const streams = new RandomStreams(seed);
  const servers = new RegistryServers(registrySpec({ servers: { zoneA: 1 }, capacity: { bandwidthBytesPerSec: B } }), {
    network,
    rng: streams.stream('registry/servers'),
    cohortRng: streams.stream('registry/cohorts'),
    grid,
  });
  servers.nodes[0]!.out.serve(T0, Q);
  return splitMembers(M, K).map((members) => ({ members, atMs: servers.push(servers.clientOf({}, 'zoneA'), T0, S, members)! }));
}

describe('a change pushed to a cohort through a FIFO NIC', () => {
  it('updates a share of instances min(1, (t − t0)·B / (M·S)) once the queue ahead has drained, over 400 draws', () => {
    const runs = Array.from({ length: 400 }, (_, i) => deliveries(i + 1));
    // Every representative's delivery lies in its own members' stretch of the drain.
    for (const run of runs) {
      let before = 0;
      for (const { members, atMs } of run) {
        expect(atMs).toBeGreaterThan(drainStartMs + (before * S * 1000) / B - 1e-6);
        expect(atMs).toBeLessThanOrEqual(drainStartMs + ((before + members) * S * 1000) / B + 1e-6);
        before += members;
      }
    }
    for (const f of [-0.1, 0.05, 0.25, 0.5, 0.75, 0.95, 1.1]) {
      const t = drainStartMs + f * drainMs;
      const shares = runs.map((run) => run.reduce((a, d) => a + (d.atMs <= t ? d.members : 0), 0) / M);
      const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
      const sd = Math.sqrt(shares.reduce((a, b) => a + (b - mean) ** 2, 0) / (shares.length - 1));
      // Four standard errors of the mean, and a floor for the exact ends (no spread at all there).
      expect(Math.abs(mean - expectedShare(t)), `share at ${f} of the drain`).toBeLessThanOrEqual(4 * (sd / Math.sqrt(shares.length)) + 1e-12);
    }
  });
});
