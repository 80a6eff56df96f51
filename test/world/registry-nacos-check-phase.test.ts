// Nacos's server-side liveness loops (the 1.x ClientBeatCheckTask, every 5 s, and the 2.x connection ejector,
// every 3 s) run on server timers that are not in step with any client: each registry draws their phase once
// per run. With push lag 0 and no notification delay, the moment a consumer's list loses a silent provider is
// the moment the loop removed it.
import { describe, expect, it } from 'vitest';
import type { RegistrySpec } from '../../src/model/types.js';
import { at, blackhole, constant, firstDelivery, makeWorld, NO_NOTIFICATION_DELAY, providers, scenario } from './registry-fixtures.js';

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const AT_ONCE: Partial<RegistrySpec> = { pushLag: constant(0) };

/** When the one consumer's list loses the first provider, black-holed at `faultMs`. */
function removalMs(registry: Partial<RegistrySpec>, faultMs: number, seed: number): number {
  const s = scenario({ registry: { ...AT_ONCE, ...registry }, consumers: [{ instances: 1, dubbo: NO_NOTIFICATION_DELAY }] });
  const { world, log } = makeWorld(s, { seed });
  const [p0] = providers(world);
  at(world, faultMs, () => blackhole(world, p0!));
  world.sim.run({ until: faultMs + 60_000 });
  const out = firstDelivery(log, faultMs, (l) => !l.includes(p0!.address));
  expect(out.size, `seed ${seed}`).toBe(1);
  return [...out.values()][0]!;
}

describe('Nacos server loops run at a phase drawn per run', () => {
  it('1.x: a provider silent since its beat at 20 s is deleted anywhere in the 5 s check period after 30 s of silence', () => {
    const offsets = SEEDS.map((seed) => removalMs({ connectionBound: false }, 20_000.5, seed) - 50_000);
    for (const o of offsets) {
      expect(o).toBeGreaterThan(0);
      expect(o).toBeLessThanOrEqual(5000);
    }
    // Eight uniform phases over 5 s: their spread is far above a millisecond.
    expect(Math.max(...offsets) - Math.min(...offsets)).toBeGreaterThan(100);
  });

  it('2.x: a connection silent since 10 s is probed anywhere in the 3 s ejector period after 20 s idle, and dropped 5 s later', () => {
    const offsets = SEEDS.map((seed) => removalMs({ connectionBound: true }, 10_000.5, seed) - 35_000);
    for (const o of offsets) {
      expect(o).toBeGreaterThanOrEqual(0);
      expect(o).toBeLessThan(3000);
    }
    expect(Math.max(...offsets) - Math.min(...offsets)).toBeGreaterThan(100);
  });

  it('two Nacos registries of one run each draw their own phase: the same silence ends at different times', () => {
    const s = scenario({
      registries: { ra: { zone: 'zoneA', ...AT_ONCE, connectionBound: false }, rb: { zone: 'zoneB', ...AT_ONCE, connectionBound: false } },
      providers: [
        { zone: 'zoneA', registries: ['ra'] },
        { zone: 'zoneB', registries: ['rb'] },
      ],
      consumers: [{ instances: 1, dubbo: NO_NOTIFICATION_DELAY }],
    });
    const { world, log } = makeWorld(s);
    const [a0, , b0] = providers(world);
    at(world, 20_000.5, () => {
      blackhole(world, a0!);
      blackhole(world, b0!);
    });
    world.sim.run({ until: 80_000 });
    const gone = (p: typeof a0) => [...firstDelivery(log, 20_000.5, (l) => !l.includes(p!.address)).values()][0]!;
    const [ta, tb] = [gone(a0), gone(b0)];
    for (const t of [ta, tb]) {
      expect(t).toBeGreaterThan(50_000);
      expect(t).toBeLessThanOrEqual(55_000);
    }
    expect(Math.abs(ta - tb)).toBeGreaterThan(0.001);
  });
});
