import { describe, expect, it } from 'vitest';
import { runScenario } from '../../src/scenario/run.js';
import type { FaultSpec } from '../../src/model/types.js';
import { scenario } from './registry-fixtures.js';

// zoneA's providers black-hole at 20 s: Nacos (1.x, heartbeats) marks them unhealthy 15-20 s later and
// pushes that change (Dubbo keeps them), then deletes them 30-35 s later; between the deletion and the
// moment a consumer's push lands, attempts to them are stale calls.
const zoneDown: FaultSpec = { atMs: 20_000, action: { kind: 'zoneDown', zone: 'zoneA', mode: 'blackhole' }, label: 'faults[0]' };

function run(type: 'nacos' | 'static') {
  const s = scenario({
    registry: { type },
    providers: [{ zone: 'zoneA' }, { zone: 'zoneB' }],
    consumers: [{ zone: 'zoneB', instances: 2, ratePerSec: 400 }],
  });
  return runScenario({ ...s, durationMs: 60_000, warmupMs: 0, faults: [zoneDown] }, { version: 'test' }).summary;
}

describe('registry in a full run (buildWorld wires createRegistry)', () => {
  it('reports pushes, push bytes and stale calls for a Nacos registry', () => {
    const summary = run('nacos');
    // 2 instances: 1 initial push each, then 1 push each when zoneA's two providers go unhealthy together
    // (same list), and 1 each when they are deleted together.
    expect(summary.registry.pushes).toBe(6);
    expect(summary.events['registry.unhealthy']).toBe(2);
    expect(summary.events['registry.deleted']).toBe(2);
    expect(summary.registry.pushBytes).toBeGreaterThan(6 * 200);
    expect(summary.registry.staleCalls).toBeGreaterThan(0);
  });

  it('reports no pushes for the static registry', () => {
    expect(run('static').registry).toEqual({ pushes: 0, pushBytes: 0, staleCalls: 0, byConsumerGroup: {}, byLevel: {} });
  });
});
