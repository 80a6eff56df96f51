/**
 * The report's "what happened" paragraphs: a few plain sentences per run or strategy derived from
 * its summary JSON alone (failure episodes from the timeline and what was going on around them —
 * fault markers, registry pushes —, the failure split, p99 of all vs ok requests, retries,
 * cross-zone share, registry traffic, provider rejections), and one sentence comparing strategies.
 * Pure functions of the summary: no clock, no locale. It owns the wording, not the HTML.
 *
 * Episode rule: for each failing outcome, a bucket "fails" when it holds at least 5% of the
 * outcome's worst bucket (and at least one request); failing buckets one bucket apart or closer
 * form one episode; the two largest episodes are told, in time order. An episode's start is
 * related to a fault marker within one bucket of it, its end to the first registry pushes from two
 * buckets before the stop until the longest request could have lasted after it (requests count
 * where they started, so a push that ends an episode may come after its last bucket), else to a
 * fault marker within one bucket of the stop. These are "when" and "after",
 * never "because": the report states coincidences in time, the reader judges causes.
 */
import { FAILED_OUTCOMES, type FailedOutcome, type ScopeTimelineRow, type Summary, type TimelineRow } from '../metrics/summary.js';

type Failed = FailedOutcome;
const FAILED = FAILED_OUTCOMES;

/** How an outcome reads in a sentence: as the subject of an episode, and in the failure split. */
const WORDS: Record<Failed, { episode: string; split: string }> = {
  timeout: { episode: 'Timeouts', split: 'timeout' },
  noProvider: { episode: '"No provider available" errors', split: 'No provider' },
  rejected: { episode: 'Rejections', split: 'rejected' },
  network: { episode: 'Network errors', split: 'network' },
  forbidden: { episode: '"No provider available" errors on an emptied list (forbidden)', split: 'forbidden' },
  biz: { episode: 'Business errors', split: 'business error' },
  blocked: { episode: 'Calls blocked by Sentinel', split: 'blocked' },
  lost: { episode: 'Requests lost with their dark room', split: 'lost' },
};

/** A run of failing buckets: first and last bucket index, and the outcome's requests in it. */
export interface Episode {
  first: number;
  last: number;
  requests: number;
}

/** The failure episodes of one outcome in a timeline (see the module comment), largest two in time order. */
export function failureEpisodes(timeline: readonly ScopeTimelineRow[], outcome: Failed): Episode[] {
  const counts = timeline.map((r) => r[outcome] ?? 0);
  // A loop, not Math.max(...counts): a timeline has up to a million buckets, more than a call takes arguments.
  const peak = counts.reduce((m, n) => Math.max(m, n), 0);
  if (!(peak > 0)) return [];
  const threshold = Math.max(1e-9, 0.05 * peak);
  const episodes: Episode[] = [];
  let current: Episode | null = null;
  counts.forEach((n, i) => {
    if (!(n >= threshold)) return;
    if (current !== null && i - current.last <= 2) {
      current.last = i;
      current.requests += n;
    } else {
      current = { first: i, last: i, requests: n };
      episodes.push(current);
    }
  });
  return episodes
    .map((e, i) => ({ e, i }))
    .sort((a, b) => b.e.requests - a.e.requests || a.i - b.i)
    .slice(0, 2)
    .sort((a, b) => a.i - b.i)
    .map(({ e }) => e);
}

