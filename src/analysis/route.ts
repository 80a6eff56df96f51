/**
 * `zonesim route`: evaluates Dubbo's routing rules on one call. The providers go through Dubbo's
 * state-router chain as a consumer would run it (mock selector, tag router with the optional
 * `--tag-rule-file`, the condition rule from `--condition`/`--condition-file`), and the command
 * prints the survivors in directory order with a per-router trace, or Dubbo's "No provider
 * available" (code 6) with the rule that emptied the list. A rule with a `key` applies only where
 * the key names the consumer's service (`scope: service`), the consumer's or the providers'
 * application (`scope: application`; a tag rule's key is the providers' application), and the
 * trace says when it is skipped. Providers may be pasted as ZooKeeper lists them (URL-encoded,
 * or a whole zkCli `ls` answer). `--dubbo 2.7|3.3` (else `release=` on the consumer or provider URLs,
 * pasted-release.ts) answers as that release: 2.7.23's condition semantics (a missing key passes an
 * only-`!=` condition, no ranges, no `attachments[...]`, the merged invoker URL) and no
 * ProviderAppStateRouter; a 3.x-only rule feature under 2.7 is bad input. Owns option checking and
 * output; the callers read files and pass their text.
 */
import { RandomStreams } from '../engine/random.js';
import { RpcCode } from '../dubbo/constants.js';
import { RpcInvocation, type Invoker } from '../dubbo/rpc.js';
import { RouterChain } from '../dubbo/router/chain.js';
import { conditionRouter, tagRouter } from '../dubbo/router/rule-routers.js';
import { MockInvokersSelector } from '../dubbo/router/mock-invokers-selector.js';
import type { RouteTraceEntry, StateRouter } from '../dubbo/router/router.js';
import { RouterRuleError } from '../dubbo/router/router-rule-error.js';
import { TagStateRouter } from '../dubbo/router/tag/tag-state-router.js';
import { ServiceAddressURL, URL } from '../dubbo/url.js';
import { UsageError, type Io } from '../scenario/io.js';
import { expandProviders, parsePastedUrl, UrlInvoker, type ProviderLine } from './provider-list.js';
import { pastedRelease } from './pasted-release.js';
import type { DubboRelease } from '../dubbo/release.js';
import { KeyedConditionRule } from '../dubbo/router/condition/listenable-state-router.js';
import { ConditionRuleRouter } from '../dubbo/router/condition/condition-rule-router.js';

/** The options of `zonesim route` (file contents already read by the caller). */
export interface RouteOptions {
  consumer: string;
  /** Provider URLs in directory order; echoed exactly as given. URL-encoded URLs and zkCli `ls` answers are accepted. A string is a `--provider`; a line of `--providers-file` says where it is. */
  providers: Array<string | ProviderLine>;
  /** A URL rule (`host = a => host = b`), a `condition://` URL or Dubbo Admin YAML. */
  condition?: string;
  /** `force: true` for the condition rule. */
  force: boolean;
  /** Dubbo Admin tag-rule YAML. */
  tagRule?: string;
  method?: string;
  args: string[];
  attachments: Record<string, string>;
  json: boolean;
  /** `--dubbo 2.7|3.3`: the release to answer as (default: see pasted-release.ts). */
  dubbo?: string;
}

/** One row of the trace (SPEC 1.1). */
export interface RouteTraceRow {
  router: string;
  rule: string | null;
  matchedWhen: boolean | null;
  before: number;
  after: number;
  note: string | null;
}

/** The `route --json` document (SPEC 1.1). */
export interface RouteReport {
  providers: string[];
  trace: RouteTraceRow[];
  error: null | { code: number; message: string };
}

function withRuleErrors<T>(what: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof RouterRuleError) throw new UsageError(`${what}: ${error.message}`);
    throw error;
  }
}

function row(e: RouteTraceEntry): RouteTraceRow {
  return { router: e.router, rule: e.rule ?? null, matchedWhen: e.matchedWhen ?? null, before: e.before, after: e.after, note: e.note ?? null };
}

// AbstractDirectory.toString: the first three addresses of each list.
function directoryString(invokers: readonly Invoker[]): string {
  const list = `${invokers.length}[${invokers.slice(0, 3).map((i) => i.getUrl().getAddress()).join(', ')}]`;
  return `Directory(invokers: ${list}, validInvokers: ${list}, invokersToReconnect: 0[])`;
}

// 3.3 prints the directory (AbstractDirectory.toString); 2.7.23 the registry's address
// (AbstractClusterInvoker.java:286), which `route` does not know.
function registryText(invokers: readonly Invoker[], release: DubboRelease): string {
  return release.version === '2.7' ? '<registry address>' : directoryString(invokers);
}

/** Dubbo's checkInvokers message (code 6) plus zonesim's note on the router that emptied the list. */
function noProviderMessage(
  consumerUrl: URL,
  invokers: readonly Invoker[],
  method: string | undefined,
  emptiedBy: RouteTraceEntry | undefined,
  release: DubboRelease,
): string {
  let message =
    `Failed to invoke the method ${method ?? 'null'} in the service ${consumerUrl.getServiceInterface()}. ` +
    `No provider available for the service ${consumerUrl.getServiceKey()} from registry ${registryText(invokers, release)} ` +
    `on the consumer ${consumerUrl.host} using the dubbo version ${release.text}. ` +
    `Please check if the providers have been started and registered.`;
  if (emptiedBy !== undefined) {
    const rule = emptiedBy.rule !== undefined ? ` rule "${emptiedBy.rule}"` : ' router';
    message += ` [zonesim: ${emptiedBy.router}${rule} left 0 of ${emptiedBy.before} providers${emptiedBy.note ? `: ${emptiedBy.note}` : ''}]`;
  }
  return message;
}

