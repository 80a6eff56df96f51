// recommend's verification table at estate size: past MAX_METHOD_ROWS recommended methods it lists the ones with
// the highest error %, then p99 of all calls, in any run (as compare's table does); --json keeps every method.
import { describe, expect, it } from 'vitest';
import type { Verification, VerificationFigures } from '../../src/analysis/recommend-verification.js';
import type { ScopeSummary } from '../../src/metrics/summary.js';
import { MAX_METHOD_ROWS } from '../../src/report/compare-table.js';
import { MAX_RECOMMENDATION_BLOCKS, recommendLines } from '../../src/report/recommend-output.js';
import type { Recommendation } from '../../src/analysis/recommend-verification.js';

/** A scope of `requests` calls, `failed` of them timed out, with p99 of all calls `p99`. */
function scope(requests: number, failed: number, p99: number): ScopeSummary {
  return {
    requests,
    errorRate: failed / requests,
    outcomes: { ok: requests - failed, timeout: failed, noProvider: 0, rejected: 0, network: 0, forbidden: 0, biz: 0, mock: 0, blocked: 0, lost: 0 },
    latencyAllMs: { mean: 0, p50: 0, p90: 0, p99, p999: 0, max: 0 },
    duplicateExecutions: 0,
    duplicateWrites: 0,
  } as unknown as ScopeSummary;
}

const name = (i: number) => `com.seed.S${String(i).padStart(2, '0')}.call`;

/** Figures with `n` methods; `tweak` sets some methods' scopes. */
function figures(n: number, tweak: Record<number, ScopeSummary> = {}): VerificationFigures {
  const byMethod: Record<string, ScopeSummary> = {};
  for (let i = 0; i < n; i++) byMethod[name(i)] = tweak[i] ?? scope(1000, 0, 50 + i / 10);
  return { overall: scope(1000 * n, 0, 51), byConsumerZone: {}, byMethod };
}

function verification(before: VerificationFigures, after: VerificationFigures): Verification {
  return { objective: 'errorRate,latencyAllMs.p99', verdict: 'accepted', verdictReason: 'even', before, after };
}

/** The methods with rows in the verification table. */
function tableMethods(lines: string[]): string[] {
  return lines.filter((l) => /^ {2}com\.seed\.S\d\d\.call /.test(l)).map((l) => l.trim().split(/\s+/)[0]!);
}

describe('recommend: the verification table by method', () => {
  it('lists every method up to MAX_METHOD_ROWS, without a title', () => {
    const n = MAX_METHOD_ROWS;
    const lines = recommendLines('estate', 0.001, { recommendations: [], verification: verification(figures(n), figures(n)) });
    expect(tableMethods(lines)).toHaveLength(n);
    expect(lines.join('\n')).not.toContain('by method: the');
  });

  it('past it, lists the methods with the highest error %, then p99 all ms, in any run, under a title', () => {
    const n = MAX_METHOD_ROWS + 15;
    // S30 fails after, S03 before: first; then the highest p99s (S34 down to S17, p99 50 + i/10; the table shows 0.1 ms, and leaves out a row equal to one shown).
    const lines = recommendLines('estate', 0.001, {
      recommendations: [],
      verification: verification(figures(n, { 3: scope(1000, 5, 60) }), figures(n, { 30: scope(1000, 9, 70) })),
    });
    expect(lines).toContain(`  by method: the ${MAX_METHOD_ROWS} of ${n} with the highest error %, then p99 all ms, in any run (every method in --json)`);
    const listed = new Set(tableMethods(lines));
    expect(listed.size).toBe(MAX_METHOD_ROWS);
    const highestP99 = Array.from({ length: n }, (_, i) => i)
      .filter((i) => i !== 3 && i !== 30)
      .sort((a, b) => b - a)
      .slice(0, MAX_METHOD_ROWS - 2);
    expect([...listed].sort()).toEqual([3, 30, ...highestP99].map(name).sort());
  });
});

describe('recommend: what to apply instead of a rejected recommendation', () => {
  const rec = (retries: number) =>
    ({
      consumer: 'w000',
      zone: 'zoneA',
      service: 'com.seed.S00',
      method: 'call',
      timeoutMs: 64,
      retries,
      reason: 'why',
      asWritten: { timeoutMs: 1000, retries: 2 },
      verdict: 'rejected',
      verdictReason: 'the whole scenario gets worse with every recommendation applied: worse',
      alternative: { timeoutMs: 64, retries: 2, kept: 'retries', verdictReason: 'even', after: scope(1000, 0, 50) },
      before: scope(1000, 0, 50),
      after: scope(1000, 0, 50),
    }) as unknown as Recommendation;
  const instead = (r: Recommendation) =>
    recommendLines('x', 0.001, { recommendations: [r], verification: verification(figures(1), figures(1)) }).find((l) => l.startsWith('  instead:'));

  it('says "as recommended" when the alternative leaves this one as it is (its retries already as written)', () => {
    // The whole scenario got worse, so every recommendation was rejected; keeping the retries as written changes only
    // those that cut them.
    expect(instead(rec(2))).toBe('  instead: as recommended (timeout 64 ms, retries 2: its retries already as written), with the others\' retries as written: even');
    expect(instead(rec(1))).toBe('  instead: timeout 64 ms, retries 2 (the retries as written): even');
  });
});


