import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { buildWorld, runScenario } from '../../src/scenario/run.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { PushSizer } from '../../src/world/registry-push-size.js';
import { applyStrategy } from '../../src/scenario/strategies.js';
import type { Summary, TimelineRow } from '../../src/metrics/summary.js';

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

describe('zone-a-down', () => {
  const dubboDefault = runStrategy('zone-a-down.yaml', 'dubbo-default');
  const fallback = runStrategy('zone-a-down.yaml', 'zone-router-fallback');
  // zoneA consumers send 800 of the 1000 requests/s: once zoneA is pushed out, 80% of the attempts cross.
  const ZONE_A_SHARE = 0.8;
  /**
   * When the consumers' lists lost zoneA: the first bucket from 60 s on in which most attempts
   * cross zones as only the zoneA consumers' calls can (before, random balancing crosses about half).
   */
  const pushedOutAt = (s: Summary) => rows(s, 60).find((r) => r.crossZoneRatio > 0.75)!.tMs / 1000;

  it('has no timeout before the outage; timeouts start in the 60 s bucket', () => {
    expect(sum(rows(dubboDefault, 10, 59), 'timeout')).toBe(0);
    // A request started in the last second before 60 s can retry into the black hole.
    const [b59] = rows(dubboDefault, 59, 60);
    expect(b59!.timeout / b59!.requests).toBeLessThan(0.01);
    // All three attempts land in zoneA with probability 10/20 · 9/19 · 8/18 = 0.105 (failover reselects
    // among the untried providers). Nacos cannot mark zoneA unhealthy before 70 s (last beat after 55 s, plus
    // 15 s), and a request's third attempt is sent 2 s after it starts: buckets up to 67 s all see it.
    const expected = (10 / 20) * (9 / 19) * (8 / 18);
    const outage = rows(dubboDefault, 60, 68);
    // Binomial sd per bucket of ~1000 requests: sqrt(0.105 · 0.895 / 1000) ~ 0.0097; allow 4 sd.
    for (const r of outage) {
      const sd = Math.sqrt((expected * (1 - expected)) / r.requests);
      expect(Math.abs(r.timeout / r.requests - expected), `t=${r.tMs}`).toBeLessThan(4 * sd);
    }
    // Over the 8 buckets (~8000 requests) the sd is ~0.0034.
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
    // (~1700 attempts, clustered by request); the mean of 8 buckets ~0.005 (seeds 1-6 gave 0.503-0.517).
    expect(Math.abs(meanCrossZone(rows(dubboDefault, 60, 68)) - expected)).toBeLessThan(0.02);
  });

  it('stops timing out once Nacos has marked zoneA unhealthy (15 s without a beat) and the push has arrived', () => {
    const t = pushedOutAt(dubboDefault);
    // Last beat in (55 s, 60 s], unhealthy at the first 5 s check more than 15 s later: (70 s, 80 s],
    // plus at most 300 ms of push lag.
    expect(t).toBeGreaterThanOrEqual(70);
    expect(t).toBeLessThanOrEqual(81);
    // Requests started from one bucket before the push on have an attempt after it: none times out,
    // neither while zoneA is gone nor after it comes back at 120 s.
    expect(sum(rows(dubboDefault, t - 1), 'timeout')).toBe(0);
    expect(sum(rows(dubboDefault, 85, 120), 'timeout')).toBe(0);
  });

  it('sends every zoneA call across to zoneB once zoneA is pushed out, until it comes back', () => {
    const t = pushedOutAt(dubboDefault);
    const gone = rows(dubboDefault, t + 1, 120);
    // Mean of ~45 buckets of ~1000 attempts: sampling sd ~0.002.
    expect(Math.abs(meanCrossZone(gone) - ZONE_A_SHARE)).toBeLessThan(0.02);
    for (const r of gone) expect(r.crossZoneRatio, `t=${r.tMs}`).toBeGreaterThan(0.7);
    // Before the outage random balancing crosses zones for about half the attempts (10 of 20 providers).
    expect(Math.abs(meanCrossZone(rows(dubboDefault, 10, 59)) - 0.5)).toBeLessThan(0.02);
  });

  it('never answers No provider available with the fallback zone router: zoneA falls back to zoneB', () => {
    expect(fallback.outcomes.noProvider).toBe(0);
    expect(fallback.outcomes.forbidden).toBe(0);
    const t = pushedOutAt(fallback);
    expect(Math.abs(meanCrossZone(rows(fallback, t + 1, 120)) - ZONE_A_SHARE)).toBeLessThan(0.02);
    expect(sum(rows(fallback, t - 1), 'timeout')).toBe(0);
  });

  it('keeps every call in its own zone with the fallback zone router while both zones are healthy', () => {
    for (const r of rows(fallback, 10, 60)) expect(r.crossZoneRatio, `t=${r.tMs}`).toBe(0);
    for (const r of rows(fallback, 121)) expect(r.crossZoneRatio, `t=${r.tMs}`).toBe(0);
  });

  it('times out almost every zoneA call under the fallback router while Nacos still lists zoneA', () => {
    // The router keeps zoneA calls in zoneA, all of whose providers are black holes: 80% of the requests.
    for (const r of rows(fallback, 60, 68)) expect(r.timeout / r.requests, `t=${r.tMs}`).toBeGreaterThan(0.7);
    expect(fallback.byConsumerZone.zoneB!.outcomes.timeout).toBe(0);
  });
});