/** The paragraph of one run or strategy. */
export function narrate(s: Summary): string {
  const sentences: string[] = [];
  const timeline: readonly TimelineRow[] = s.timeline ?? [];
  const widthMs = bucketWidthMs(s);
  const failedTotal = FAILED.reduce((n, o) => n + (s.outcomes?.[o] ?? 0), 0);

  const faults = faultSpans(s);
  if (faults.length > 0) sentences.push(`Faults: ${faults.join('; ')}.`);

  // Failure episodes, the biggest outcomes first.
  const byTotal = FAILED.filter((o) => (s.outcomes?.[o] ?? 0) > 0).sort((a, b) => s.outcomes[b] - s.outcomes[a]);
  for (const outcome of byTotal.slice(0, 2)) {
    const episodes = failureEpisodes(timeline, outcome);
    if (episodes.length === 0) continue;
    sentences.push(`${WORDS[outcome].episode} ${episodes.map((e, i) => episodeText(s, e, widthMs, i > 0)).join('; then ')}.`);
  }

  // The split of failures.
  if (!(s.requests > 0)) sentences.push('No request was measured.');
  else if (failedTotal === 0) sentences.push(`No request failed (${count(s.requests)} requests).`);
  else {
    const split = byTotal.map((o) => `${percent(s.outcomes[o] / s.requests)} ${WORDS[o].split}`).join(', ');
    sentences.push(`${percent(failedTotal / s.requests)} of requests failed (${count(failedTotal)} of ${count(s.requests)}): ${split}.`);
  }
  const mocked = s.outcomes?.mock ?? 0;
  if (mocked > 0 && s.requests > 0) {
    const causes = Object.entries(s.mockCauses ?? {}).map(([cause, n]) => `${count(n)} ${cause}`);
    sentences.push(
      `The mock (MockClusterInvoker) answered ${percent(mocked / s.requests)} of requests (${count(mocked)})` +
        (causes.length > 0 ? `: ${causes.join(', ')}` : '') +
        '; they are neither ok nor failed.',
    );
  }

  const blocked = s.outcomes?.blocked ?? 0;
  if (blocked > 0 && s.requests > 0) {
    const causes = Object.entries(s.blockedCauses ?? {}).map(([cause, n]) => `${count(n)} ${cause}`);
    const opened = s.events?.['sentinel.consumer.open'] ?? 0;
    sentences.push(
      `Sentinel blocked ${percent(blocked / s.requests)} of requests (${causes.join(', ')})` +
        (opened > 0 ? `; consumer circuit breakers opened ${count(opened)} times and closed ${count(s.events?.['sentinel.consumer.closed'] ?? 0)} times` : '') +
        '.',
    );
  }

  // Latency: every request against the successful ones.
  if (s.requests > 0) {
    const all = `${count(s.latencyAllMs.p99)} ms`;
    sentences.push(
      s.ok > 0
        ? `p99 of all requests ${all} vs ${count(s.latencyMs.p99)} ms for ok ones.`
        : `p99 of all requests ${all}; no request succeeded.`,
    );
  }

  // Retries, zones, registry, providers: only what happened.
  const extra: string[] = [];
  if (s.retryAmplification > 1.0005 || s.duplicateExecutions > 0) {
    extra.push(
      `${s.retryAmplification.toFixed(2)} attempts per request` +
        (s.duplicateExecutions > 0 ? ` and ${count(s.duplicateExecutions)} duplicate executions` : ''),
    );
  }
  if (s.crossZoneRatio > 0) extra.push(`${percent(s.crossZoneRatio)} of attempts crossed zones`);
  if (extra.length > 0) sentences.push(`${capitalize(extra.join('; '))}.`);
  const r = s.registry;
  if (r !== undefined && r.pushes > 0) {
    const inWindow = timeline.reduce((n, row) => n + (row.pushes ?? 0), 0);
    const peak = timeline.reduce<TimelineRow | null>((best, row) => ((row.pushes ?? 0) > (best?.pushes ?? 0) ? row : best), null);
    sentences.push(
      `The registry delivered ${count(r.pushes)} pushes` +
        (peak !== null && inWindow > 0 ? `, most at ${seconds(peak.tMs)} (${count(peak.pushes)})` : '') +
        (r.staleCalls > 0 ? `; ${count(r.staleCalls)} attempts went to providers it already knew were gone` : '') +
        '.',
    );
  }
  const rejecting = Object.entries(s.byProviderGroup ?? {})
    .filter(([, g]) => g.rejected > 0)
    .sort(([, a], [, b]) => b.rejected - a.rejected);
  for (const [name, g] of rejecting.slice(0, 2)) {
    const rows = s.timelineByProviderGroup?.[name] ?? [];
    const episodes = failureEpisodes(
      rows.map((row) => ({ rejected: row.rejected }) as unknown as ScopeTimelineRow),
      'rejected',
    );
    const when = episodes.length > 0 && rows.length > 0 ? ` ${spanText(rows, episodes[0]!, widthMs)}` : '';
    sentences.push(`Provider group ${name} refused ${count(g.rejected)} calls${when}.`);
  }
  return sentences.join(' ');
}

/** `zoneDown zoneA (blackhole) from 60 s to 120 s`: start markers paired with the next end marker of the same label; at most three, then how many more. */
function faultSpans(s: Summary): string[] {
  const markers = s.faults ?? [];
  const used = new Set<number>();
  const spans: string[] = [];
  markers.forEach((m, i) => {
    if (m.kind !== 'start') return;
    const end = markers.findIndex((e, j) => j > i && !used.has(j) && e.kind === 'end' && e.label === m.label);
    if (end >= 0) used.add(end);
    spans.push(end >= 0 ? `${m.label} from ${seconds(m.tMs)} to ${seconds(markers[end]!.tMs)}` : `${m.label} at ${seconds(m.tMs)}`);
  });
  markers.forEach((m, j) => {
    if (m.kind === 'end' && !used.has(j)) spans.push(`${m.label} ended at ${seconds(m.tMs)}`);
  });
  return spans.length > 3 ? [...spans.slice(0, 3), `and ${spans.length - 3} more`] : spans;
}

