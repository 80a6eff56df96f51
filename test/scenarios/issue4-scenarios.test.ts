import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { buildWorld, runScenario } from '../../src/scenario/run.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { PushSizer } from '../../src/world/registry-push-size.js';
import { applyStrategy } from '../../src/scenario/strategies.js';
import type { Summary, TimelineRow } from '../../src/metrics/summary.js';
import { maxPushLagMs, unlistedWindowMs } from '../helpers/nacos-window.js';

const path = (name: string) => fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url));
const load = (name: string, overrides: string[] = []) => loadScenarioWithRaw(path(name), overrides).scenario;
const run = (scenario: ReturnType<typeof load>) => runScenario(scenario, { version: 'test' }).summary;
/** Runs one of the scenario's own strategies, with `--set` overrides. */
const runStrategy = (name: string, strategy: string, overrides: string[] = []) => {
  const scenario = load(name, overrides);
  return run(applyStrategy(scenario, scenario.strategies[strategy]!));
};

/** Timeline rows whose bucket starts in [fromS, toS) seconds. */
/** What one provider of the scenario's first group adds to a push at each level, and the Nacos envelopes. */
function pushSizes(name: string) {
  const scenario = load(name);
  const recorder = new Recorder({ warmupMs: 0, durationMs: 1, bucketMs: 1, providerGroups: [] });
  const p = buildWorld(scenario, 1, recorder).providerGroups[0]!.instances[0]!;
  const iface = new PushSizer('interface', 'nacos');
  const app = new PushSizer('application', 'nacos');
  return {
    url: iface.instanceBytes(p.exports[0]!),
    process: app.processBytes(p),
    ifaceEnvelope: iface.envelopeBytes(p.exports[0]!.service, p.exports[0]!.service, `providers:${p.exports[0]!.service}:1.0.0:`),
    appEnvelope: app.envelopeBytes(p.group.spec.application, p.group.spec.application),
  };
}

const rows = (s: Summary, fromS: number, toS = Infinity): TimelineRow[] =>
  s.timeline.filter((r) => r.tMs >= fromS * 1000 && r.tMs < toS * 1000);
const sum = (rs: TimelineRow[], key: 'timeout' | 'noProvider' | 'forbidden' | 'network' | 'requests') =>
  rs.reduce((n, r) => n + r[key], 0);
const meanCrossZone = (rs: TimelineRow[]) => rs.reduce((n, r) => n + r.crossZoneRatio, 0) / rs.length;
/** `attempts × ratio` back to a count (ratios are rounded to 6 decimals, so this is exact for < 500 000 attempts). */
const crossAttempts = (scope: { attempts: number; crossZoneRatio: number }) => Math.round(scope.attempts * scope.crossZoneRatio);

/**
 * zone-a-down under both releases: Dubbo 3.3's default nacos-client 2.x (zoneA's connections ejected) and
 * `dubbo: '2.7'` (nacos-client 1.x: zoneA marked unhealthy, which Dubbo ignores, then deleted). The window
 * in which zoneA stays listed is derived from the registry rules (test/helpers/nacos-window.ts). It holds
 * at interface and application level alike: detection is per process, and neither Nacos application-level
 * lists (no notifier) nor these few interface-level notifications (fewer than RegistryNotifier's 11) are delayed.
 */
