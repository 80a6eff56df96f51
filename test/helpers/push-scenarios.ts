/**
 * The shipped scenarios whose registry pushes matter (rolling restarts, a zone down, partitions,
 * ZooKeeper session loss, tag and condition rules at run time, scale-in, application-level discovery
 * with two applications, the push switch, a 2.7 → 3.3 migration over both discovery levels), for tests that compare a fast path for pushes with its
 * reference on them.
 */
import { fileURLToPath } from 'node:url';
import { loadScenarioFile } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/model/types.js';

export const PUSH_SCENARIOS = [
  'release-day-push-storm',
  'zone-a-down',
  'nacos-registry-partition',
  'zk-session-expiry',
  'canary-tag',
  'force-rule-no-provider',
  'zone-scale-in',
  'app-level-discovery',
  'three-zone-nearest-fallback',
  'lane-gray',
  'push-switch-off',
  'migration-27-to-33',
] as const;

/** The shipped scenario `scenarios/<name>.yaml`, loaded. */
export function shippedScenario(name: string): Scenario {
  return loadScenarioFile(fileURLToPath(new URL(`../../scenarios/${name}.yaml`, import.meta.url)));
}
