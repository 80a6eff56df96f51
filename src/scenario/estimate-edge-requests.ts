/**
 * The edge requests of the cost estimate (estimate.ts): each consumer group's arrival rate integrated
 * over [0, duration], with the `traffic` faults that set or multiply it applied in time order and
 * undone after their `for`. What those requests cost downstream, tier by tier, is estimate-call-graph.ts's.
 */
import type { Scenario } from '../model/types.js';

/** Each consumer group's requests over the run, with `traffic` faults applied in time order. */
export function edgeRequestsByGroup(scenario: Scenario): number[] {
  const rates = scenario.consumers.map((c) => c.ratePerSec);
  type Change = { tMs: number; order: number; apply: (rates: number[]) => void };
  const changes: Change[] = [];
  scenario.faults.forEach((f, order) => {
    const a = f.action;
    if (a.kind !== 'traffic' || !(f.atMs <= scenario.durationMs)) return;
    const groups = scenario.consumers.map((c, i) => (c.application === a.consumer && (a.zone === undefined || c.zone === a.zone) ? i : -1)).filter((i) => i >= 0);
    const set: Array<{ i: number; before: number; after: number }> = [];
    changes.push({
      tMs: f.atMs,
      order,
      apply: (r) => {
        set.length = 0;
        for (const i of groups) {
          const before = r[i]!;
          const after = a.ratePerSec ?? before * (a.factor ?? 1);
          r[i] = after;
          set.push({ i, before, after });
        }
      },
    });
    if (f.forMs !== undefined && f.atMs + f.forMs <= scenario.durationMs) {
      changes.push({
        tMs: f.atMs + f.forMs,
        order,
        apply: (r) => {
          for (const s of set) if (r[s.i] === s.after) r[s.i] = s.before;
        },
      });
    }
  });
  changes.sort((x, y) => x.tMs - y.tMs || x.order - y.order);
  const totals = scenario.consumers.map(() => 0);
  let t = 0;
  for (const c of changes) {
    const to = Math.max(t, Math.min(c.tMs, scenario.durationMs));
    rates.forEach((r, i) => (totals[i]! += (r * (to - t)) / 1000));
    t = to;
    c.apply(rates);
  }
  rates.forEach((r, i) => (totals[i]! += (r * Math.max(0, scenario.durationMs - t)) / 1000));
  return totals;
}