describe.each([
  ['3.3 (nacos-client 2.x)', [] as string[]],
  ['2.7 (nacos-client 1.x)', ['dubbo=2.7']],
])('zone-a-down, Dubbo %s', (_release, sets) => {
  const scenario = load('zone-a-down.yaml', sets);
  const outage = scenario.faults[0]!;
  const window = unlistedWindowMs(scenario, 'users-a', outage.atMs);
  // The buckets (s) in which the consumers' lists can lose zoneA, and the end of the outage.
  const fromS = Math.floor(window.fromMs / 1000);
  const toS = Math.floor(window.toMs / 1000);
  const backS = (outage.atMs + outage.forMs!) / 1000;
  const dubboDefault = runStrategy('zone-a-down.yaml', 'dubbo-default', sets);
  const fallback = runStrategy('zone-a-down.yaml', 'zone-router-fallback', sets);
  // zoneA consumers send 800 of the 1000 requests/s: once zoneA is pushed out, 80% of the attempts cross.
  const ZONE_A_SHARE = 0.8;
  /**
   * When the consumers' lists lost zoneA: the first bucket from 60 s on in which most attempts
   * cross zones as only the zoneA consumers' calls can (before, random balancing crosses about half).
   */
  const pushedOutAt = (s: Summary) => rows(s, 60).find((r) => r.crossZoneRatio > 0.75)!.tMs / 1000;
  // A request's third attempt is sent 2 s after it starts: requests started before this all try zoneA while it is listed.
  const listedS = fromS - 2;

  it('derives the window from the providers` Nacos client', () => {
    expect(window.client).toBe(sets.length === 0 ? '2.x' : '1.x');
    // 2.x: idle 20 s, the next 3 s ejector run, the 5 s probe, after the last keepalive in (55 s, 60 s].
    // 1.x: more than removeAfter (30 s) without a beat, at the next 5 s check.
    expect([fromS, toS]).toEqual(sets.length === 0 ? [80, 88] : [85, 95]);
  });

  it('has no timeout before the outage; timeouts start in the 60 s bucket', () => {
    expect(sum(rows(dubboDefault, 10, 59), 'timeout')).toBe(0);
    // A request started in the last second before 60 s can retry into the black hole.
    const [b59] = rows(dubboDefault, 59, 60);
    expect(b59!.timeout / b59!.requests).toBeLessThan(0.01);
    // All three attempts land in zoneA with probability 10/20 · 9/19 · 8/18 = 0.105 (failover reselects
    // among the untried providers), in every bucket whose requests all end before zoneA can leave the lists.
    const expected = (10 / 20) * (9 / 19) * (8 / 18);
    const outage = rows(dubboDefault, 60, listedS);
    expect(outage.length).toBeGreaterThanOrEqual(15);
    // Binomial sd per bucket of ~1000 requests: sqrt(0.105 · 0.895 / 1000) ~ 0.0097; allow 4 sd.
    for (const r of outage) {
      const sd = Math.sqrt((expected * (1 - expected)) / r.requests);
      expect(Math.abs(r.timeout / r.requests - expected), `t=${r.tMs}`).toBeLessThan(4 * sd);
    }
    const n = sum(outage, 'requests');
    expect(Math.abs(sum(outage, 'timeout') / n - expected)).toBeLessThan(4 * Math.sqrt((expected * (1 - expected)) / n));
  });

  it('counts every cross-zone attempt of a request, retries included, while zoneA is a black hole', () => {
    // A request tries providers in random order without repeats until one in zoneB answers (or 3 attempts):
    // B | A,B | A,A,B | A,A,A with odds 1/2, 1/2·10/19, 1/2·9/19·10/18, 1/2·9/19·8/18.
    const odds = [1 / 2, (1 / 2) * (10 / 19), (1 / 2) * (9 / 19) * (10 / 18), (1 / 2) * (9 / 19) * (8 / 18)];
    const toA = [0, 1, 2, 3];
    const toB = [1, 1, 1, 0];
    const e = (xs: number[]) => xs.reduce((n, x, i) => n + x * odds[i]!, 0);
    const attempts = e(toA) + e(toB);
    // zoneA consumers (800/s) cross on their zoneB attempts, zoneB consumers (200/s) on their zoneA attempts;
    // both make the same attempts per request, so the ratio is the rate-weighted mean: ~0.509.
    const expected = ZONE_A_SHARE * (e(toB) / attempts) + (1 - ZONE_A_SHARE) * (e(toA) / attempts);
    // Counting at most one cross-zone attempt per request would give ~0.470. Each bucket's ratio has sd ~0.013
    // (~1700 attempts, clustered by request); the mean of 8 buckets ~0.005.
    expect(Math.abs(meanCrossZone(rows(dubboDefault, 60, 68)) - expected)).toBeLessThan(0.02);
  });

  it('keeps zoneA listed until Nacos drops it (2.x: connection ejected; 1.x: deleted, not when unhealthy)', () => {
    const t = pushedOutAt(dubboDefault);
    expect(t).toBeGreaterThanOrEqual(fromS);
    expect(t).toBeLessThanOrEqual(toS);
    // Timeouts in every bucket until zoneA can first leave the lists.
    for (const r of rows(dubboDefault, 60, fromS - 1)) expect(r.timeout, `t=${r.tMs}`).toBeGreaterThan(0);
    if (window.client === '1.x') {
      // Unhealthy (15 s without a beat) by 60 + 15 + 5 s + the push lag: Nacos pushes the change, Dubbo keeps zoneA.
      expect(dubboDefault.events['registry.unhealthy']).toBe(10);
      expect(dubboDefault.events['registry.deleted']).toBe(10);
      expect(fromS - 1).toBeGreaterThan(81);
    } else {
      // One per zoneA registration (more if they register at both levels).
      expect(dubboDefault.events['registry.ejected']).toBeGreaterThanOrEqual(10);
      expect(dubboDefault.events['registry.unhealthy']).toBeUndefined();
      // Fewer than 11 notifications per subscription: RegistryNotifier delayed nothing.
      expect(dubboDefault.events['registry.notificationsDeferred']).toBeUndefined();
    }
  });

  it('stops timing out once the push that drops zoneA has arrived', () => {
    const t = pushedOutAt(dubboDefault);
    // Requests started from one bucket before the push on have an attempt after it: none times out,
    // neither while zoneA is gone nor after it comes back.
    expect(sum(rows(dubboDefault, t - 1), 'timeout')).toBe(0);
    expect(sum(rows(dubboDefault, toS + 1, backS), 'timeout')).toBe(0);
  });

  it('sends every zoneA call across to zoneB once zoneA is pushed out, until it comes back', () => {
    const t = pushedOutAt(dubboDefault);
    const gone = rows(dubboDefault, t + 1, backS);
    // Mean of ~30 buckets of ~1000 attempts: sampling sd ~0.002.
    expect(Math.abs(meanCrossZone(gone) - ZONE_A_SHARE)).toBeLessThan(0.02);
    for (const r of gone) expect(r.crossZoneRatio, `t=${r.tMs}`).toBeGreaterThan(0.7);
    // Before the outage random balancing crosses zones for about half the attempts (10 of 20 providers).
    expect(Math.abs(meanCrossZone(rows(dubboDefault, 10, 59)) - 0.5)).toBeLessThan(0.02);
  });

  it('never answers No provider available with the fallback zone router: zoneA falls back to zoneB', () => {
    expect(fallback.outcomes.noProvider).toBe(0);
    expect(fallback.outcomes.forbidden).toBe(0);
    const t = pushedOutAt(fallback);
    expect(t).toBeGreaterThanOrEqual(fromS);
    expect(t).toBeLessThanOrEqual(toS);
    expect(Math.abs(meanCrossZone(rows(fallback, t + 1, backS)) - ZONE_A_SHARE)).toBeLessThan(0.02);
    expect(sum(rows(fallback, t - 1), 'timeout')).toBe(0);
  });

  it('keeps every call in its own zone with the fallback zone router while both zones are healthy', () => {
    for (const r of rows(fallback, 10, 60)) expect(r.crossZoneRatio, `t=${r.tMs}`).toBe(0);
    for (const r of rows(fallback, backS + 1)) expect(r.crossZoneRatio, `t=${r.tMs}`).toBe(0);
  });

  it('times out almost every zoneA call under the fallback router while Nacos still lists zoneA', () => {
    // The router keeps zoneA calls in zoneA, all of whose providers are black holes: 80% of the requests.
    for (const r of rows(fallback, 60, listedS)) expect(r.timeout / r.requests, `t=${r.tMs}`).toBeGreaterThan(0.7);
    expect(fallback.byConsumerZone.zoneB!.outcomes.timeout).toBe(0);
  });
});

