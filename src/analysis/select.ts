/**
 * `zonesim select`: what a Dubbo load balancer picks, N times in a row, from a list of provider
 * URLs. One consumer runtime and one balancer instance serve every pick, so round-robin state,
 * consistent-hash rings and adaptive metrics carry over; each pick also runs the default consumer
 * filters' `before` as a call that stays in flight, so `leastactive` / `shortestresponse` see the
 * active counts grow when the URLs carry `actives` (as ActiveLimitFilter counts in Dubbo). `--now`
 * sets the clock for warmup. `--args-file` gives one invocation's arguments per line (several
 * consistent-hash keys in one run). Providers may be pasted as ZooKeeper lists them. Warns (stderr,
 * and `warnings` in the JSON) when the balancer cannot do what its name says: leastactive /
 * shortestresponse without active counting, a zone balancer without a consumer zone. Owns
 * argument checking and output; reading files is `inputs.ts`'s job.
 */
import { RandomStreams } from '../engine/random.js';
import { Simulation } from '../engine/simulation.js';
import { loadBalances } from '../dubbo/extensions.js';
import { suggestionOfKind } from '../scenario/did-you-mean.js';
import { extensionNames } from '../scenario/schema-reference.js';
import { hasActivesParameter } from '../dubbo/filter/active-limit-filter.js';
import { consumerFilters } from '../dubbo/filter/index.js';
import { getWeight, type LoadBalanceFactory } from '../dubbo/loadbalance/load-balance.js';
import { EmptyHashRingError } from '../dubbo/loadbalance/consistent-hash-load-balance.js';
import { RpcInvocation } from '../dubbo/rpc.js';
import { createRuntime } from '../dubbo/create-runtime.js';
import { ServiceAddressURL, URL } from '../dubbo/url.js';
import { UsageError, type Io } from '../scenario/io.js';
import { expandProviders, parsePastedUrl, UrlInvoker, type ProviderLine } from './provider-list.js';
import { pastedRelease } from './pasted-release.js';

/** The options of `zonesim select`. */
export interface SelectOptions {
  loadbalance: string;
  /** Provider URLs in directory order (URL-encoded URLs and zkCli `ls` answers are accepted). A string is a `--provider`; a line of `--providers-file` says where it is. */
  providers: Array<string | ProviderLine>;
  method?: string;
  /** Invocation arguments in order (the consistent-hash key). */
  args: string[];
  /**
   * The text of `--args-file`: one invocation's arguments per line (whitespace-separated, or a
   * JSON array), `#` comments; picks cycle through the lines. Replaces `args`.
   */
  argsFile?: string;
  /** Picks (default 10, or one per `argsFile` line). */
  count?: number;
  seed: number;
  /** Clock in ms (epoch-like) for warmup; the current time when absent. */
  nowMs?: number;
  json: boolean;
  /** zonesim addition: the consumer URL (zone balancers read `zone`, `envoy.*` from it). */
  consumer?: string;
  /** Plugin balancers by module path, as `main` loads them. */
  plugins?: Record<string, LoadBalanceFactory>;
  /** `--dubbo 2.7|3.3`: the release to answer as (default: see pasted-release.ts). */
  dubbo?: string;
}

/** `--count` above this is refused (exit 2): the picks are kept for the output (~100 bytes each). */
export const MAX_SELECT_COUNT = 10_000_000;