describe('recommend: an estate of many recommendations', () => {
  const rec = (i: number, retries: number, verdict: 'accepted' | 'rejected') =>
    ({
      consumer: `w${String(i).padStart(3, '0')}`,
      zone: 'zoneA',
      service: `com.seed.S${String(i).padStart(2, '0')}`,
      method: 'call',
      timeoutMs: 64,
      retries,
      reason: 'why',
      asWritten: { timeoutMs: 1000, retries: 2 },
      verdict,
      verdictReason: verdict === 'accepted' ? 'even' : 'worse',
      alternative: verdict === 'accepted' ? undefined : { timeoutMs: 64, retries: 2, kept: 'retries', verdictReason: 'even', after: scope(1000, 0, 50) },
      before: scope(1000, 0, 50),
      after: scope(1000, 0, 50),
    }) as unknown as Recommendation;
  const blocks = (lines: string[]) => lines.filter((l) => /^w\d{3} \(zoneA\) -> /.test(l)).map((l) => l.split(' ')[0]);

  it('counts them by setting, the most first, and shows the first MAX_RECOMMENDATION_BLOCKS, the rejected first', () => {
    // 25 accepted, then 5 rejected (w025..w029): one block each would be 30.
    const recs = [...Array.from({ length: 25 }, (_, i) => rec(i, 1, 'accepted')), ...Array.from({ length: 5 }, (_, i) => rec(25 + i, 1, 'rejected'))];
    const lines = recommendLines('estate', 0.001, { recommendations: recs, verification: verification(figures(1), figures(1)) });
    const at = lines.indexOf('30 recommendations, by setting (every one in --json):');
    expect(at).toBe(2);
    expect(lines.slice(at + 1, at + 3)).toEqual([
      '  25 x timeout 64 ms, retries 1 (as written 1000 ms, 2 retries): accepted: w000 (zoneA) -> com.seed.S00.call, w001 (zoneA) -> com.seed.S01.call, w002 (zoneA) -> com.seed.S02.call, and 22 more',
      '  5 x timeout 64 ms, retries 1 (as written 1000 ms, 2 retries): rejected; instead: timeout 64 ms, retries 2: w025 (zoneA) -> com.seed.S25.call, w026 (zoneA) -> com.seed.S26.call, w027 (zoneA) -> com.seed.S27.call, and 2 more',
    ]);
    expect(lines).toContain(`the first ${MAX_RECOMMENDATION_BLOCKS} of them, the rejected first:`);
    const shown = blocks(lines);
    expect(shown).toHaveLength(MAX_RECOMMENDATION_BLOCKS);
    expect(shown.slice(0, 6)).toEqual(['w025', 'w026', 'w027', 'w028', 'w029', 'w000']);
  });

  it('says what to do instead of a rejected setting as its own lines do', () => {
    const recs = Array.from({ length: MAX_RECOMMENDATION_BLOCKS + 1 }, (_, i) => rec(i, i % 3, 'rejected'));
    // The retries as written (2) already: the alternative is the recommendation; none beats as written: keep it.
    recs[2]!.alternative = null;
    const lines = recommendLines('estate', 0.001, { recommendations: recs, verification: verification(figures(1), figures(1)) });
    const settings = lines.slice(3, 7).map((l) => l.replace(/^ {2}\d+ x timeout 64 ms, retries (\d) \(as written 1000 ms, 2 retries\): (.*?): w\d.*$/, '$1 $2'));
    expect(settings).toEqual([
      '0 rejected; instead: timeout 64 ms, retries 2',
      '1 rejected; instead: timeout 64 ms, retries 2',
      "2 rejected; instead: as recommended, with the others' retries as written",
      '2 rejected; instead: keep it as written',
    ]);
  });

  it('shows every one, without the count, up to MAX_RECOMMENDATION_BLOCKS', () => {
    const recs = Array.from({ length: MAX_RECOMMENDATION_BLOCKS }, (_, i) => rec(i, 1, 'accepted'));
    const lines = recommendLines('estate', 0.001, { recommendations: recs, verification: verification(figures(1), figures(1)) });
    expect(blocks(lines)).toHaveLength(MAX_RECOMMENDATION_BLOCKS);
    expect(lines.join('\n')).not.toContain('by setting');
  });
});