describe('nacos-registry-partition', () => {
  const INVENTORY = 'com.example.InventoryService.getStock';
  const noProtection = runStrategy('nacos-registry-partition.yaml', 'no-protection');
  const protectedRun = runStrategy('nacos-registry-partition.yaml', 'empty-protection');
  // Cut at 30 s, healed at 90 s. zoneB's providers (3.3 default, nacos-client 2.x) are not heard: their
  // connections are ejected in the window below (test/helpers/nacos-window.ts); back at their first
  // keepalive after the heal, which reconnects and redoes the registrations: by 90 s + heartbeat + push lag.
  const scenario = load('nacos-registry-partition.yaml');
  const cut = scenario.faults[0]!;
  const healS = (cut.atMs + cut.forMs!) / 1000;
  const window = unlistedWindowMs(scenario, 'users-b', cut.atMs);
  const fromS = Math.floor(window.fromMs / 1000);
  const toS = Math.floor(window.toMs / 1000);
  const backS = Math.ceil((cut.atMs + cut.forMs! + scenario.registry.heartbeatMs + maxPushLagMs(scenario.registry.pushLag)) / 1000);
  // Measure only from when zoneB has surely been pushed out until the heal.
  const WINDOW = [`warmup=${toS + 1}s`, `duration=${healS - 5}s`];
  const noProtectionCut = runStrategy('nacos-registry-partition.yaml', 'no-protection', WINDOW);
  const protectedCut = runStrategy('nacos-registry-partition.yaml', 'empty-protection', WINDOW);

  it('fails the zoneA inventory calls with the forbidden error only while zoneB is pushed out (no empty protection)', () => {
    expect([fromS, toS, backS]).toEqual([50, 58, 96]);
    expect(sum(rows(noProtection, 5, fromS), 'forbidden')).toBe(0);
    for (const r of rows(noProtection, toS + 1, healS)) expect(r.forbidden, `t=${r.tMs}`).toBeGreaterThan(0);
    expect(sum(rows(noProtection, backS), 'forbidden')).toBe(0);
    // One per zoneB registration (10 instances; more if they register at both levels); no health check in 2.x.
    expect(noProtection.events['registry.ejected']).toBeGreaterThanOrEqual(10);
    expect(noProtection.events['registry.unhealthy']).toBeUndefined();
    expect(noProtection.outcomes.forbidden).toBeGreaterThan(3000);
    expect(noProtection.noProviderCauses).toEqual({ 'registry:forbidden': noProtection.outcomes.forbidden });
    expect(noProtection.byConsumerZone.zoneB!.outcomes.forbidden).toBe(0);
  });

  it('sends all the zoneA consumers\' traffic to zoneA while zoneB is pushed out', () => {
    const zoneA = noProtectionCut.byConsumerZone.zoneA!;
    expect(zoneA.attempts).toBeGreaterThan(5000);
    expect(zoneA.crossZoneRatio).toBe(0);
    const inventory = noProtectionCut.byService[INVENTORY]!;
    expect(inventory.outcomes.forbidden).toBe(inventory.requests);
  });

  it('leaves the zoneB consumers on their stale lists: both zones, no error, every zoneB attempt a stale call', () => {
    const zoneB = noProtectionCut.byConsumerZone.zoneB!;
    expect(zoneB.ok).toBe(zoneB.requests);
    // 6 of the 12 UserService providers they still list are in zoneA; ~6000 attempts, sd ~0.007.
    expect(Math.abs(zoneB.crossZoneRatio - 0.5)).toBeLessThan(0.03);
    // The registry has pushed out every zoneB provider: each attempt that stays in zoneB is stale.
    expect(noProtectionCut.registry.staleCalls).toBe(zoneB.attempts - crossAttempts(zoneB));
  });

  it('keeps the zoneA inventory calls working with empty protection: the old list, the live zoneB providers', () => {
    expect(protectedRun.ok).toBe(protectedRun.requests);
    expect(protectedRun.outcomes.forbidden + protectedRun.outcomes.noProvider).toBe(0);
    const inventory = protectedCut.byService[INVENTORY]!;
    expect(inventory.ok).toBe(inventory.requests);
    expect(inventory.crossZoneRatio).toBe(1);
    // UserService calls still follow the (non-empty) push: only the inventory calls leave zoneA.
    expect(crossAttempts(protectedCut.byConsumerZone.zoneA!)).toBe(inventory.attempts);
    // Those inventory attempts go to providers the registry has pushed out: stale calls too.
    const zoneB = protectedCut.byConsumerZone.zoneB!;
    expect(protectedCut.registry.staleCalls).toBe(inventory.attempts + zoneB.attempts - crossAttempts(zoneB));
  });
});

