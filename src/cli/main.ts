/**
 * The command line: commands declared with yargs, each delegating to its own file. `main(argv, io)`
 * returns the exit code (0 ok, 1 failure while running, 2 bad input or usage); only
 * bin/zonesim.js calls process.exit. Bad input prints one clear line, never a stack trace.
 */
import yargs, { type Argv } from 'yargs';
import { UsageError, type Io } from './io.js';
import { VERSION } from './version.js';

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  let code = 0;
  const parser: Argv = yargs()
    .scriptName('zonesim')
    .usage('$0 <command> [options]\n\nSimulate Dubbo RPC across zones: latency, timeouts, retries, No-provider and cross-zone calls.')
    .exitProcess(false)
    .strict()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .command(
      'run <scenario>',
      'run one scenario and write its results folder',
      (y) =>
        y
          .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario file (YAML or JSON)' })
          .option('seed', { type: 'number', describe: 'random seed (default: the scenario\'s seed)' })
          .option('seeds', { type: 'number', default: 1, describe: 'run seeds N..N+K-1 and aggregate with 95% confidence intervals' })
          .option('set', { type: 'string', array: true, default: [], describe: 'override a scenario field: path=value (repeatable)' })
          .option('out', { type: 'string', describe: 'results root folder (default ./results)' })
          .option('json', { type: 'boolean', default: false, describe: 'print only the summary JSON' })
          .option('bucket', { type: 'string', describe: 'timeline bucket width (default 1s)' })
          .option('report', { type: 'boolean', default: false, describe: 'also write report.html into the results folder' })
          .option('jobs', { type: 'number', describe: 'worker threads for independent simulations (default: the number of cores)' }),
      async (a) => {
        const { runCommand } = await import('./run.js');
        const { checkJobs } = await import('./parallel.js');
        code = await runCommand(
          {
            scenario: a.scenario as string,
            seed: a.seed as number | undefined,
            seeds: a.seeds as number,
            set: (a.set as string[]) ?? [],
            out: a.out as string | undefined,
            json: a.json as boolean,
            bucket: a.bucket as string | undefined,
            report: a.report as boolean,
            jobs: checkJobs(a.jobs as number | undefined),
          },
          io,
        );
      },
    )
    .command(
      'compare <scenario>',
      'run the scenario once per strategy (same seeds) and show them side by side',
      (y) =>
        y
          .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario file (YAML or JSON)' })
          .option('strategies', { type: 'string', describe: 'comma-separated strategy names (default: the scenario\'s, or the built-in set)' })
          .option('seed', { type: 'number', describe: 'first seed (default: the scenario\'s seed)' })
          .option('seeds', { type: 'number', default: 1, describe: 'seeds per strategy' })
          .option('set', { type: 'string', array: true, default: [], describe: 'override a scenario field: path=value (repeatable)' })
          .option('out', { type: 'string', describe: 'results root folder (default ./results)' })
          .option('json', { type: 'boolean', default: false, describe: 'print only the comparison JSON' })
          .option('report', { type: 'boolean', default: false, describe: 'also write report.html into the results folder' })
          .option('jobs', { type: 'number', describe: 'worker threads for independent simulations (default: the number of cores)' }),
      async (a) => {
        const { runCompare } = await import('./compare.js');
        const { checkJobs } = await import('./parallel.js');
        code = await runCompare(
          {
            scenario: a.scenario as string,
            strategies: a.strategies ? String(a.strategies).split(',').map((s) => s.trim()).filter(Boolean) : undefined,
            seed: a.seed as number | undefined,
            seeds: a.seeds as number,
            set: (a.set as string[]) ?? [],
            out: a.out as string | undefined,
            json: a.json as boolean,
            report: a.report as boolean,
            jobs: checkJobs(a.jobs as number | undefined),
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
          .option('jobs', { type: 'number', describe: 'worker threads for independent simulations (default: the number of cores)' }),
      async (a) => {
        const { runRecommend } = await import('./recommend.js');
        const { checkJobs } = await import('./parallel.js');
        code = await runRecommend(
          {
            scenario: a.scenario as string,
            targetTimeoutRate: a['target-timeout-rate'] as number,
            set: (a.set as string[]) ?? [],
            json: a.json as boolean,
            jobs: checkJobs(a.jobs as number | undefined),
          },
          io,
        );
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
          .option('strict', { type: 'boolean', default: false, describe: 'exit 1 when there is any problem (release pipelines)' }),
      async (a) => {
        const { runCheck } = await import('./check.js');
        code = await runCheck(
          { scenario: a.scenario as string, set: (a.set as string[]) ?? [], json: a.json as boolean, strict: a.strict as boolean },
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
          .option('providers-file', { type: 'string', describe: 'file with one provider URL per line' })
          .option('condition', { type: 'string', describe: 'condition rule: URL-rule text or Dubbo Admin YAML' })
          .option('condition-file', { type: 'string', describe: 'file holding the condition rule' })
          .option('force', { type: 'boolean', default: false, describe: 'force: true for a URL-rule condition' })
          .option('tag-rule-file', { type: 'string', describe: 'tag rule YAML file' })
          .option('method', { type: 'string', describe: 'invoked method name' })
          .option('arg', { type: 'string', array: true, default: [], describe: 'invocation argument (repeatable, in order)' })
          .option('attachment', { type: 'string', array: true, default: [], describe: 'invocation attachment k=v (repeatable)' })
          .option('json', { type: 'boolean', default: false }),
      async (a) => {
        const { runRoute } = await import('./route.js');
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
          .option('providers-file', { type: 'string', describe: 'file with one provider URL per line' })
          .option('method', { type: 'string', describe: 'invoked method name' })
          .option('arg', { type: 'string', array: true, default: [], describe: 'invocation argument (repeatable; consistenthash)' })
          .option('count', { type: 'number', default: 10, describe: 'number of picks' })
          .option('seed', { type: 'number', default: 1 })
          .option('now', { type: 'number', describe: 'clock in ms for warmup (timestamp/warmup URL params)' })
          .option('consumer', { type: 'string', describe: 'consumer URL (zone balancers read its zone and envoy.* parameters)' })
          .option('json', { type: 'boolean', default: false }),
      async (a) => {
        const { runSelect } = await import('./select.js');
        const { readProviders } = await import('./inputs.js');
        const { isModulePath, loadLoadBalancePlugin } = await import('./plugins.js');
        const lb = a.loadbalance as string;
        const plugins = isModulePath(lb) ? ((await loadLoadBalancePlugin(lb, io.cwd)) as never) : undefined;
        code = runSelect(
          {
            plugins,
            loadbalance: a.loadbalance as string,
            providers: readProviders(io, a.provider as string[], a['providers-file'] as string | undefined),
            method: a.method as string | undefined,
            args: (a.arg as string[]) ?? [],
            count: a.count as number,
            seed: a.seed as number,
            nowMs: a.now as number | undefined,
            consumer: a.consumer as string | undefined,
            json: a.json as boolean,
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
    .command('schema', 'print the JSON Schema of scenario files (for editor completion)', {}, async () => {
      const { scenarioJsonSchema } = await import('../scenario/schema.js');
      io.stdout(JSON.stringify(scenarioJsonSchema(), null, 2) + '\n');
    })
    .demandCommand(1, 'name a command (see zonesim --help)')
    .version(VERSION)
    .alias('h', 'help')
    .help()
    .fail((msg, err) => {
      if (err) throw err;
      throw new UsageError(msg ?? 'bad usage', 'see zonesim --help');
    });

  try {
    let out = '';
    await parser.parseAsync(argv, {}, (_err, _args, output) => {
      out = output ?? '';
    });
    if (out) io.stdout(out.endsWith('\n') ? out : out + '\n');
    return code;
  } catch (error) {
    return reportError(error, io);
  }
}

/** Prints an error the way SPEC 1 wants and returns its exit code. */
export function reportError(error: unknown, io: Io): number {
  const e = error as { name?: string; message?: string; hint?: string; format?: () => string; violations?: string[] };
  if (e && e.name === 'ScenarioError' && typeof e.format === 'function') {
    io.stderr(e.format() + '\n');
    return 2;
  }
  if (error instanceof UsageError) {
    io.stderr(`zonesim: ${error.message}\n`);
    if (error.hint) io.stderr(`hint: ${error.hint}\n`);
    return 2;
  }
  if (e && e.name === 'InvariantError') {
    io.stderr(`zonesim: ${e.message}\n`);
    return 1;
  }
  io.stderr(`zonesim: ${e?.message ?? String(error)}\n`);
  if (process.env.ZONESIM_DEBUG && (error as Error)?.stack) io.stderr(`${(error as Error).stack}\n`);
  return 1;
}
