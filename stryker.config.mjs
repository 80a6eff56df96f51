// StrykerJS mutation testing: `npm run mutate` (too slow for CI; see docs/contributing.md).
// Report: reports/mutation/mutation.html and mutation.json (git-ignored).

/**
 * The core behaviour files, per group: `ZONESIM_MUTATE_GROUP=registry npm run mutate` runs one group
 * with its own incremental file, so that groups rerun independently. A file added to the core (a split
 * sibling, a new model) goes into its group here; test/docs/mutation-config.test.ts checks that every
 * entry names existing files.
 */
export const MUTATE_GROUPS = {
  // The kernel's shared resources: the counted resource (thread pools, queues) and the FIFO link.
  engine: ['src/engine/resource.ts', 'src/engine/fifo-link.ts'],
  // The provider process and its thread pool.
  provider: ['src/world/provider.ts'],
  // Failover and the abstract cluster invoker.
  cluster: ['src/dubbo/cluster/failover-cluster-invoker.ts', 'src/dubbo/cluster/abstract-cluster-invoker.ts'],
  // The random, round-robin and least-active load balancers and their shared helpers.
  loadbalance: [
    'src/dubbo/loadbalance/random-load-balance.ts',
    'src/dubbo/loadbalance/round-robin-load-balance.ts',
    'src/dubbo/loadbalance/least-active-load-balance.ts',
    'src/dubbo/loadbalance/load-balance.ts',
    'src/dubbo/loadbalance/weighted-random.ts',
  ],
  directory: ['src/dubbo/directory/directory.ts'],
  // The condition and tag routers.
  routers: ['src/dubbo/router/condition/*.ts', 'src/dubbo/router/tag/*.ts'],
  // The recorder, its scope cells and the per-group push figures.
  metrics: ['src/metrics/recorder.ts', 'src/metrics/scope-cell.ts', 'src/metrics/consumer-pushes.ts'],
  // The registry models, the registry servers, the ZooKeeper client, push merging, Nacos push acks and
  // the consumer's notification throttling, and the cohort plan.
  registry: [
    'src/world/registry.ts',
    'src/world/registry-nacos.ts',
    'src/world/registry-zookeeper.ts',
    'src/world/registry-servers.ts',
    'src/world/zookeeper-client.ts',
    'src/world/registry-push-merge.ts',
    'src/world/nacos-push-acks.ts',
    'src/world/registry-notifier.ts',
    'src/world/cohorts.ts',
  ],
  // The Sentinel port: statistics, rules, flow controllers and circuit breakers.
  sentinel: ['src/sentinel/**/*.ts'],
};

const group = process.env.ZONESIM_MUTATE_GROUP || undefined;
if (group !== undefined && !Object.hasOwn(MUTATE_GROUPS, group)) {
  throw new Error(`ZONESIM_MUTATE_GROUP=${group}: not one of ${Object.keys(MUTATE_GROUPS).join(', ')}`);
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  // The mutation config drops the test files that run whole simulations while vitest collects
  // them (see the comment there).
  vitest: { configFile: 'vitest.mutation.config.ts' },
  // Every group's files (MUTATE_GROUPS below); ZONESIM_MUTATE_GROUP=<name> narrows the run to one group.
  mutate: group ? MUTATE_GROUPS[group] : Object.values(MUTATE_GROUPS).flat(),
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
  htmlReporter: { fileName: `reports/mutation/${group ?? 'mutation'}.html` },
  jsonReporter: { fileName: `reports/mutation/${group ?? 'mutation'}.json` },
  // Reruns reuse the results of unchanged code and tests: one file for the whole run
  // (reports/stryker-incremental.json), one per group (reports/stryker-incremental-<group>.json).
  incremental: true,
  incrementalFile: group ? `reports/stryker-incremental-${group}.json` : 'reports/stryker-incremental.json',
  // The instrumented dry run of every related test file is several times slower than npm test.
  dryRunTimeoutMinutes: 20,
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['dist', 'results', 'reports'],
};
