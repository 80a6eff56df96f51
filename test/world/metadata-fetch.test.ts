/**
 * The MetadataInfo fetch of application-level discovery (issue 39 item 11; 3.3 metadata-type=local):
 * before a pushed instance list takes effect, the consumer asks a provider of each revision it has not
 * cached for its MetadataInfo, an RPC to that provider (AbstractServiceDiscovery.getRemoteMetadata:
 * 3 tries, a 1 s sleep after each failure, AbstractServiceDiscovery.java:250-271). A revision that
 * fails is left out; when every revision fails the notification is dropped and the listener tries its
 * last list again 10 s later (ServiceInstancesChangedListener.java:184-199,232-243).
 */
import { describe, expect, it } from 'vitest';
import { at, constant, makeWorld, providers, scenario, type Delivery } from './registry-fixtures.js';
import { CONNECT_TIMEOUT_MS, METADATA_FETCH_TRIES, METADATA_RETRY_SLEEP_MS, ADDRESS_REFRESH_RETRY_MS } from '../../src/world/service-instances-changed.js';

const LAG_MS = 100;
const SAME_ZONE_RTT_MS = 0.2; // the fixtures' same-zone RTT
const CROSS_ZONE_RTT_MS = 2; // the fixtures' default RTT
/** One failed try against a provider that does not answer: two connects waiting out the connect timeout, then the sleep. */
const FAILED_TRY_MS = 2 * CONNECT_TIMEOUT_MS + METADATA_RETRY_SLEEP_MS;
/** A revision that never answers: every try fails. */
const FAILED_REVISION_MS = METADATA_FETCH_TRIES * FAILED_TRY_MS;

/** One application, two provider groups (two revisions: `v` differs): v1 runs 1 process, v2 none yet; one consumer in `consumerZone`. */
function deploy(consumerZone = 'zoneA') {
  const t = makeWorld(
    scenario({
      // Nacos keeps a silent instance listed for the whole test: only the fetch decides.
      registry: { type: 'nacos', registration: 'application', pushLag: constant(LAG_MS), unhealthyAfterMs: 3_600_000, removeAfterMs: 3_600_000 },
      providers: [
        { name: 'v1', zone: 'zoneA', count: 1, params: { v: '1' } },
        { name: 'v2', zone: 'zoneA', count: 0, params: { v: '2' } },
      ],
      consumers: [{ zone: consumerZone, instances: 1 }],
    }),
  );
  const v2 = t.world.providerGroups.find((g) => g.spec.name === 'v2')!;
  return { ...t, v2 };
}

/** The lists (as group names) the consumer's listener got after `fromMs`, with their times. */
const handedAfter = (log: Delivery[], fromMs: number, world: ReturnType<typeof deploy>['world']) =>
  log
    .filter((d) => d.tMs > fromMs)
    .map((d) => [d.tMs, d.addresses.map((a) => providers(world).find((p) => p.address === a)!.group.spec.name)] as const);

describe('MetadataInfo fetch before an application-level list takes effect', () => {
  it.each<[string, number]>([
    ['same zone', SAME_ZONE_RTT_MS],
    ['across zones', CROSS_ZONE_RTT_MS],
  ])('delays a list with a new revision by the fetch from a live provider: two round trips (%s)', (_name, rttMs) => {
    const { world, log, observer, v2 } = deploy(rttMs === SAME_ZONE_RTT_MS ? 'zoneA' : 'zoneB');
    at(world, 10_000, () => world.startProvider(v2));
    world.sim.run({ until: 20_000 });
    expect(handedAfter(log, 1, world)).toEqual([[10_000 + LAG_MS + 2 * rttMs, ['v1', 'v2']]]);
    // v1's revision at subscribe, v2's now; the bytes came from the providers, not with a push.
    expect(observer.counters.get('registry.metadataFetches')).toBe(2);
  });

  it('leaves out a revision whose providers do not answer, and drops the list when every revision fails; the directory keeps its old list', () => {
    const { world, log, observer, v2 } = deploy();
    const [v1] = providers(world);
    at(world, 10_000, () => {
      // The new version starts and is black-holed at once; the old one stops.
      world.startProvider(v2).state = 'blackhole';
      v1!.state = 'stopped';
      world.registry.providerStopped(v1!, true);
    });
    world.sim.run({ until: 10_000 + LAG_MS + 2 * FAILED_REVISION_MS + 1 });
    // Push 1 ([v1, v2]) arrives at 10.1 s and waits for v2's revision: 3 failed tries. It then takes
    // effect without v2 (v1 only, as before). Push 2 ([v2]), which arrived meanwhile, waits for it and
    // fails the same way: every revision failed, dropped. The consumer still lists the stopped v1.
    const firstDone = 10_000 + LAG_MS + FAILED_REVISION_MS;
    expect(handedAfter(log, 1, world)).toEqual([[firstDone, ['v1']]]);
    expect(observer.counters.get('registry.metadataFetchFailures')).toBe(2 * METADATA_FETCH_TRIES);
  });

  it('tries the last list again 10 s after a failed handling, and takes it once the provider answers', () => {
    const { world, log, v2 } = deploy();
    const [v1] = providers(world);
    let p2: ReturnType<typeof world.startProvider> | undefined;
    at(world, 10_000, () => {
      p2 = world.startProvider(v2);
      p2.state = 'blackhole';
    });
    // The provider answers again after the first handling has failed and before the retry.
    const firstDone = 10_000 + LAG_MS + FAILED_REVISION_MS;
    const retryAt = firstDone + ADDRESS_REFRESH_RETRY_MS;
    at(world, firstDone + 1000, () => (p2!.state = 'up'));
    world.sim.run({ until: retryAt + 1000 });
    expect(v1).toBeDefined();
    expect(handedAfter(log, 1, world)).toEqual([
      [firstDone, ['v1']],
      [retryAt + 2 * SAME_ZONE_RTT_MS, ['v1', 'v2']],
    ]);
  });
});