/** Runs `select`; returns the exit code. Bad input throws UsageError (exit 2). */
export function runSelect(opts: SelectOptions, io: Io): number {
  const factory = opts.plugins?.[opts.loadbalance] ?? loadBalances[opts.loadbalance];
  if (factory === undefined) {
    throw new UsageError(
      `unknown loadbalance "${opts.loadbalance}"; valid: ${Object.keys(loadBalances).join(', ')}${suggestionOfKind(opts.loadbalance, 'loadbalance', extensionNames())}`,
      'or give a plugin module path such as ./my-loadbalance.js',
    );
  }
  if (opts.providers.length === 0) {
    throw new UsageError('give at least one provider: --provider URL or --providers-file F');
  }
  const argSets = opts.argsFile !== undefined ? parseArgsFile(opts.argsFile) : [opts.args];
  if (opts.argsFile !== undefined && opts.args.length > 0) throw new UsageError('give the arguments with --arg or with --args-file, not both');
  const count = opts.count ?? (opts.argsFile !== undefined ? argSets.length : 10);
  if (!Number.isInteger(count) || count < 1) {
    throw new UsageError(`--count: expected a whole number >= 1, found ${count}`);
  }
  // Every pick is kept for the output: bounded, so that a typo (1e9) cannot exhaust the machine.
  if (count > MAX_SELECT_COUNT) {
    throw new UsageError(`--count: at most ${MAX_SELECT_COUNT.toLocaleString('en-US')} picks, found ${count}`, 'the shares settle long before; run several times with other --seed values for more');
  }
  if (!Number.isInteger(opts.seed)) throw new UsageError(`--seed: expected a whole number, found ${opts.seed}`);
  if (opts.nowMs !== undefined && !Number.isFinite(opts.nowMs)) {
    throw new UsageError(`--now: expected milliseconds, found ${opts.nowMs}`);
  }
  const providerUrls = expandProviders(opts.providers).map((p) => parsePastedUrl(p.url, p.origin));
  const consumerUrl =
    opts.consumer !== undefined
      ? parsePastedUrl(opts.consumer, '--consumer')
      : new URL({ protocol: 'consumer', host: '127.0.0.1', path: providerUrls[0]!.getServiceInterface() });
  const invokers = providerUrls.map(
    (u) => new UrlInvoker(opts.consumer !== undefined ? new ServiceAddressURL(u, consumerUrl) : u),
  );
  const { release, source } = pastedRelease(opts.dubbo, opts.consumer !== undefined ? consumerUrl : undefined, providerUrls);

  // The CLI is the one layer allowed the wall clock: without --now, warmup is judged as of now.
  const nowMs = opts.nowMs ?? Date.now();
  const runtime = createRuntime({
    sim: new Simulation(),
    random: new RandomStreams(opts.seed).stream('lb'),
    clock: { now: () => nowMs },
    consumerHost: consumerUrl.host,
    filters: consumerFilters(),
    release,
  });
  const lb = factory(runtime);
  const method = opts.method ?? '';

  const warnings = selectWarnings(opts.loadbalance, invokers, consumerUrl);
  for (const w of warnings) io.stderr(`warning: ${w}\n`);

  const picks: string[] = [];
  const pickArgs: string[][] = [];
  const counts = new Array<number>(invokers.length).fill(0);
  for (let n = 0; n < count; n++) {
    const args = argSets[n % argSets.length]!;
    const invocation = new RpcInvocation({
      methodName: method,
      serviceName: consumerUrl.getServiceInterface(),
      arguments: [...args],
    });
    const picked = pickOrExplain(() => lb.select(invokers, consumerUrl, invocation), opts.consumer !== undefined);
    if (picked === null) break;
    const index = invokers.indexOf(picked as UrlInvoker);
    if (index >= 0) counts[index]!++;
    picks.push(picked.getUrl().getAddress());
    pickArgs.push(args);
    for (const filter of runtime.filters) {
      // The pick becomes a call in flight; a gate that would have to wait (actives reached) just stops there.
      filter.admit?.call(filter, picked, invocation).next();
      filter.before(picked, invocation, runtime.sim.now);
    }
  }

  if (opts.json) {
    const doc: { picks: string[]; arguments?: string[][]; warnings?: string[] } = { picks };
    if (opts.argsFile !== undefined) doc.arguments = pickArgs;
    if (warnings.length > 0) doc.warnings = warnings;
    io.stdout(JSON.stringify(doc) + '\n');
    return 0;
  }
  const lines: string[] = [];
  lines.push(
    `${opts.loadbalance}: ${picks.length} pick${picks.length === 1 ? '' : 's'} over ${invokers.length} provider${invokers.length === 1 ? '' : 's'}` +
      ` (method ${method === '' ? '(none)' : method}, seed ${opts.seed}, clock ${nowMs} ms, dubbo ${release.text}: ${source})`,
  );
  const SHOWN = 100;
  if (opts.argsFile !== undefined) {
    lines.push('picks by arguments:');
    picks.slice(0, SHOWN).forEach((p, i) => lines.push(`  ${JSON.stringify(pickArgs[i])} -> ${p}`));
    if (picks.length > SHOWN) lines.push(`  ... (${picks.length - SHOWN} more; --json lists all)`);
  } else {
    lines.push(
      `picks: ${picks.slice(0, SHOWN).join(' ')}${picks.length > SHOWN ? ` ... (${picks.length - SHOWN} more; --json lists all)` : ''}`,
    );
  }
  const probe = new RpcInvocation({ methodName: method, arguments: [...argSets[0]!] });
  const rows = invokers.map((inv, i) => [
    inv.getUrl().getAddress(),
    String(getWeight(inv, probe, nowMs)),
    String(counts[i]),
    `${((100 * counts[i]!) / Math.max(1, picks.length)).toFixed(1)}%`,
  ]);
  const header = ['provider', 'weight', 'picks', 'share'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const fmt = (r: string[]): string =>
    r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  lines.push(fmt(header));
  for (const r of rows) lines.push(fmt(r));
  if (runtime.counters.size > 0) {
    lines.push(`counters: ${[...runtime.counters].map(([k, v]) => `${k}=${v}`).join(' ')}`);
  }
  io.stdout(lines.join('\n') + '\n');
  return 0;
}

// A balancer's failure that comes from the input (hash.nodes below 4): Dubbo fails the call too (an NPE);
// here it is bad input, named where Dubbo reads it.
function pickOrExplain<T>(pick: () => T, withConsumer: boolean): T {
  try {
    return pick();
  } catch (error) {
    if (!(error instanceof EmptyHashRingError)) throw error;
    const where = withConsumer ? "--consumer's URL, else the first provider's" : "the first provider's URL";
    throw new UsageError(`${where}: ${error.message}`);
  }
}

/**
 * `--args-file` text: one invocation per line, its arguments separated by whitespace, or a JSON
 * array for arguments with spaces (`["Alice Smith", 42]`; `[]` for none). Blank lines and `#`
 * comments are skipped.
 */
export function parseArgsFile(text: string): string[][] {
  const sets: string[][] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (line.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new UsageError(`--args-file line ${i + 1}: expected a JSON array of arguments, found ${line}`);
      }
      if (!Array.isArray(parsed)) throw new UsageError(`--args-file line ${i + 1}: expected a JSON array of arguments, found ${line}`);
      // Java String.valueOf of what the JSON holds (the consistent-hash key concatenates these).
      sets.push(parsed.map((v) => (v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v))));
      return;
    }
    sets.push(line.split(/\s+/));
  });
  if (sets.length === 0) throw new UsageError('--args-file: no invocation in the file (one line of arguments per invocation)');
  return sets;
}

