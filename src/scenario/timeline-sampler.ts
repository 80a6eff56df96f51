/**
 * Feeds the provider side of the timeline: at the start of the measured window and at the end of
 * each timeline bucket it reads every provider group's busy thread-ms and per-window thread peak
 * from the world and hands them to the recorder (`Recorder.sample`), which also closes the
 * bucket's registry push count. It only reads; the samples run before any other event of their
 * instant (a priority below the kernel's), so a bucket holds exactly what happened in
 * `[tMs, tMs + bucketMs)`. It owns the sampling times' plumbing, not the figures.
 */
import type { Recorder, ProviderGroupSample } from '../metrics/recorder.js';
import type { World } from '../world/world.js';
import { sentinelHubOf } from '../stack/sentinel-hub.js';

/** Runs before the kernel's URGENT (0) and NORMAL (1) entries of the same instant. */
const BEFORE_EVERYTHING = -1;

/** Schedules the samples of `recorder`'s timeline on `world`'s simulation (one pending at a time). */
export function scheduleTimelineSampling(world: World, recorder: Recorder): void {
  const sim = world.sim;
  // Open Sentinel breakers per consumer zone, sampled with the rest when the scenario uses Sentinel.
  const sentinel = sentinelHubOf(world);
  let k = 0;
  const read = (): ProviderGroupSample[] =>
    world.providerGroups.map((g) => {
      const { busyMs, peak } = g.takeWindowFigures();
      return { name: g.spec.name, busyMs, peakActiveThreads: peak };
    });
  const next = (): void => {
    const atMs = recorder.sampleTimeMs(k);
    if (atMs === undefined) return;
    sim.schedule(Math.max(0, atMs - sim.now), fire, BEFORE_EVERYTHING);
  };
  const fire = (): void => {
    // Pushes the registry holds off the agenda count once delivered (`RegistryModel.holdPushes`).
    world.registry.catchUpAll?.();
    recorder.sample(read(), sentinel?.openBreakersByZone());
    k++;
    next();
  };
  next();
}
