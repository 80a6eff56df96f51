/** The ScenarioError a scenario text fails to load with (the tests of load-time checks share it). */
import { parseScenario, ScenarioError } from '../../src/scenario/load.js';

/** Loads `text` (with `--set` overrides) and returns the ScenarioError it raises; throws when it loads. */
export function scenarioErrorOf(text: string, fileName = 'x.yaml', overrides: readonly string[] = []): ScenarioError {
  try {
    parseScenario(text, fileName, overrides);
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('expected a ScenarioError');
}
