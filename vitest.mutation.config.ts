// Vitest config used only by `npm run mutate` (StrykerJS, see stryker.config.mjs); `npm test` and CI
// use vitest.config.ts. These changes make one mutant run cheap on a 2-core machine:
//  - It drops the test files that run whole simulations at describe level, i.e. while vitest
//    collects them. Code reached there is "static" to Stryker: the runner activates a mutant only
//    after collection, so those results can never kill it, yet every mutant run that selects such a
//    file would pay for its simulations again (erlang-c.test.ts alone takes a minute to collect).
//  - It drops the tests of the CLI and its machinery (test/cli, test/parallel, test/plugins, test/report,
//    test/inputs, and those of test/analysis and test/scenario that run commands) and test/examples: they
//    test code that is not mutated, by running whole scenarios again (seconds per test), so every surviving
//    mutant in the core would pay for them. Headline outcomes stay covered by test/scenarios.
//  - It drops test/scenarios/timeout-sweep.test.ts: it runs a sweep through the CLI at describe level,
//    whose cells run on worker threads from the compiled dist/ (Stryker's sandbox has no dist/, and
//    the workers would run the unmutated build anyway), so it can never kill a mutant.
//  - `isolate: false`: the test files share one module graph instead of re-importing src/ per file.
//    Mutants are switched on and off through a global at run time, so sharing is safe for them; the
//    initial test run would show any test that depends on a fresh module. Each run still starts a
//    new worker, so module-level caches start empty for every mutant.
//  - The sequencer runs the fastest files first (longest duration seen so far, from the initial
//    test run on), so that a mutant's run stops at its first, cheapest failing test (Stryker sets
//    `bail`). Vitest's own order is the slowest first.
// The dropped files are EXCLUDED_TESTS below; docs/contributing.md names the same entries, and
// test/docs/mutation-config.test.ts checks that both agree and that every entry matches a test file.
import { defineConfig, mergeConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config.js';

/** The test files the mutation run leaves out (see the header for why), as vitest exclude globs. */
export const EXCLUDED_TESTS = [
  'test/cli/**',
  'test/parallel/**',
  'test/plugins/**',
  'test/report/**',
  'test/inputs/**',
  'test/analysis/check.test.ts',
  'test/analysis/check-faults.test.ts',
  'test/analysis/check-strategies.test.ts',
  'test/analysis/recommend-verdict.test.ts',
  'test/analysis/route.test.ts',
  'test/analysis/route-pasted-inputs.test.ts',
  'test/analysis/select.test.ts',
  'test/analysis/select-warnings.test.ts',
  'test/scenario/grid.test.ts',
  'test/examples/**',
  'test/validation/erlang-c.test.ts',
  'test/scenarios/issue2-scenarios.test.ts',
  'test/scenarios/issue4-scenarios.test.ts',
  'test/scenarios/timeout-sweep.test.ts',
];

class FastestFirstSequencer extends BaseSequencer {
  readonly #longestMs = new Map<string, number>();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ms = (spec: TestSpecification): number => {
      const key = `${spec.project.name}:${spec.moduleId.slice(this.ctx.config.root.length + 1)}`;
      const seen = Math.max(this.ctx.cache.getFileTestResults(key)?.duration ?? 0, this.#longestMs.get(key) ?? 0);
      this.#longestMs.set(key, seen);
      return seen;
    };
    return [...files].sort((a, b) => ms(a) - ms(b) || a.moduleId.localeCompare(b.moduleId));
  }
}

export default mergeConfig(
  base,
  defineConfig({
    // Keeps vitest's results cache inside Stryker's sandbox instead of node_modules/.vite, which
    // `npm test` shares.
    cacheDir: '.vitest-mutation-cache',
    test: {
      exclude: ['**/node_modules/**', ...EXCLUDED_TESTS],
      isolate: false,
      sequence: { sequencer: FastestFirstSequencer },
    },
  }),
);