describe('zk-session-expiry', () => {
  const ZONE_B_PROCESSES = 6;
  // 3.3's default register-mode all: an interface-level registration and a service-discovery one, each on
  // its own ZooKeeper client (ZookeeperServiceDiscovery builds its own CuratorFramework).
  const SESSIONS_PER_PROCESS = 2;
  const blackhole = run(load('zk-session-expiry.yaml'));
  // Requests started before 60 s send their last attempt before 63 s, before the earliest possible
  // expiry (crash at 35 s + 40 s - the 10 s ping interval = 65 s).
  const beforeExpiry = run(load('zk-session-expiry.yaml', ['duration=60s']));
  const crashed = run(load('zk-session-expiry.yaml', ['faults[0].mode=crash']));

  it('keeps the dead zoneB hosts in every list until the sessions expire: calls time out and fail over', () => {
    expect(sum(rows(blackhole, 5, 34), 'timeout')).toBe(0);
    // Half the first attempts go to zoneB and wait 1000 ms: p99 >= 1000 ms in every bucket until
    // the earliest expiry (35 s + 30 s).
    for (const r of rows(blackhole, 35, 64)) expect(r.p99Ms, `t=${r.tMs}`).toBeGreaterThanOrEqual(1000);
    expect(sum(rows(blackhole, 35, 64), 'timeout')).toBeGreaterThan(500);
    expect(beforeExpiry.events['registry.sessionExpired'] ?? 0).toBe(0);
  });

  it('expires the twelve sessions 30 to 42 s after the crash, after which no call waits for a timeout', () => {
    // Six processes, each registered at both levels (3.3 register-mode all) over two ZooKeeper clients: the
    // interface-level registry's and ZookeeperServiceDiscovery's own Curator client, one session each.
    expect(blackhole.events['registry.sessionExpired']).toBe(ZONE_B_PROCESSES * SESSIONS_PER_PROCESS);
    // Expiry by 35 + 40 + 2 (tick rounding) = 77 s, pushed within 100 ms.
    for (const r of rows(blackhole, 78)) {
      expect(r.timeout, `t=${r.tMs}`).toBe(0);
      expect(r.p99Ms, `t=${r.tMs}`).toBeLessThan(1000);
    }
    // Only the zoneB consumers still cross zones: 200 of 600 requests/s.
    expect(Math.abs(meanCrossZone(rows(blackhole, 78)) - 1 / 3)).toBeLessThan(0.02);
  });

  it('counts no stale call while ZooKeeper still lists the dead providers, only during the push lag after expiry', () => {
    expect(beforeExpiry.outcomes.timeout).toBeGreaterThan(500);
    expect(beforeExpiry.registry.staleCalls).toBe(0);
    // At most 100 ms of push lag x 600 requests/s x 3 attempts.
    expect(blackhole.registry.staleCalls).toBeGreaterThan(0);
    expect(blackhole.registry.staleCalls).toBeLessThanOrEqual(180);
  });

  it('sets a crashed (connection-refusing) provider aside at once, long before its session expires', () => {
    // The TCP reset makes the invoker unavailable: Dubbo's availablecheck reselects, nothing fails.
    expect(crashed.ok).toBe(crashed.requests);
    expect(crashed.registry.staleCalls).toBe(0);
    expect(crashed.events['registry.sessionExpired']).toBe(ZONE_B_PROCESSES * SESSIONS_PER_PROCESS);
    // From the crash on, only the zoneB consumers cross; before, random balancing crosses half the time.
    expect(Math.abs(meanCrossZone(rows(crashed, 36, 70)) - 1 / 3)).toBeLessThan(0.02);
    expect(Math.abs(meanCrossZone(rows(crashed, 5, 35)) - 0.5)).toBeLessThan(0.03);
  });
});