const ACTIVE_COUNTING = new Set(['leastactive', 'shortestresponse']);

/** Why the balancer will not do what its name says with these providers and this consumer. */
export function selectWarnings(loadbalance: string, invokers: readonly UrlInvoker[], consumerUrl: URL): string[] {
  const warnings: string[] = [];
  if (ACTIVE_COUNTING.has(loadbalance)) {
    const counted = invokers.filter((inv) => hasActivesParameter(inv.getUrl())).length;
    const what = loadbalance === 'leastactive' ? 'active counts' : 'active counts and response times';
    if (counted === 0) {
      warnings.push(
        `${loadbalance} without active counting: no provider URL (nor --consumer) has an actives parameter that ` +
          `activates ActiveLimitFilter (0, false, null and N/A do not), so its ${what} stay 0 and every pick is weighted random, ` +
          `as in Dubbo 3.3 (add e.g. actives=1000 to count without limiting)`,
      );
    } else if (counted < invokers.length) {
      warnings.push(
        `${loadbalance}: only ${counted} of ${invokers.length} providers activate ActiveLimitFilter (an actives parameter); ` +
          `the others' ${what} stay 0, so they always look idle`,
      );
    }
  }
  if (/zone/i.test(loadbalance)) {
    const zone = consumerUrl.getParameter('zone');
    if (zone === undefined || zone === '') {
      warnings.push(
        `${loadbalance} has no consumer zone: give --consumer 'consumer://HOST/SERVICE?zone=ZONE'; without it no provider ` +
          `is same-zone and the picks are weighted random over all zones`,
      );
    } else if (!invokers.some((inv) => inv.getUrl().getOriginalParameter('zone') === zone)) {
      warnings.push(`${loadbalance}: no provider URL has zone=${zone}, the consumer's zone, so nothing is preferred`);
    }
  }
  return warnings;
}