/** One sentence comparing strategies on failed requests and p99 of all requests; '' for fewer than two. */
export function compareLead(byStrategy: Record<string, Summary>): string {
  const entries = Object.entries(byStrategy).filter(([, s]) => s.requests > 0);
  if (entries.length < 2) return '';
  const failed = (s: Summary) => s.errorRate;
  const byFailed = [...entries].sort(([, a], [, b]) => failed(a) - failed(b));
  const byP99 = [...entries].sort(([, a], [, b]) => a.latencyAllMs.p99 - b.latencyAllMs.p99);
  const [bestF, worstF] = [byFailed[0]!, byFailed[byFailed.length - 1]!];
  const [bestL, worstL] = [byP99[0]!, byP99[byP99.length - 1]!];
  const failedText =
    failed(bestF[1]) === failed(worstF[1])
      ? `Every strategy failed ${percent(failed(bestF[1]))} of requests`
      : `Fewest failed requests: ${bestF[0]} (${percent(failed(bestF[1]))}); most: ${worstF[0]} (${percent(failed(worstF[1]))})`;
  const p99Text =
    bestL[1].latencyAllMs.p99 === worstL[1].latencyAllMs.p99
      ? `the same p99 of all requests (${count(bestL[1].latencyAllMs.p99)} ms)`
      : `lowest p99 of all requests: ${bestL[0]} (${count(bestL[1].latencyAllMs.p99)} ms); highest: ${worstL[0]} (${count(worstL[1].latencyAllMs.p99)} ms)`;
  return `${failedText}; ${p99Text}.`;
}

function episodeText(s: Summary, e: Episode, widthMs: number, later: boolean): string {
  const timeline = s.timeline;
  const startMs = timeline[e.first]!.tMs;
  const stopMs = timeline[e.last]!.tMs + widthMs;
  const fromStart = e.first === 0;
  const markers = s.faults ?? [];
  const near = (tMs: number, kind: 'start' | 'end') =>
    markers
      .filter((m) => m.kind === kind && Math.abs(m.tMs - tMs) <= widthMs)
      .sort((a, b) => Math.abs(a.tMs - tMs) - Math.abs(b.tMs - tMs))[0];
  const when = (m: { tMs: number; kind: 'start' | 'end'; label: string }, atMs: number) =>
    `, when ${m.label} ${m.kind === 'start' ? 'started' : 'ended'}${m.tMs === atMs ? '' : ` (${seconds(m.tMs)})`}`;
  let text: string;
  if (fromStart) text = `were there from the start of the measured window (${seconds(startMs)})`;
  else {
    text = later ? `again from ${seconds(startMs)}` : `started at ${seconds(startMs)}`;
    const m = near(startMs, 'start') ?? near(startMs, 'end');
    if (m !== undefined) text += when(m, startMs);
  }
  if (e.last === timeline.length - 1) return `${text}, and had not stopped at the end of the run (${seconds(stopMs)})`;
  // A comma after a "when" clause keeps "and stopped" about the failures, not the fault.
  text += `${text.includes(', when ') ? ',' : ''} and stopped at ${seconds(stopMs)}`;
  // Registry pushes around the stop: from two buckets before it until the longest request could have lasted after it.
  const afterMs = Math.min(s.latencyAllMs?.max ?? 0, 10_000);
  const pushRow = timeline.find((row) => (row.pushes ?? 0) > 0 && row.tMs >= stopMs - 2 * widthMs && row.tMs <= stopMs + afterMs);
  if (pushRow !== undefined) {
    return `${text}; registry pushes ${pushRow.tMs < stopMs ? 'came' : 'followed'} at ${seconds(pushRow.tMs)} (${count(pushRow.pushes)} notifications)`;
  }
  const m = near(stopMs, 'end') ?? near(stopMs, 'start');
  return m === undefined ? text : text + when(m, stopMs);
}

/** `from 62 s to 70 s` for an episode of provider-group rows. */
function spanText(rows: ReadonlyArray<{ tMs: number }>, e: Episode, widthMs: number): string {
  return `from ${seconds(rows[e.first]!.tMs)} to ${seconds(rows[e.last]!.tMs + widthMs)}`;
}

/** The width of a timeline bucket: the step between rows, or the measured window for one row. */
export function bucketWidthMs(s: Summary): number {
  const t = s.timeline ?? [];
  if (t.length >= 2) return t[1]!.tMs - t[0]!.tMs;
  return Math.max(0, (s.simulatedMs ?? 0) - (s.measuredFromMs ?? 0));
}

/** `60 s`, `60.5 s`. */
export function seconds(ms: number): string {
  return `${+(ms / 1000).toFixed(3)} s`;
}

/** `3.2%`, `0.31%`, `<0.01%`, `0%`. */
export function percent(x: number): string {
  const p = x * 100;
  if (p === 0) return '0%';
  if (p < 0.01) return '<0.01%';
  return `${p >= 1 ? +p.toFixed(1) : +p.toFixed(2)}%`;
}

/** `1,020`, `38,000`, `12.5` (means over seeds keep one decimal). */
export function count(n: number): string {
  const rounded = Number.isInteger(n) ? n : Math.round(n * 10) / 10;
  const [int, frac] = String(Math.abs(rounded)).split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${rounded < 0 ? '-' : ''}${grouped}${frac !== undefined ? `.${frac}` : ''}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