describe('release-day-push-storm', () => {
  const N = 20; // providers restarted
  const M = 50; // consumer instances watching
  const iface = runStrategy('release-day-push-storm.yaml', 'interface');
  const app = runStrategy('release-day-push-storm.yaml', 'application');
  // The same run without the restart (it would start after the end): one push per subscription.
  const quiet = runStrategy('release-day-push-storm.yaml', 'interface', ['faults[0].at=100s']);

  it('reads each consumer\'s list once when it subscribes', () => {
    expect(quiet.registry.pushes).toBe(M);
  });

  it('pushes 2·N·M notifications for the rolling restart: a deregistration and a registration per provider, to every watcher', () => {
    // Exact: every deregistration and every registration is its own change, pushed to all M watchers
    // (a batch's instances stop and start one by one). Registries that merge changes would push fewer.
    expect(iface.registry.pushes - quiet.registry.pushes).toBe(2 * N * M);
    expect(app.registry.pushes - quiet.registry.pushes).toBe(2 * N * M);
  });

  it('refreshes each consumer`s list at most every 5 s once 11 notifications have passed (3.3 RegistryNotifier, interface level)', () => {
    // Every push still arrives (counted above); RegistryNotifier (NacosRegistry.java:785-799,
    // RegistryNotifier.java:86-94) drops the lists a later push supersedes before the deferred refresh.
    const superseded = iface.events['registry.notificationsSuperseded']!;
    expect(iface.events['registry.notificationsDeferred']).toBeGreaterThan(0);
    expect(superseded).toBeGreaterThan(0);
    // Refreshes per consumer: the read at subscribe, the first 11 changes (batches 1-3, by 30.3 s), then at most
    // one per 5 s until the last push lands (the last batch at 65 s, plus 300 ms): 1 + 11 + ceil(35.3 / 5) = 20.
    const refreshes = iface.registry.pushes - superseded;
    expect(refreshes).toBeLessThanOrEqual(M * (1 + 11 + Math.ceil(35.3 / 5)));
    // Application level under Nacos is not throttled (NacosServiceDiscovery.java:213-219).
    expect(app.events['registry.notificationsSuperseded']).toBeUndefined();
  });

  it('moves more bytes with application-level registration of this one-service application (Dubbo 3 local metadata)', () => {
    // Same pushes, the same list sizes; a process weighs ip:port plus its instance metadata, which with
    // Dubbo 3's default metadata-type=local carries the MetadataService's URL parameters: longer than
    // the one URL it replaces. So the bytes scale as (envelope + N·process) / (envelope + N·URL).
    const { url, process, ifaceEnvelope, appEnvelope } = pushSizes('release-day-push-storm.yaml');
    const ratio = (appEnvelope + N * process) / (ifaceEnvelope + N * url);
    expect(process).toBeGreaterThan(url);
    expect(Math.abs(app.registry.pushBytes / iface.registry.pushBytes - ratio)).toBeLessThan(0.01 * ratio);
    // One revision: one MetadataInfo fetch per consumer, from a provider, outside the push bytes.
    expect(app.events['registry.metadataFetches']).toBe(M);
  });

  it('fails no call during the restart: a graceful stop serves until the push has arrived', () => {
    expect(iface.ok).toBe(iface.requests);
    expect(app.ok).toBe(app.requests);
  });
});

