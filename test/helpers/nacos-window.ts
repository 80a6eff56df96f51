/**
 * When a Nacos provider that falls silent leaves the consumers' lists, derived from the registry's
 * rules (src/world/registry-nacos.ts and its Nacos sources) and the scenario's registry settings, for
 * the scenario tests: nothing here is a figure read from a run.
 *
 * The server last heard the client within one `heartbeat` before the onset (beats and keepalives go
 * out every `heartbeat` from registration). Then:
 * - nacos-client 2.x (Dubbo 3.3's; NacosRuntimeConnectionEjector.java:76,133-139, ConnectionManager.java:249-252):
 *   the first ejector run (every 3 s, fixed delay) at which the connection has been idle 20 s probes
 *   it, and the connection and its instances go after the 5 s probe timeout;
 * - nacos-client 1.x (Dubbo 2.7's; ClientBeatCheckTask.java:77-127): the first 5 s beat check with
 *   more than `removeAfter` of silence deletes the instance (an unhealthy one stays in Dubbo's list,
 *   NacosRegistry.java:692,752).
 * Then the push lag. Which client the providers run: the registry's `connectionBound`, else their
 * group's Dubbo profile.
 */
import type { DistSpec } from '../../src/engine/distributions.js';
import type { Scenario } from '../../src/model/types.js';
import {
  NACOS_BEAT_CHECK_PERIOD_MS,
  NACOS_DETECTION_TIMEOUT_MS,
  NACOS_EJECT_PERIOD_MS,
  NACOS_KEEP_ALIVE_TIME_MS,
} from '../../src/world/registry-nacos.js';

/** The largest push lag a spec can draw (the tests' scenarios use constant or uniform lags). */
export function maxPushLagMs(spec: DistSpec): number {
  if (spec.dist === 'constant') return spec.value;
  if (spec.dist === 'uniform') return spec.max;
  throw new Error(`no bound for a ${spec.dist} push lag`);
}

/** The Nacos client of a provider group's instances in `scenario`. */
export function nacosClientOf(scenario: Scenario, group: string): '1.x' | '2.x' {
  const bound = scenario.registry.connectionBound;
  if (bound !== undefined) return bound ? '2.x' : '1.x';
  return scenario.providers.find((g) => g.name === group)!.dubbo.nacosClient;
}

/** [earliest, latest] ms at which every consumer's list has lost the instances of `group` that fall silent at `onsetMs`. */
export function unlistedWindowMs(scenario: Scenario, group: string, onsetMs: number): { fromMs: number; toMs: number; client: '1.x' | '2.x' } {
  const r = scenario.registry;
  const lastHeard = { min: onsetMs - r.heartbeatMs, max: onsetMs };
  const lag = maxPushLagMs(r.pushLag);
  const client = nacosClientOf(scenario, group);
  if (client === '2.x') {
    return {
      client,
      fromMs: lastHeard.min + NACOS_KEEP_ALIVE_TIME_MS + NACOS_DETECTION_TIMEOUT_MS,
      toMs: lastHeard.max + NACOS_KEEP_ALIVE_TIME_MS + NACOS_EJECT_PERIOD_MS + NACOS_DETECTION_TIMEOUT_MS + lag,
    };
  }
  return { client, fromMs: lastHeard.min + r.removeAfterMs, toMs: lastHeard.max + r.removeAfterMs + NACOS_BEAT_CHECK_PERIOD_MS + lag };
}
