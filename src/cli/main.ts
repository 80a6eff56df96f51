/**
 * The command line: commands declared with yargs, each delegating to its own file. `main(argv, io)`
 * returns the exit code (0 ok, 1 failure while running, 2 bad input or usage); only
 * bin/zonesim.js calls process.exit. Bad input prints one clear line, never a stack trace.
 */
import yargs, { type Argv } from 'yargs';
import { clipMessage, escapeTerminal } from '../scenario/clip-text.js';
import { withDataAccess, type DataAccess } from '../scenario/data-root.js';
import { COST_OPTIONS, costOptionsFrom } from './cost-options.js';
import { dataRootOption } from './data-root-option.js';
import { UsageError, type Io } from '../scenario/io.js';
import type { WarmWorkers } from '../parallel/jobs.js';
import { DEFAULT_PLUGIN_TIMEOUT_MS, pluginTimeoutOption, withPluginPolicy, type PluginPolicy } from '../plugins/plugin-policy.js';
import { seedOption, seedsOption } from './seed-options.js';
import { VERSION } from '../scenario/version.js';
import { reportError } from './report-error.js';

// bin/zonesim.js reports what escapes `main` with the same function, from this entry of the bundle.
export { reportError } from './report-error.js';

/**
 * A simulating command's `--jobs` (checked) and its warm workers: started now, so that they load while
 * this thread reads the scenario, when the command will run simulations side by side (`parallel`),
 * else none; no more than `simulations` need, when the command line tells how many it runs.
 */
async function withJobs(
  requested: unknown,
  parallel: boolean,
  body: (jobs: number, workers: WarmWorkers) => Promise<number>,
  simulations?: number,
): Promise<number> {
  const { checkJobs, withWarmWorkers } = await import('../parallel/jobs.js');
  const jobs = checkJobs(requested as number | undefined);
  return withWarmWorkers(parallel ? jobs : 1, (workers) => body(jobs, workers), simulations);
}

/** `run` and `compare`: the per-instance push map (`registry.byConsumer`) is left out unless asked for. */
const PER_INSTANCE = {
  type: 'boolean',
  default: false,
  describe: 'also list every consumer instance\'s registry pushes in the summary (registry.byConsumer; one entry per instance)',
} as const;