describe('push-switch-off', () => {
  const scenario = load('push-switch-off.yaml');
  const [switchOff, powerCut] = scenario.faults;
  const onS = (switchOff!.atMs + switchOff!.forMs!) / 1000;
  // zoneB's hosts (3.3 default, nacos-client 2.x) fall silent at 40 s: their connections are ejected in this
  // window (test/helpers/nacos-window.ts), whether or not anyone is told.
  const window = unlistedWindowMs(scenario, 'users-b', powerCut!.atMs);
  const fromS = Math.floor(window.fromMs / 1000);
  const toS = Math.floor(window.toMs / 1000);
  const off = run(load('push-switch-off.yaml'));
  // The switch-off would start after the end: pushes stay on.
  const on = run(load('push-switch-off.yaml', ['faults[0].at=200s']));
  // Requests started before fromS - 3 s send their last (third) attempt before Nacos can have dropped the hosts.
  const early = run(load('push-switch-off.yaml', [`duration=${fromS - 3}s`]));

  it('keeps calls waiting on the dead hosts for as long as pushes are off', () => {
    // A third of the first attempts go to zoneB and wait 1000 ms: p99 >= 1000 ms in every bucket.
    for (const r of rows(off, 41, onS - 2)) expect(r.p99Ms, `t=${r.tMs}`).toBeGreaterThanOrEqual(1000);
    expect(sum(rows(off, toS + 1, onS - 2), 'timeout')).toBeGreaterThan(50);
  });

  it('counts those calls as stale once Nacos has dropped the hosts (connections ejected)', () => {
    expect([fromS, toS]).toEqual([60, 68]);
    expect(early.outcomes.timeout).toBeGreaterThan(0);
    expect(early.registry.staleCalls).toBe(0);
    // At least onS - toS = 22 s x 400 requests/s x 1/3 of the first attempts.
    expect(off.registry.staleCalls).toBeGreaterThan((onS - toS - 1) * 400 * (1 / 3));
    // Four hosts, each a Nacos instance at interface level and one at application level (3.3's register-mode all).
    expect(off.events['registry.ejected']).toBe(4 * 2);
  });

  it('stops the errors once the switch is on and every consumer has re-read the list', () => {
    // On at 90 s, each consumer's list arrives within 300 ms.
    expect(sum(rows(off, onS - 1), 'timeout')).toBe(0);
    for (const r of rows(off, onS + 1)) {
      expect(r.p99Ms, `t=${r.tMs}`).toBeLessThan(1000);
      expect(r.crossZoneRatio, `t=${r.tMs}`).toBe(0);
    }
  });

  it('ends the same outage when Nacos ejects the connections, 20-28 s after the power cut, when pushes stay on', () => {
    for (const r of rows(on, toS + 1)) {
      expect(r.timeout, `t=${r.tMs}`).toBe(0);
      expect(r.p99Ms, `t=${r.tMs}`).toBeLessThan(1000);
    }
    for (const r of rows(on, 41, fromS - 2)) expect(r.p99Ms, `t=${r.tMs}`).toBeGreaterThanOrEqual(1000);
    // Only the push lag after the ejection: at most 300 ms x 400 requests/s x 3 attempts.
    expect(on.registry.staleCalls).toBeLessThanOrEqual(360);
    expect(off.outcomes.timeout).toBeGreaterThan(2 * on.outcomes.timeout);
  });
});