// Rule features Dubbo 2.7 does not have (they are 3.x's): under `--dubbo 2.7` the rule is refused, naming it.
function refuse3xOnly(release: DubboRelease, tag: TagStateRouter, condition: StateRouter | undefined): void {
  if (release.version !== '2.7') return;
  const first = (feature: string, since: string) =>
    new UsageError(`${feature} is first in Dubbo ${since}; the consumer runs ${release.text} (drop --dubbo 2.7 or the release=, or the feature)`);
  const rules = [tag.getRule(), ...tag.publishedRules().values()];
  if (rules.some((r) => r?.tags.some((t) => t.match !== undefined))) throw first('--tag-rule-file: a tag `match` (configVersion v3.0)', '3.x');
  const inner = condition instanceof KeyedConditionRule ? condition.router : condition;
  if (inner instanceof ConditionRuleRouter && inner.rule.format === 'v3.1') throw first('--condition: a v3.1 multi-destination rule (from/to)', '3.3');
}

/** Evaluates the rules on one call; throws UsageError on bad input. */
export function evaluateRoute(opts: RouteOptions): RouteReport {
  return evaluateRouteAs(opts).report;
}

/** `evaluateRoute` with the release it answered as. */
function evaluateRouteAs(opts: RouteOptions): { report: RouteReport; release: DubboRelease; source: string } {
  if (opts.providers.length === 0) throw new UsageError('give at least one provider: --provider URL or --providers-file F');
  if (opts.force && opts.condition === undefined) throw new UsageError('--force applies to a condition rule: add --condition or --condition-file');
  const consumerUrl = parsePastedUrl(opts.consumer, '--consumer');
  const pasted = expandProviders(opts.providers);
  const providerUrls = pasted.map((p) => parsePastedUrl(p.url, p.origin));
  const { release, source } = pastedRelease(opts.dubbo, consumerUrl, providerUrls);
  const invokers = providerUrls.map((u) => new UrlInvoker(new ServiceAddressURL(u, consumerUrl)));
  // DIVERGENCE: Dubbo draws v3.1 weighted destinations from ThreadLocalRandom; `route` uses a fixed seed so a command repeats.
  const runtime = { random: new RandomStreams(1).stream('route'), release };

  const routers: StateRouter[] = [new MockInvokersSelector()];
  const tagRule = opts.tagRule;
  const tag = withRuleErrors('--tag-rule-file', () => (tagRule === undefined ? new TagStateRouter(null, { release }) : tagRouter(tagRule, { runtime })));
  routers.push(tag);
  let condition: StateRouter | undefined;
  if (opts.condition !== undefined) {
    const text = opts.condition;
    condition = withRuleErrors('--condition', () => conditionRouter(text, { force: opts.force, runtime }));
    routers.push(condition);
  }
  refuse3xOnly(release, tag, condition);
  const chain = new RouterChain(routers, { cache: false, runtime });
  chain.setInvokers(invokers);
  const invocation = new RpcInvocation({
    methodName: opts.method ?? '',
    serviceName: consumerUrl.getServiceInterface(),
    arguments: [...opts.args],
    attachments: { ...opts.attachments },
  });
  const result = chain.route(consumerUrl, invokers, invocation);

  const trace: RouteTraceRow[] = [];
  for (const entry of result.trace) {
    // A YAML rule with several conditions shows one row per condition.
    if (entry.steps !== undefined && entry.steps.length > 1) trace.push(...entry.steps.map(row));
    else trace.push(row(entry));
  }
  const survivors = result.invokers.map((inv) => pasted[invokers.indexOf(inv as UrlInvoker)]!.given);
  const error =
    survivors.length > 0
      ? null
      : { code: RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER, message: noProviderMessage(consumerUrl, invokers, opts.method, result.emptiedBy, release) };
  return { report: { providers: survivors, trace, error }, release, source };
}

function formatText(report: RouteReport, total: number, release: DubboRelease, source: string): string {
  const lines: string[] = [];
  lines.push(`dubbo ${release.text} (${source})`);
  lines.push(`${report.providers.length} of ${total} providers survive:`);
  for (const p of report.providers) lines.push(`  ${p}`);
  lines.push('', 'trace:');
  const width = Math.max(...report.trace.map((r) => r.router.length), 'router'.length);
  lines.push(`  ${'router'.padEnd(width)}  when  before  after  rule`);
  for (const r of report.trace) {
    const when = r.matchedWhen === null ? '-' : r.matchedWhen ? 'yes' : 'no';
    lines.push(`  ${r.router.padEnd(width)}  ${when.padEnd(4)}  ${String(r.before).padStart(6)}  ${String(r.after).padStart(5)}  ${r.rule ?? '-'}`);
    if (r.note !== null) lines.push(`  ${' '.repeat(width)}  ${r.note}`);
  }
  if (report.error !== null) lines.push('', `error ${report.error.code}: ${report.error.message}`);
  return `${lines.join('\n')}\n`;
}

/** Runs `route`; returns the exit code (0, also when no provider survives: the evaluation itself succeeded). */
export function runRoute(opts: RouteOptions, io: Io): number {
  const { report, release, source } = evaluateRouteAs(opts);
  io.stdout(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatText(report, expandProviders(opts.providers).length, release, source));
  return 0;
}
