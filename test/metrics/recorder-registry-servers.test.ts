/**
 * The summary of a run whose registry is modeled as servers (SPEC 4, "With registry servers"), as the
 * recorder assembles it from the nodes' final figures and the push lags reported while it ran:
 * `registry.servers`, `registry.pushLagMs` and the timeline's registry columns, the last bucket as
 * wide as what is left of the window. Without nodes none of these appear.
 */
import { describe, expect, it } from 'vitest';
import type { LinkFigures } from '../../src/engine/fifo-link.js';
import { Recorder } from '../../src/metrics/recorder.js';
import type { RegistryNodeFigures } from '../../src/metrics/registry-server-figures.js';

const META = { scenario: 's', seed: 1, seeds: [1], version: 'test' };

function link(busyMs: number[], workDone: number[]): LinkFigures {
  return {
    ratePerMs: 1,
    items: 3,
    work: workDone.reduce((a, b) => a + b, 0),
    waitMs: 0,
    busyMs: Float64Array.from(busyMs),
    workDone: Float64Array.from(workDone),
    peakBacklog: Float64Array.from([7, 2, 0, 0]),
  };
}

const NODE: RegistryNodeFigures = {
  name: 'zoneA-0',
  zone: 'zoneA',
  out: link([100, 0, 0, 250], [10, 20, 0, 5]),
  in: link([0, 0, 0, 0], [0, 0, 0, 0]),
  requestsServed: 4,
  requestsRefused: 1,
  sessionsExpired: 3,
  sessionsExpiredByBucket: Float64Array.from([0, 1, 0, 2]),
  registrationsFailed: 0,
  registrationsRetried: 0,
  pushesLost: 0,
  pushesMerged: 0,
};

/** A window of 3.5 buckets (1000 to 4500 ms) with a push lag of 40 ms reported in its first bucket. */
function run(registryServers: RegistryNodeFigures[] | undefined) {
  const r = new Recorder({ warmupMs: 1000, durationMs: 4500, bucketMs: 1000, providerGroups: [] });
  r.registryPushLag(40, 1500);
  r.finish({ simulatedMs: 4500, providerGroups: [], inFlight: 0, ...(registryServers === undefined ? {} : { registryServers }) });
  return r.summary(META);
}

describe('a summary with registry servers', () => {
  it('has each bucket`s registry bytes, busiest NIC, p99 push lag and expired sessions, the last bucket 500 ms wide', () => {
    const s = run([NODE]);
    expect(s.timeline.map((row) => [row.registryBytes, row.registryUtilization, row.sessionsExpired])).toEqual([
      [10, 0.1, 0],
      [20, 0, 1],
      [0, 0, 0],
      [5, 0.5, 2],
    ]);
    expect(s.timeline.map((row) => Math.round(row.pushLagP99Ms!))).toEqual([40, 0, 0, 0]);
  });

  it('has the nodes` figures over the window and the push lags', () => {
    const s = run([NODE]);
    expect(s.registry.servers!['zoneA-0']).toMatchObject({ zone: 'zoneA', nicOut: { peakUtilization: 0.5, meanUtilization: 0.1 }, peakQueueBytes: 7, requestsServed: 4, bytesOut: 35 });
    expect(s.registry.pushLagMs!.max).toBeCloseTo(40, 1);
  });

  it('has none of it without nodes, nor with an empty list of them', () => {
    for (const servers of [undefined, []]) {
      const s = run(servers);
      expect('servers' in s.registry || 'pushLagMs' in s.registry, JSON.stringify(servers)).toBe(false);
      expect(s.timeline.some((row) => 'registryBytes' in row || 'pushLagP99Ms' in row)).toBe(false);
    }
  });
});