/** `recommend`'s first round: the scenario as written and recommended; a grid's cells are known once it is read. */
const recommendRuns = (verifyGrid: boolean): number | undefined => (verifyGrid ? undefined : 2);

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], rawIo: Io): Promise<number> {
  // Names, values and reasons from input files reach tables, fragments and messages: nothing
  // printed sends a control character to the terminal (clip-text.ts).
  const io: Io = { ...rawIo, stdout: (s) => rawIo.stdout(escapeTerminal(s)), stderr: (s) => rawIo.stderr(escapeTerminal(s)) };
  let code = 0;
  // What this invocation allows plugins (--no-plugins, --plugin-timeout); set before any command runs.
  const policy: PluginPolicy = { allowed: true, timeoutMs: DEFAULT_PLUGIN_TIMEOUT_MS };
  // Where a scenario's data files may be (--data-root, on the commands that load a scenario).
  const dataAccess: DataAccess = {};
  const dataRoot = dataRootOption(io.cwd);
  const parser: Argv = yargs()
    .scriptName('zonesim')
    .usage('$0 <command> [options]\n\nSimulate Dubbo RPC across zones: latency, timeouts, retries, No-provider and cross-zone calls.')
    .exitProcess(false)
    // Messages in English whatever the user's LANG (and the same from the bundle, where yargs's locale files are absent).
    .locale('en')
    .strict()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .option('plugins', {
      type: 'boolean',
      default: true,
      global: true,
      describe: 'run the plugin modules a scenario names (their code runs with your rights); --no-plugins refuses any scenario or --loadbalance that names one (exit 2)',
    })
    .option('plugin-timeout', {
      type: 'string',
      global: true,
      coerce: pluginTimeoutOption,
      describe: 'time budget of one plugin call (default 10s): a call that runs longer stops the run with exit 1',
    })
    .middleware((a) => {
      policy.allowed = a.plugins !== false;
      if (a['plugin-timeout'] !== undefined) policy.timeoutMs = a['plugin-timeout'] as number;
      dataAccess.root = a['data-root'] as string | undefined;
    })
    .command(
      'run <scenario>',
      'run one scenario and write its results folder',
      (y) =>
        y
          .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario file (YAML or JSON)' })
          .option('seed', { type: 'string', coerce: seedOption, describe: 'random seed (default: the scenario\'s seed)' })
          .option('seeds', { type: 'string', default: '1', coerce: seedsOption, describe: 'run seeds N..N+K-1 and aggregate with 95% confidence intervals' })
          .option('set', { type: 'string', array: true, default: [], describe: 'override a scenario field: path=value (repeatable)' })
          .option('out', { type: 'string', describe: 'results root folder (default ./results)' })
          .option('json', { type: 'boolean', default: false, describe: 'print only the summary JSON' })
          .option('bucket', { type: 'string', describe: 'timeline bucket width (default 1s)' })
          .option('report', { type: 'boolean', default: false, describe: 'also write report.html into the results folder' })
          .option('jobs', { type: 'number', describe: 'worker threads for independent simulations (default: the number of cores)' })
          .option('traces', { type: 'string', describe: 'also write sampled simulated requests of the first seed to this file as OTLP JSON' })
          .option('trace-sample', { type: 'string', describe: 'with --traces: the fraction of requests traced (default 0.01), or "errors" (every request not ok)' })
          .option('per-instance', PER_INSTANCE)
          .option('data-root', dataRoot)
          .options(COST_OPTIONS),
      async (a) => {
        code = await withJobs(a.jobs, (a.seeds as number) > 1 && a['dry-run'] !== true, async (jobs, workers) => {
          const { runCommand } = await import('./run.js');
          return runCommand(
            {
              scenario: a.scenario as string,
              seed: a.seed as number | undefined,
              seeds: a.seeds as number,
              set: (a.set as string[]) ?? [],
              out: a.out as string | undefined,
              json: a.json as boolean,
              bucket: a.bucket as string | undefined,
              report: a.report as boolean,
              jobs,
              workers,
              traces: a.traces as string | undefined,
              traceSample: a['trace-sample'] as string | undefined,
              perInstance: a['per-instance'] as boolean,
              ...costOptionsFrom(a),
            },
            io,
          );
        }, a.seeds as number);
      },
    )
    .command(
      'compare <scenario>',
      'run the scenario once per strategy (same seeds) and show them side by side',
      (y) =>
        y
          .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario file (YAML or JSON)' })
          .option('strategies', { type: 'string', describe: 'comma-separated strategy names (default: the scenario\'s, or the built-in set)' })
          .option('seed', { type: 'string', coerce: seedOption, describe: 'first seed (default: the scenario\'s seed)' })
          .option('seeds', { type: 'string', default: '1', coerce: seedsOption, describe: 'seeds per strategy' })
          .option('set', { type: 'string', array: true, default: [], describe: 'override a scenario field: path=value (repeatable)' })
          .option('out', { type: 'string', describe: 'results root folder (default ./results)' })
          .option('json', { type: 'boolean', default: false, describe: 'print only the comparison JSON' })
          .option('report', { type: 'boolean', default: false, describe: 'also write report.html into the results folder' })
          .option('jobs', { type: 'number', describe: 'worker threads for independent simulations (default: the number of cores)' })
          .option('shard', { type: 'string', describe: 'k/n: run only the (strategy, seed) runs i with i mod n = k-1 and write compare.part-k-of-n.json for zonesim merge' })
          .option('data-root', dataRoot)
          .option('by', { type: 'string', coerce: byOption, describe: 'zone: the table adds one row per strategy and consumer zone' })
          .option('per-instance', PER_INSTANCE)
          .options(COST_OPTIONS),
      async (a) => {
        const strategies = a.strategies ? String(a.strategies).split(',').map((s) => s.trim()).filter(Boolean) : undefined;
        // Each (strategy, seed) is one run; without --strategies the scenario names them (or the built-in set).
        const runs = strategies !== undefined && a.shard === undefined ? strategies.length * (a.seeds as number) : undefined;
        code = await withJobs(a.jobs, a['dry-run'] !== true, async (jobs, workers) => {
          const { runCompare } = await import('./compare.js');
          return runCompare(
            {
              scenario: a.scenario as string,
              strategies,
              seed: a.seed as number | undefined,
              seeds: a.seeds as number,
              set: (a.set as string[]) ?? [],
              out: a.out as string | undefined,
              json: a.json as boolean,
              report: a.report as boolean,
              jobs,
              workers,
              shard: a.shard as string | undefined,
              by: a.by as 'zone' | undefined,
              perInstance: a['per-instance'] as boolean,
              ...costOptionsFrom(a),
            },
            io,
          );
        }, runs);
      },
    )
    .command(
      'sweep <scenario>',
      'run the scenario over a grid of field values (x strategies x seeds): one row per cell, CSV, JSON, report',
      (y) =>
        y
          .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario file (YAML or JSON)' })
          .option('grid', { type: 'string', array: true, default: [], describe: "an axis: 'path=v1,v2,...' (a --set path; values may be ranges such as 100ms..1s/100ms; repeatable)" })
          .option('grid-file', { type: 'string', describe: 'YAML file of axes: path: [v1, v2] or path: "start..end/step"' })
          .option('strategies', { type: 'string', describe: 'comma-separated strategies to cross with the grid (default: the scenario as written)' })
          .option('seed', { type: 'string', coerce: seedOption, describe: 'first seed (default: the scenario\'s seed)' })
          .option('seeds', { type: 'string', default: '1', coerce: seedsOption, describe: 'seeds per cell (the cell shows their mean)' })
          .option('set', { type: 'string', array: true, default: [], describe: 'override a scenario field for every cell: path=value (repeatable)' })
          .option('shard', { type: 'string', describe: 'k/n: run only the cells i with i mod n = k-1 and write sweep.part-k-of-n.json for zonesim merge' })
          .option('objective', { type: 'string', describe: 'best cell: comma list of [min:|max:]figure compared in order, e.g. p99-all,duplicates or max:ok (default: errorRate,latencyAllMs.p99,duplicateExecutions)' })
          .option('max-timeout-rate', { type: 'number', describe: 'the best cell must have a timeout rate under this (default: no bound; 0.001 with --objective)' })
          .option('explain', { type: 'number', describe: 'print the zonesim run command that reproduces cell INDEX, run nothing' })
          .option('out', { type: 'string', describe: 'results root folder (default ./results)' })
          .option('json', { type: 'boolean', default: false, describe: 'print only the sweep JSON' })
          .option('report', { type: 'boolean', default: false, describe: 'also write report.html (charts per figure) into the results folder' })
          .option('jobs', { type: 'number', describe: 'worker threads for independent simulations (default: the number of cores)' })
          .option('data-root', dataRoot)
          .options(COST_OPTIONS),
      async (a) => {
        code = await withJobs(a.jobs, a['dry-run'] !== true && a.explain === undefined, async (jobs, workers) => {
          const { runSweep } = await import('./sweep.js');
          return runSweep(
            {
              scenario: a.scenario as string,
              grid: ((a.grid as string[]) ?? []).map(String),
              gridFile: a['grid-file'] as string | undefined,
              strategies: a.strategies ? String(a.strategies).split(',').map((s) => s.trim()).filter(Boolean) : undefined,
              seed: a.seed as number | undefined,
              seeds: a.seeds as number,
              set: (a.set as string[]) ?? [],
              shard: a.shard as string | undefined,
              objective: a.objective as string | undefined,
              maxTimeoutRate: a['max-timeout-rate'] as number | undefined,
              explain: a.explain as number | undefined,
              out: a.out as string | undefined,
              json: a.json as boolean,
              report: a.report as boolean,
              jobs,
              workers,
              ...costOptionsFrom(a),
            },
            io,
          );
        });
      },
    )
    .command(
      'merge <parts..>',
      'combine the part files of a sharded sweep or compare into the unsharded result, byte for byte',
      (y) =>
        y
          .positional('parts', { type: 'string', array: true, demandOption: true, describe: 'part files (sweep.part-k-of-n.json, compare.part-k-of-n.json) or folders holding them' })
          .option('out', { type: 'string', describe: 'results root folder (default ./results)' })
          .option('json', { type: 'boolean', default: false, describe: 'print only the merged JSON' })
          .option('report', { type: 'boolean', default: false, describe: 'also write report.html into the results folder' })
          .option('objective', { type: 'string', describe: 'sweeps: best cell, as for sweep (default: errorRate,latencyAllMs.p99,duplicateExecutions)' })
          .option('max-timeout-rate', { type: 'number', describe: 'sweeps: the best cell must have a timeout rate under this (default: no bound; 0.001 with --objective)' })
          .option('by', { type: 'string', coerce: byOption, describe: 'comparisons: zone adds one row per strategy and consumer zone to the table' }),
      async (a) => {
        const { runMerge } = await import('./merge.js');
        code = await runMerge(
          {
            parts: ((a.parts as string[]) ?? []).map(String),
            out: a.out as string | undefined,
            json: a.json as boolean,
            report: a.report as boolean,
            objective: a.objective as string | undefined,
            maxTimeoutRate: a['max-timeout-rate'] as number | undefined,
            by: a.by as 'zone' | undefined,
          },
          io,
        );
      },
    )
    .command(
      'recommend <scenario>',
      'recommend timeout and retries per consumer group, service and method, verified by re-running the scenario',
      (y) =>
        y
          .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario file (YAML or JSON)' })
          .option('target-timeout-rate', { type: 'number', default: 0.001, describe: 'acceptable share of requests that time out' })
          .option('set', { type: 'string', array: true, default: [], describe: 'override a scenario field: path=value (repeatable)' })
          .option('json', { type: 'boolean', default: false, describe: 'print the SPEC 4.2 JSON' })
          .option('jobs', { type: 'number', describe: 'worker threads for independent simulations (default: the number of cores)' })
          .option('verify-grid', { type: 'boolean', default: false, describe: 'also sweep timeout x retries around each answer and show where the verified optimum sits' })
          .option('data-root', dataRoot)
          .options(COST_OPTIONS),
      async (a) => {
        code = await withJobs(a.jobs, a['dry-run'] !== true, async (jobs, workers) => {
          const { runRecommend } = await import('./recommend.js');
          return runRecommend(
            {
              scenario: a.scenario as string,
              targetTimeoutRate: a['target-timeout-rate'] as number,
              set: (a.set as string[]) ?? [],
              json: a.json as boolean,
              jobs,
              workers,
              verifyGrid: a['verify-grid'] as boolean,
              ...costOptionsFrom(a),
            },
            io,
          );
        }, recommendRuns(a['verify-grid'] === true));
      },
    )
    .command(
      'check <scenario>',
      'pre-flight: for each consumer group and fault phase, how many providers survive each router',
      (y) =>
        y
          .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario file (YAML or JSON)' })
          .option('set', { type: 'string', array: true, default: [], describe: 'override a scenario field: path=value (repeatable)' })
          .option('json', { type: 'boolean', default: false, describe: 'print the SPEC 4.2 JSON' })
          .option('data-root', dataRoot)
          .option('strict', { type: 'boolean', default: false, describe: 'exit 1 when there is any problem, of the scenario or of a strategy checked (release pipelines)' })
          .option('strategies', {
            type: 'string',
            describe: "comma-separated strategies to check too, each with its overrides applied (default: the scenario's own; --no-strategies: none)",
          })
          .option('force', { type: 'boolean', default: false, describe: 'check even when the worlds it builds exceed the memory this machine can give' })
          .option('jobs', { type: 'number', describe: 'worker threads for the worlds checked, one per strategy that changes something (default: the number of cores)' }),
      async (a) => {
        const { runCheck } = await import('./check.js');
        const strategies = (a.strategies as unknown) === false ? [] : a.strategies ? String(a.strategies).split(',').map((s) => s.trim()).filter(Boolean) : undefined;
        code = await runCheck(
          { scenario: a.scenario as string, set: (a.set as string[]) ?? [], json: a.json as boolean, strict: a.strict as boolean, force: a.force as boolean, strategies, jobs: a.jobs as number | undefined },
          io,
        );
      },
    )
    .command(
      'route',
      'evaluate Dubbo routing rules on one call and print the surviving providers with a per-router trace',
      (y) =>
        y
          .option('consumer', { type: 'string', demandOption: true, describe: 'consumer URL' })
          .option('provider', { type: 'string', array: true, default: [], describe: 'provider URL (repeatable, in directory order)' })
          .option('providers-file', { type: 'string', describe: 'file with one provider URL per line (raw or URL-encoded), or a zkCli `ls` answer' })
          .option('condition', { type: 'string', describe: 'condition rule: URL-rule text or Dubbo Admin YAML' })
          .option('condition-file', { type: 'string', describe: 'file holding the condition rule' })
          .option('force', { type: 'boolean', default: false, describe: 'force: true for a URL-rule condition' })
          .option('tag-rule-file', { type: 'string', describe: 'tag rule YAML file' })
          .option('method', { type: 'string', describe: 'invoked method name' })
          .option('arg', { type: 'string', array: true, default: [], describe: 'invocation argument (repeatable, in order)' })
          .option('attachment', { type: 'string', array: true, default: [], describe: 'invocation attachment k=v (repeatable)' })
          .option('dubbo', { type: 'string', describe: "the consumer's Dubbo release, 2.7 or 3.3 (default: release= on --consumer, else the providers' release=, else 3.3)" })
          .option('json', { type: 'boolean', default: false }),
      async (a) => {
        const { runRoute } = await import('../analysis/route.js');
        const { readText, readProviders, parseAttachments } = await import('./inputs.js');
        code = runRoute(
          {
            consumer: a.consumer as string,
            providers: readProviders(io, a.provider as string[], a['providers-file'] as string | undefined),
            condition:
              (a.condition as string | undefined) ??
              (a['condition-file'] ? readText(io, a['condition-file'] as string) : undefined),
            force: a.force as boolean,
            tagRule: a['tag-rule-file'] ? readText(io, a['tag-rule-file'] as string) : undefined,
            method: a.method as string | undefined,
            args: (a.arg as string[]) ?? [],
            attachments: parseAttachments(a.attachment as string[]),
            json: a.json as boolean,
            dubbo: a.dubbo === undefined ? undefined : String(a.dubbo),
          },
          io,
        );
      },
    )
    .command(
      'select',
      'show what a Dubbo load balancer picks, N times in a row, with state carried between picks',
      (y) =>
        y
          .option('loadbalance', { type: 'string', demandOption: true, describe: 'random, roundrobin, leastactive, shortestresponse, consistenthash, adaptive, ...' })
          .option('provider', { type: 'string', array: true, default: [], describe: 'provider URL (repeatable)' })
          .option('providers-file', { type: 'string', describe: 'file with one provider URL per line (raw or URL-encoded), or a zkCli `ls` answer' })
          .option('method', { type: 'string', describe: 'invoked method name' })
          .option('arg', { type: 'string', array: true, default: [], describe: 'invocation argument (repeatable; consistenthash)' })
          .option('args-file', { type: 'string', describe: 'file with one invocation per line: its arguments, space-separated or a JSON array (consistenthash keys)' })
          .option('count', { type: 'number', describe: 'number of picks (default 10; with --args-file one per line, cycling)' })
          .option('seed', { type: 'string', default: '1', coerce: seedOption })
          .option('now', { type: 'number', describe: 'clock in ms for warmup (timestamp/warmup URL params)' })
          .option('consumer', { type: 'string', describe: 'consumer URL (zone balancers read its zone and envoy.* parameters)' })
          .option('dubbo', { type: 'string', describe: "the consumer's Dubbo release, 2.7 or 3.3 (default: release= on --consumer, else the providers' release=, else 3.3)" })
          .option('json', { type: 'boolean', default: false }),
      async (a) => {
        const { runSelect } = await import('../analysis/select.js');
        const { readProviders, readText } = await import('./inputs.js');
        const { isModulePath } = await import('../scenario/plugin-refs.js');
        const { runSelectPlugin } = await import('../plugins/select-plugin.js');
        const lb = a.loadbalance as string;
        // A plugin balancer runs on a worker thread under the plugin time budget.
        code = await (isModulePath(lb) ? runSelectPlugin : runSelect)(
          {
            loadbalance: a.loadbalance as string,
            providers: readProviders(io, a.provider as string[], a['providers-file'] as string | undefined),
            method: a.method as string | undefined,
            args: (a.arg as string[]) ?? [],
            argsFile: a['args-file'] ? readText(io, a['args-file'] as string) : undefined,
            count: a.count as number | undefined,
            seed: a.seed as number,
            nowMs: a.now as number | undefined,
            consumer: a.consumer as string | undefined,
            json: a.json as boolean,
            dubbo: a.dubbo === undefined ? undefined : String(a.dubbo),
          },
          io,
        );
      },
    )
    .command(
      'report <results-dir>',
      '(re)build report.html of a finished run or comparison',
      (y) => y.positional('results-dir', { type: 'string', demandOption: true, describe: 'a results folder (with summary.json or compare.json)' }),
      async (a) => {
        const { runReport } = await import('./report-command.js');
        code = runReport({ dir: a['results-dir'] as string }, io);
      },
    )
    .command('import', 'turn provider lists, Dubbo configs and traces as users have them into scenario YAML', (y) =>
      y
        .command(
          'providers <file>',
          'zkCli `ls /dubbo/<iface>/providers` output, one URL per line, or Nacos instance-list JSON -> a providers: fragment',
          (yy) =>
            yy
              .positional('file', { type: 'string', demandOption: true, describe: 'the provider list' })
              .option('zone-from', { choices: ['param', 'cidr'] as const, default: 'param' as const, describe: 'zone from the zone URL parameter, or from the CIDRs of --scenario' })
              .option('scenario', { type: 'string', describe: 'scenario whose zones\' CIDRs place the IPs (with --zone-from cidr)' })
              .option('data-root', dataRoot)
              .option('json', { type: 'boolean', default: false, describe: 'print the SPEC 4.2a JSON' }),
          async (a) => {
            const { runImportProviders } = await import('../inputs/import-providers.js');
            const { readBytes } = await import('./inputs.js');
            const { MAX_PROVIDER_LIST_BYTES } = await import('../scenario/read-text-file.js');
            const { resolve } = await import('node:path');
            code = runImportProviders(
              {
                file: a.file as string,
                zoneFrom: a['zone-from'] as 'param' | 'cidr',
                scenario: a.scenario === undefined ? undefined : resolve(io.cwd, a.scenario as string),
                json: a.json as boolean,
              },
              readBytes(io, a.file as string, MAX_PROVIDER_LIST_BYTES),
              io,
            );
          },
        )
        .command(
          'config <file>',
          'application.yml or dubbo.properties -> consumerDefaults / reference / provider threads, executes, tps / registry',
          (yy) =>
            yy
              .positional('file', { type: 'string', demandOption: true, describe: 'a Spring Boot application.yml or a dubbo.properties' })
              .option('json', { type: 'boolean', default: false, describe: 'print the fragment and the ignored properties as JSON' }),
          async (a) => {
            const { runImportConfig } = await import('./import-config.js');
            const { readBytes } = await import('./inputs.js');
            code = runImportConfig({ file: a.file as string, json: a.json as boolean }, readBytes(io, a.file as string), io);
          },
        )
        .command(
          'traces <files..>',
          'Zipkin, Jaeger, OTLP or SkyWalking trace exports -> a scenario: call graph, self-time distributions, rates, instances',
          (yy) =>
            yy
              .positional('files', { type: 'string', array: true, demandOption: true, describe: 'trace export files (JSON; OTLP also one document per line)' })
              .option('format', { choices: ['zipkin', 'jaeger', 'otlp', 'skywalking'] as const, describe: 'the export format (default: detected per file)' })
              .option('json', { type: 'boolean', default: false, describe: 'print what was inferred and the scenario as one JSON document' }),
          async (a) => {
            const { runImportTraces } = await import('./import-traces.js');
            code = runImportTraces({ files: (a.files as string[]).map(String), format: a.format as 'zipkin' | undefined, json: a.json as boolean }, io);
          },
        )
        .demandCommand(1, 'name what to import: providers, config or traces'),
    )
    .command('schema', 'print the JSON Schema of scenario files (for editor completion)', {}, async () => {
      const { scenarioJsonSchema } = await import('../scenario/schema.js');
      io.stdout(JSON.stringify(scenarioJsonSchema(), null, 2) + '\n');
    })
    .demandCommand(1, 'name a command (see zonesim --help)')
    .version(VERSION)
    .alias('h', 'help')
    .help()
    .epilogue(
      'Documentation, in the zonesim package folder: README.md (start here), docs/cli.md (commands and options), ' +
        'docs/scenario-format.md (scenario files), docs/outputs.md (output fields); docs/README.md lists every page.',
    )
    .fail((msg, err) => {
      // An option's coerce (--seed) that throws reaches here re-wrapped by yargs as a YError: bad input.
      if (err && err.name === 'YError') throw new UsageError(oneLine(err.message));
      if (err) throw err;
      throw new UsageError(oneLine(msg ?? 'bad usage'), 'see zonesim --help');
    });

  try {
    let out = '';
    await withDataAccess(dataAccess, () =>
      withPluginPolicy(policy, () =>
        parser.parseAsync(joinDashValues(argv), {}, (_err, _args, output) => {
          out = output ?? '';
        }),
      ),
    );
    if (out) io.stdout(out.endsWith('\n') ? out : out + '\n');
    return code;
  } catch (error) {
    return reportError(error, io, argv);
  }
}

/** yargs `coerce` for `--by` of compare and merge: `zone`, the one breakdown the compare table adds. */
function byOption(value: unknown): 'zone' {
  if (value === 'zone') return value;
  throw new UsageError(`--by: expected zone, found ${clipMessage(JSON.stringify(Array.isArray(value) ? value.join(',') : String(value)))}`);
}

/** yargs writes some messages on several lines ("Invalid values:\n  Argument: ..."): errors are one line. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ');
}

/**
 * `--bucket -1s`: yargs takes a value that starts with '-' for an option of its own (only plain
 * negative numbers such as -1 pass), so "-1s" became the short flags 1 and s. A value that starts
 * with '-' and a digit or '.' after `--name` is joined as `--name=-1s`, so that the option's own
 * check reports it ("--bucket: expected a positive duration ..., found "-1s"").
 */
export function joinDashValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (/^--[^=\s]+$/.test(a) && next !== undefined && /^-[0-9.]/.test(next) && !/^-([0-9]+(\.[0-9]+)?|\.[0-9]+)$/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else {
      out.push(a);
    }
  }
  return out;
}
