// StrykerJS mutation testing: `npm run mutate` (too slow for CI; see docs/contributing.md).
// Report: reports/mutation/mutation.html and mutation.json (git-ignored).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  // The mutation config drops the test files that run whole simulations while vitest collects
  // them (see the comment there).
  vitest: { configFile: 'vitest.mutation.config.ts' },
  // The core behaviour: provider and pool, failover and the abstract cluster invoker, the random,
  // round-robin and least-active load balancers and their shared helpers, the directory, the
  // condition and tag routers, the recorder and scope cells, the registry models.
  mutate: [
    'src/world/provider.ts',
    'src/engine/resource.ts',
    'src/dubbo/cluster/failover-cluster-invoker.ts',
    'src/dubbo/cluster/abstract-cluster-invoker.ts',
    'src/dubbo/loadbalance/random-load-balance.ts',
    'src/dubbo/loadbalance/round-robin-load-balance.ts',
    'src/dubbo/loadbalance/least-active-load-balance.ts',
    'src/dubbo/loadbalance/load-balance.ts',
    'src/dubbo/loadbalance/weighted-random.ts',
    'src/dubbo/directory/directory.ts',
    'src/dubbo/router/condition/*.ts',
    'src/dubbo/router/tag/*.ts',
    'src/metrics/recorder.ts',
    'src/metrics/scope-cell.ts',
    'src/world/registry.ts',
    'src/world/registry-nacos.ts',
    'src/world/registry-zookeeper.ts',
  ],
  // perTest: each mutant runs only the tests that reached it while they ran.
  coverageAnalysis: 'perTest',
  // A mutant reached only while a module loads or a test file is collected ("static") would need
  // the whole suite with the mutant active from the start: far too slow on 2 cores. Such mutants
  // are reported as Ignored and left out of the score. A mutant reached both there and inside
  // tests runs only those tests, activated after collection.
  ignoreStatic: true,
  // One test runner process: leaves the second core to everyone else on the machine.
  concurrency: 1,
  // A mutant that makes a simulation loop forever is a Timeout (counted as detected).
  timeoutMS: 10_000,
  timeoutFactor: 2,
  reporters: ['progress', 'clear-text', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // Reruns reuse the results of unchanged code and tests (reports/stryker-incremental.json).
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  // The instrumented dry run of every related test file is several times slower than npm test.
  dryRunTimeoutMinutes: 20,
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['dist', 'results', 'reports'],
};