describe('nacos-registry-partition', () => {
  const INVENTORY = 'com.example.InventoryService.getStock';
  const noProtection = runStrategy('nacos-registry-partition.yaml', 'no-protection');
  const protectedRun = runStrategy('nacos-registry-partition.yaml', 'empty-protection');
  // Measure only [55 s, 85 s): zoneB has been pushed out (by 50.3 s) and is not back yet (90 s).
  const WINDOW = ['warmup=55s', 'duration=85s'];
  const noProtectionCut = runStrategy('nacos-registry-partition.yaml', 'no-protection', WINDOW);
  const protectedCut = runStrategy('nacos-registry-partition.yaml', 'empty-protection', WINDOW);

  it('fails the zoneA inventory calls with the forbidden error only while zoneB is pushed out (no empty protection)', () => {
    // Cut at 30 s: last beat in (25 s, 30 s], unhealthy at a 5 s check in (40 s, 50 s], pushed by 50.3 s.
    // Healed at 90 s: the next beat (within 5 s) registers them again, pushed by 95.3 s.
    expect(sum(rows(noProtection, 5, 40), 'forbidden')).toBe(0);
    for (const r of rows(noProtection, 51, 90)) expect(r.forbidden, `t=${r.tMs}`).toBeGreaterThan(0);
    expect(sum(rows(noProtection, 96), 'forbidden')).toBe(0);
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
  const off = run(load('push-switch-off.yaml'));
  // The switch-off would start after the end: pushes stay on.
  const on = run(load('push-switch-off.yaml', ['faults[0].at=200s']));
  // Beats every 5 s from 0 s: the last one at 35 s, so Nacos cannot mark the hosts unhealthy
  // before 50 s. Requests started before 47 s send their last (third) attempt before 50 s.
  const early = run(load('push-switch-off.yaml', ['duration=47s']));

  it('keeps calls waiting on the dead hosts for as long as pushes are off', () => {
    // A third of the first attempts go to zoneB and wait 1000 ms: p99 >= 1000 ms in every bucket.
    for (const r of rows(off, 41, 88)) expect(r.p99Ms, `t=${r.tMs}`).toBeGreaterThanOrEqual(1000);
    expect(sum(rows(off, 61, 88), 'timeout')).toBeGreaterThan(50);
  });

  it('counts those calls as stale once Nacos has marked the hosts unhealthy', () => {
    expect(early.outcomes.timeout).toBeGreaterThan(0);
    expect(early.registry.staleCalls).toBe(0);
    // ~30 s (unhealthy by 60 s, switch on at 90 s) x 400 requests/s x at least 1/3 of the first attempts.
    expect(off.registry.staleCalls).toBeGreaterThan(3000);
    // Four hosts, each a Nacos instance at interface level and one at application level (3.3's register-mode all).
    expect(off.events['registry.unhealthy']).toBe(4 * 2);
  });

  it('stops the errors once the switch is on and every consumer has re-read the list', () => {
    // On at 90 s, each consumer's list arrives within 300 ms.
    expect(sum(rows(off, 89), 'timeout')).toBe(0);
    for (const r of rows(off, 91)) {
      expect(r.p99Ms, `t=${r.tMs}`).toBeLessThan(1000);
      expect(r.crossZoneRatio, `t=${r.tMs}`).toBe(0);
    }
  });

  it('ends the same outage with the health check, 15-20 s after the power cut, when pushes stay on', () => {
    for (const r of rows(on, 61)) {
      expect(r.timeout, `t=${r.tMs}`).toBe(0);
      expect(r.p99Ms, `t=${r.tMs}`).toBeLessThan(1000);
    }
    // Only the push lag after the unhealthy mark: at most 300 ms x 400 requests/s x 3 attempts.
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
