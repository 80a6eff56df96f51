/**
 * Commands import only the plugins of what they run (audit 3, defect 16): `run` and `sweep`
 * without `--strategies` simulate the scenario as written, so a plugin named only in a strategy is
 * never imported, and its top-level code never runs. `compare` (and `sweep --strategies`) of that
 * strategy do import it, which shows the fixture's side effect is real.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/types.js';
import { pluginRefs, runPluginRefs } from '../../src/scenario/plugin-refs.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { useTempDirs } from '../helpers/tmp.js';
import { cli, scenarioYaml, writeFixture } from '../helpers/plugin-fixtures.js';

const tempDir = useTempDirs();

// A balancer whose import leaves a file next to it.
const SIDE_EFFECT_LB = `import { writeFileSync } from 'node:fs';
writeFileSync(new URL('./SIDE-EFFECT', import.meta.url), 'imported');
export function createLoadBalance() { return { select(invokers) { return invokers[0] ?? null; } }; }
`;

function withStrategyPlugin(): { dir: string; path: string } {
  const dir = tempDir('zs-imports-');
  const path = writeFixture(dir, scenarioYaml({ extra: 'strategies:\n  mine:\n    reference: { loadbalance: ./side.js }' }), { 'side.js': SIDE_EFFECT_LB });
  return { dir, path };
}

describe('plugins named only in a strategy', () => {
  it('are left out of what a simulation of the scenario as written calls', () => {
    const { path } = withStrategyPlugin();
    const scenario: Scenario = loadScenarioFile(path);
    expect(pluginRefs(scenario).map((r) => r.module)).toEqual(['./side.js']);
    expect(runPluginRefs(scenario)).toEqual([]);
  });

  it.each([
    ['run', []],
    ['run', ['--seeds', '2', '--jobs', '2']],
    ['sweep', ['--grid', 'seed=1,2']],
  ])('are not imported by %s %j', async (command, more) => {
    const { dir, path } = withStrategyPlugin();
    const r = await cli([command, path, '--json', '--out', tempDir('zs-imports-out-'), ...more]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'SIDE-EFFECT'))).toBe(false);
  });

  it.each([
    ['compare', ['--strategies', 'mine']],
    ['sweep', ['--grid', 'seed=1,2', '--strategies', 'mine']],
  ])('are imported by %s %j, which runs the strategy', async (command, more) => {
    const { dir, path } = withStrategyPlugin();
    const r = await cli([command, path, '--json', '--out', tempDir('zs-imports-out-'), ...more]);
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'SIDE-EFFECT'))).toBe(true);
  });
});
