/**
 * `zonesim select`: what a Dubbo load balancer picks, N times in a row, from a list of provider
 * URLs. One consumer runtime and one balancer instance serve every pick, so round-robin state,
 * consistent-hash rings and adaptive metrics carry over; each pick also runs the default consumer
 * filters' `before` as a call that stays in flight, so `leastactive` / `shortestresponse` see the
 * active counts grow when the URLs carry `actives` (as ActiveLimitFilter counts in Dubbo). `--now`
 * sets the clock for warmup. Owns argument checking and output; reading provider files is
 * `inputs.ts`'s job.
 */
import { RandomStreams } from '../engine/random.js';
import { Simulation } from '../engine/simulation.js';
import { loadBalances } from '../dubbo/extensions.js';
import { consumerFilters } from '../dubbo/filter/index.js';
import { getWeight, type LoadBalanceFactory } from '../dubbo/loadbalance/load-balance.js';
import { RpcInvocation } from '../dubbo/rpc.js';
import { createRuntime } from '../dubbo/runtime.js';
import { ServiceAddressURL, URL } from '../dubbo/url.js';
import { parseCliUrl, UrlInvoker } from './inputs.js';
import { UsageError, type Io } from './io.js';

/** The options of `zonesim select`. */
export interface SelectOptions {
  loadbalance: string;
  /** Provider URLs in directory order. */
  providers: string[];
  method?: string;
  /** Invocation arguments in order (the consistent-hash key). */
  args: string[];
  count: number;
  seed: number;
  /** Clock in ms (epoch-like) for warmup; the current time when absent. */
  nowMs?: number;
  json: boolean;
  /** zonesim addition: the consumer URL (zone balancers read `zone`, `envoy.*` from it). */
  consumer?: string;
  /** Plugin balancers by module path, as `main` loads them. */
  plugins?: Record<string, LoadBalanceFactory>;
}

/** Runs `select`; returns the exit code. Bad input throws UsageError (exit 2). */
export function runSelect(opts: SelectOptions, io: Io): number {
  const factory = opts.plugins?.[opts.loadbalance] ?? loadBalances[opts.loadbalance];
  if (factory === undefined) {
    throw new UsageError(
      `unknown loadbalance "${opts.loadbalance}"; valid: ${Object.keys(loadBalances).join(', ')}`,
      'or give a plugin module path such as ./my-loadbalance.js',
    );
  }
  if (opts.providers.length === 0) {
    throw new UsageError('give at least one provider: --provider URL or --providers-file F');
  }
  if (!Number.isInteger(opts.count) || opts.count < 1) {
    throw new UsageError(`--count: expected a whole number >= 1, found ${opts.count}`);
  }
  if (!Number.isInteger(opts.seed)) throw new UsageError(`--seed: expected a whole number, found ${opts.seed}`);
  if (opts.nowMs !== undefined && !Number.isFinite(opts.nowMs)) {
    throw new UsageError(`--now: expected milliseconds, found ${opts.nowMs}`);
  }
  const providerUrls = opts.providers.map((p) => parseCliUrl(p, '--provider'));
  const consumerUrl =
    opts.consumer !== undefined
      ? parseCliUrl(opts.consumer, '--consumer')
      : new URL({ protocol: 'consumer', host: '127.0.0.1', path: providerUrls[0]!.getServiceInterface() });
  const invokers = providerUrls.map(
    (u) => new UrlInvoker(opts.consumer !== undefined ? new ServiceAddressURL(u, consumerUrl) : u),
  );

  // The CLI is the one layer allowed the wall clock: without --now, warmup is judged as of now.
  const nowMs = opts.nowMs ?? Date.now();
  const runtime = createRuntime({
    sim: new Simulation(),
    random: new RandomStreams(opts.seed).stream('lb'),
    clock: { now: () => nowMs },
    consumerHost: consumerUrl.host,
    filters: consumerFilters(),
  });
  const lb = factory(runtime);
  const method = opts.method ?? '';

  const picks: string[] = [];
  const counts = new Array<number>(invokers.length).fill(0);
  for (let n = 0; n < opts.count; n++) {
    const invocation = new RpcInvocation({
      methodName: method,
      serviceName: consumerUrl.getServiceInterface(),
      arguments: [...opts.args],
    });
    const picked = lb.select(invokers, consumerUrl, invocation);
    if (picked === null) break;
    const index = invokers.indexOf(picked as UrlInvoker);
    if (index >= 0) counts[index]!++;
    picks.push(picked.getUrl().getAddress());
    for (const filter of runtime.filters) {
      // The pick becomes a call in flight; a gate that would have to wait (actives reached) just stops there.
      filter.admit?.call(filter, picked, invocation).next();
      filter.before(picked, invocation, runtime.sim.now);
    }
  }

  if (opts.json) {
    io.stdout(JSON.stringify({ picks }) + '\n');
    return 0;
  }
  const lines: string[] = [];
  lines.push(
    `${opts.loadbalance}: ${picks.length} pick${picks.length === 1 ? '' : 's'} over ${invokers.length} provider${invokers.length === 1 ? '' : 's'}` +
      ` (method ${method === '' ? '(none)' : method}, seed ${opts.seed}, clock ${nowMs} ms)`,
  );
  const SHOWN = 100;
  lines.push(
    `picks: ${picks.slice(0, SHOWN).join(' ')}${picks.length > SHOWN ? ` ... (${picks.length - SHOWN} more; --json lists all)` : ''}`,
  );
  const probe = new RpcInvocation({ methodName: method, arguments: [...opts.args] });
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