describe('zone-scale-in', () => {
  const strict = runStrategy('zone-scale-in.yaml', 'strict');
  const fallback = runStrategy('zone-scale-in.yaml', 'fallback');

  it('leaves the zoneB consumers with No provider available under the strict router while zoneB is scaled in', () => {
    expect(sum(rows(strict, 5, 30), 'noProvider')).toBe(0);
    for (const r of rows(strict, 31, 60)) expect(r.noProvider, `t=${r.tMs}`).toBeGreaterThan(0);
    // Scaled back at 60 s: registered at once, pushed within 300 ms.
    expect(sum(rows(strict, 61), 'noProvider')).toBe(0);
    expect(strict.noProviderCauses).toEqual({ 'router:zone': strict.outcomes.noProvider });
    expect(strict.byConsumerZone.zoneA!.ok).toBe(strict.byConsumerZone.zoneA!.requests);
  });

  it('sends the zoneB calls to zoneA with the fallback router while zoneB is scaled in, and fails none', () => {
    expect(fallback.ok).toBe(fallback.requests);
    for (const r of rows(fallback, 5, 30)) expect(r.crossZoneRatio, `t=${r.tMs}`).toBe(0);
    // zoneB's consumers make half the calls; all of them cross while their zone is empty.
    expect(Math.abs(meanCrossZone(rows(fallback, 31, 60)) - 0.5)).toBeLessThan(0.03);
  });
});
