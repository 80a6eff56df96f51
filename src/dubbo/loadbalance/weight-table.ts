/**
 * The weights `AbstractLoadBalance.getWeight` gives every invoker of one list for one method, with
 * RandomLoadBalance's running totals and flags, cached per list object and method until the first
 * moment any of them can change (a warmup step, the end of a warmup, a start timestamp reached).
 * Lists are immutable and shared by every consumer instance that holds the same list version, so
 * a table is built once per list, method and weight step instead of once per pick. It owns no
 * selection rule: the load balancers read it in place of calling `getWeight` per invoker, and
 * pick exactly what Dubbo's linear scans pick for the same random draws.
 */
import type { Rng } from '../../engine/random.js';
import { indexesOf, matchInPrevious, parentList, previousVersion, subListFacts } from '../per-list.js';
import type { Invoker } from '../rpc.js';
import { calculateWarmupWeight, warmupStep, weightAt, weightInputsOf, type WeightInputs } from './load-balance.js';

/** The weights of one list for one method, valid for clock times in `[validFromMs, validUntilMs)`. */
export interface WeightTable {
  /** `getWeight` of each invoker, in list order. */
  readonly weights: readonly number[];
  /** Running totals (RandomLoadBalance's `weights[]`): `prefix[i]` = sum of `weights[0..i]`. */
  readonly prefix: readonly number[];
  readonly totalWeight: number;
  /** RandomLoadBalance's flag, computed as Dubbo does: every running total equals `weight * (i + 1)`. */
  readonly sameWeight: boolean;
  readonly validFromMs: number;
  readonly validUntilMs: number;
  /** Each invoker's weight inputs, in list order (read once per list and method). */
  readonly inputs: readonly WeightInputs[];
  /** Per invoker, a clock time no later than the first at which its weight can differ from `weights[i]`. */
  readonly changesMs: readonly number[];
}

/**
 * An array of `length` numbers, every slot to be written by the caller. PERF: plain arrays, not typed
 * ones: a typed array of more than 64 bytes is allocated outside the heap (an ArrayBuffer) at some 650 ns
 * each, ten times a plain array of a few hundred numbers, and tables are built per list version, weight
 * step and failover reselect.
 */
export function numbers(length: number): number[] {
  return new Array<number>(length);
}

// PERF: keyed by the list object; a list is replaced, never mutated, so a key never goes stale.
const tables = new WeakMap<readonly Invoker[], Map<string, WeightTable>>();

// PERF: failover's reselect draws a list of a few invokers from the list it picked from, for one pick,
// on every retry that hit a provider already tried or unavailable (a crashed zone: most retries). Its table
// was built and kept like any list's; it is read off the list it was drawn from instead, and not kept.
let drawnList: readonly Invoker[] | undefined;
let drawnFrom: readonly Invoker[] | undefined;

/**
 * Says that `list`, about to be picked from once, holds invokers drawn from `source` (any order, repeats
 * allowed; any that `source` does not hold are weighed on their own).
 */
export function markDrawnFrom(list: readonly Invoker[], source: readonly Invoker[]): void {
  drawnList = list;
  drawnFrom = source;
}

/**
 * Ends `markDrawnFrom` once its pick is made: the two lists are let go. Held on, they kept their invokers, and
 * through them the whole world, reachable after its simulation ended: a thread that ran another simulation
 * built it beside the last one (the seed-scale estate: 3.0 GB for two in turn on one thread, 1.6 GB for one).
 */
export function forgetDrawn(): void {
  drawnList = undefined;
  drawnFrom = undefined;
}

/** The (cached) weight table of `invokers` for `method` at clock time `nowMs`. */
export function weightTableOf(invokers: readonly Invoker[], method: string, nowMs: number): WeightTable {
  if (invokers === drawnList) return drawnTable(invokers, drawnFrom!, method, nowMs);
  let byMethod = tables.get(invokers);
  if (byMethod === undefined) tables.set(invokers, (byMethod = new Map()));
  const cached = byMethod.get(method);
  if (cached !== undefined && nowMs >= cached.validFromMs && nowMs < cached.validUntilMs) return cached;
  let table: WeightTable;
  if (cached !== undefined && nowMs >= cached.validFromMs) table = refreshWeightTable(cached, nowMs);
  else {
    const parent = parentList(invokers);
    table = parent === undefined ? buildWeightTable(invokers, method, nowMs) : subTable(weightTableOf(parent, method, nowMs), parent, invokers, nowMs);
  }
  byMethod.set(method, table);
  return table;
}

/**
 * The first index whose running total exceeds `offset` (0 <= offset < the total): RandomLoadBalance's
 * pick for a weighted draw. Zero weights share their predecessor's total, so they are never found.
 */
export function firstIndexAbove(prefix: readonly number[], offset: number, length: number): number {
  let lo = 0;
  let hi = length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (prefix[mid]! <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Running totals of some weights, their sum, and whether they are all equal. */
export interface RunningTotals {
  readonly prefix: readonly number[];
  readonly total: number;
  readonly allEqual: boolean;
}

/** The running totals of `weights` (non-negative integers), for `drawIndex`. */
export function runningTotals(weights: ArrayLike<number>): RunningTotals {
  const prefix = numbers(weights.length);
  let total = 0;
  let allEqual = true;
  for (let i = 0; i < weights.length; i++) {
    total += weights[i]!;
    prefix[i] = total;
    if (allEqual && weights[i] !== weights[0]) allEqual = false;
  }
  return { prefix, total, allEqual };
}

/**
 * `weightedRandomIndex` over precomputed running totals: when the weights differ and sum above 0, the
 * first index whose running total exceeds a draw below the total, else a uniform index. The same
 * draw and index as Dubbo's scans (RandomLoadBalance, and the tie-breaks of leastactive and
 * shortestresponse over every invoker).
 */
export function drawIndex(prefix: readonly number[], total: number, allEqual: boolean, rng: Rng): number {
  return !allEqual && total > 0 ? firstIndexAbove(prefix, rng.nextInt(total), prefix.length) : rng.nextInt(prefix.length);
}

/**
 * RandomLoadBalance's weighted pick over `invokers` for `method` at `nowMs`: the index Dubbo's scan of
 * the list's running totals gives, with the same one draw from `rng` (see `drawIndex`).
 */
export function listWeightedIndex(invokers: readonly Invoker[], method: string, nowMs: number, rng: Rng): number {
  const parent = parentList(invokers);
  const table = weightTableOf(parent ?? invokers, method, nowMs);
  if (parent === undefined) return drawIndex(table.prefix, table.totalWeight, table.sameWeight, rng);
  return subListIndex(invokers, parent, table, table.prefix, table.totalWeight, table.sameWeight, method, rng);
}

/** Weights of a list, in list order (a weight table, or weights multiplied by something). */
export interface ListWeights {
  readonly weights: ArrayLike<number>;
}

/** A sub-list's figures against one set of its parent list's weights. */
interface SubListTotals {
  of: ListWeights;
  total: number;
  allEqual: boolean;
}

/**
 * `drawIndex` over a sub-list (see `markSubList`) from its parent's weights `of`, their running totals
 * `prefix`, `total` and whether they are all equal: the same draw from `rng` and the same index as
 * `drawIndex` over the sub-list's own running totals. `key` names what `of` is for (e.g. the method):
 * the sub-list's totals are kept per key until `of` changes.
 */
// PERF: a consumer instance that sets providers aside (a crashed zone refuses its connections) holds a list
// of its own, and while providers warm up the weights change every few ms. A table of that list (arrays as
// long as the list, per method) was then rebuilt at nearly every call of every instance, and kept per
// instance: O(providers) per call and hundreds of MB with thousands of instances. The pick is read off
// the parent list's weights instead, which every instance shares, and the few indexes the sub-list leaves
// out: the sub-list's running total at parent index j is the parent's minus the weights left out before j,
// so the first sub-list index whose running total exceeds the draw is the parent's first index above it
// leaving those out (`firstAboveLeavingOut`), with the draw Dubbo's scan of the sub-list would make.
export function subListIndex(
  sub: readonly Invoker[],
  parent: readonly Invoker[],
  of: ListWeights,
  prefix: readonly number[],
  total: number,
  allEqual: boolean,
  key: string,
  rng: Rng,
): number {
  const excluded = excludedOf(sub, parent);
  // Kept on the sub-list (see `subListFacts`), per key: the parent's indexes it leaves out, and its totals.
  const facts = subListFacts(sub)!;
  const byKey = (facts.byKey ??= new Map()) as Map<string, SubListTotals>;
  let totals = byKey.get(key);
  if (totals === undefined || totals.of !== of) byKey.set(key, (totals = { of, ...keptTotals(of, total, allEqual, excluded, sub.length) }));
  if (totals.allEqual || totals.total <= 0) return rng.nextInt(sub.length);
  const at = firstAboveLeavingOut(prefix, of.weights, excluded, rng.nextInt(totals.total), parent.length);
  return at - leftOutBefore(excluded, at);
}

/**
 * The first index of a list whose running total, less the weights of the `excluded` indexes (ascending),
 * exceeds `offset` (0 <= offset < that total): the pick of a scan over the list without them. That total
 * never decreases and stays flat across an excluded index, so the index found is not excluded; it is
 * found segment by segment between the excluded indexes, in O(excluded + log n).
 */
export function firstAboveLeavingOut(prefix: readonly number[], weights: ArrayLike<number>, excluded: ArrayLike<number>, offset: number, length: number): number {
  let leftOut = 0;
  let lo = 0;
  for (let m = 0; m <= excluded.length; m++) {
    const hi = m < excluded.length ? excluded[m]! - 1 : length - 1;
    if (lo <= hi && prefix[hi]! - leftOut > offset) {
      let a = lo;
      let b = hi;
      while (a < b) {
        const mid = (a + b) >>> 1;
        if (prefix[mid]! - leftOut <= offset) a = mid + 1;
        else b = mid;
      }
      return a;
    }
    if (m < excluded.length) {
      leftOut += weights[excluded[m]!]!;
      lo = excluded[m]! + 1;
    }
  }
  throw new Error('a weighted draw fell past the running totals of its list');
}

/** The first index that is not one of the `excluded` indexes (ascending). */
export function firstKept(excluded: ArrayLike<number>): number {
  let first = 0;
  while (first < excluded.length && excluded[first] === first) first++;
  return first;
}

/** How many of the `excluded` indexes (ascending) come before index `at`. */
export function leftOutBefore(excluded: ArrayLike<number>, at: number): number {
  let before = 0;
  while (before < excluded.length && excluded[before]! < at) before++;
  return before;
}

/**
 * The total weight of a list less its `excluded` indexes (ascending), and whether the `kept` invokers
 * left all weigh the same (RandomLoadBalance's sameWeight: every running total equals `weight * (i + 1)`,
 * which for weights >= 0 holds exactly then), from the list's `total` and `allEqual`.
 */
export function keptTotals(of: ListWeights, total: number, allEqual: boolean, excluded: ArrayLike<number>, kept: number): { total: number; allEqual: boolean } {
  const { weights } = of;
  let keptTotal = total;
  for (let m = 0; m < excluded.length; m++) keptTotal -= weights[excluded[m]!]!;
  let keptAllEqual = allEqual;
  if (!keptAllEqual && kept > 0) {
    const weight = weights[firstKept(excluded)]!;
    let excludedAlike = 0;
    for (let m = 0; m < excluded.length; m++) if (weights[excluded[m]!] === weight) excludedAlike++;
    keptAllEqual = weightCountOf(of, weight) - excludedAlike === kept;
  }
  return { total: keptTotal, allEqual: keptAllEqual };
}

/** The indexes of `parent` that its sub-list `sub` leaves out, ascending (worked out once per sub-list). */
export function excludedOf(sub: readonly Invoker[], parent: readonly Invoker[]): readonly number[] {
  const facts = subListFacts(sub);
  if (facts?.excluded !== undefined && facts.parent === parent) return facts.excluded;
  const excluded = numbers(parent.length - sub.length);
  let j = 0;
  let k = 0;
  for (let i = 0; i < parent.length; i++) {
    if (j < sub.length && parent[i] === sub[j]) j++;
    else if (k < excluded.length) excluded[k++] = i;
    else break;
  }
  if (j < sub.length || k !== excluded.length) throw new Error('a sub-list holds an invoker its parent list does not, or in another order');
  if (facts?.parent === parent) facts.excluded = excluded;
  return excluded;
}

const weightCounts = new WeakMap<ListWeights, Map<number, number>>();

/** How many invokers of the table's list weigh exactly `weight` (counted once per table). */
export function weightCountOf(table: ListWeights, weight: number): number {
  let counts = weightCounts.get(table);
  if (counts === undefined) {
    counts = new Map();
    const { weights } = table;
    for (let i = 0; i < weights.length; i++) counts.set(weights[i]!, (counts.get(weights[i]!) ?? 0) + 1);
    weightCounts.set(table, counts);
  }
  return counts.get(weight) ?? 0;
}

function buildWeightTable(invokers: readonly Invoker[], method: string, nowMs: number): WeightTable {
  // The newest earlier version of the list with a table for the method (an instance may weigh a version
  // only after the next ones were built: pushes reach instances over the push lag).
  for (let previous = previousVersion(invokers), steps = 0; previous !== undefined && steps < 4; previous = previousVersion(previous), steps++) {
    const before = tables.get(previous)?.get(method);
    if (before !== undefined && before.validFromMs <= nowMs) return nextVersionTable(before, previous, invokers, method, nowMs);
  }
  const length = invokers.length;
  const inputs = new Array<WeightInputs>(length);
  const weights = numbers(length);
  const changesMs = numbers(length);
  for (let i = 0; i < length; i++) {
    const w = weightInputsOf(invokers[i]!, method);
    inputs[i] = w;
    weights[i] = weightAt(w, nowMs);
    changesMs[i] = nextWeightChangeMs(w, nowMs);
  }
  return withTotals(weights, inputs, changesMs, nowMs);
}

// PERF: a table whose validity ended (a warming-up provider's weight stepped) is redone from the one
// before: only the invokers whose own change time has come are weighed again, the others keep their
// weight (each is valid until its own change time, which has not come). With hundreds of providers
// warming up at staggered start times, a list's table expires every few ms, and weighing every
// invoker again each time took a large share of a rolling restart.
function refreshWeightTable(previous: WeightTable, nowMs: number): WeightTable {
  const { inputs } = previous;
  const weights = previous.weights.slice();
  const changesMs = previous.changesMs.slice();
  for (let i = 0; i < weights.length; i++) {
    if (changesMs[i]! > nowMs) continue;
    weights[i] = weightAt(inputs[i]!, nowMs);
    changesMs[i] = nextWeightChangeMs(inputs[i]!, nowMs);
  }
  return withTotals(weights, inputs, changesMs, nowMs);
}

// PERF: the table of a list's next version (see `VersionChain`) from an earlier one's: an invoker both
// lists hold keeps its weight inputs, and its weight until its own change time (as `refreshWeightTable`
// does), and only the invokers new to the list, or whose change time has come, are weighed. In a rolling
// restart every change is a new list of hundreds of invokers, most of them warming up.
function nextVersionTable(before: WeightTable, previous: readonly Invoker[], invokers: readonly Invoker[], method: string, nowMs: number): WeightTable {
  const length = invokers.length;
  const inputs = new Array<WeightInputs>(length);
  const weights = numbers(length);
  const changesMs = numbers(length);
  let from = 0;
  for (let i = 0; i < length; i++) {
    const j = matchInPrevious(previous, invokers[i]!, from);
    if (j >= 0) {
      from = j + 1;
      inputs[i] = before.inputs[j]!;
      if (before.changesMs[j]! > nowMs) {
        weights[i] = before.weights[j]!;
        changesMs[i] = before.changesMs[j]!;
        continue;
      }
    } else inputs[i] = weightInputsOf(invokers[i]!, method);
    const w = inputs[i]!;
    weights[i] = weightAt(w, nowMs);
    changesMs[i] = nextWeightChangeMs(w, nowMs);
  }
  return withTotals(weights, inputs, changesMs, nowMs);
}

// The table of a list drawn from `source` (see `markDrawnFrom`), not kept: read off the table of the list
// `source` was made from, when it is a sub-list (a directory's list without its set-aside providers, one
// per instance and change), else of `source` itself; both that table and its index are shared.
function drawnTable(list: readonly Invoker[], source: readonly Invoker[], method: string, nowMs: number): WeightTable {
  const base = parentList(source) ?? source;
  const of = weightTableOf(base, method, nowMs);
  const at = indexesOf(base);
  const length = list.length;
  const inputs = new Array<WeightInputs>(length);
  const weights = numbers(length);
  const changesMs = numbers(length);
  for (let i = 0; i < length; i++) {
    const j = at.get(list[i]!);
    if (j !== undefined) {
      inputs[i] = of.inputs[j]!;
      weights[i] = of.weights[j]!;
      changesMs[i] = of.changesMs[j]!;
    } else {
      const w = (inputs[i] = weightInputsOf(list[i]!, method));
      weights[i] = weightAt(w, nowMs);
      changesMs[i] = nextWeightChangeMs(w, nowMs);
    }
  }
  return withTotals(weights, inputs, changesMs, nowMs);
}

// PERF: the table of a list made from `parent` by leaving invokers out (a directory's providers with the
// unavailable ones set aside, one list per consumer instance) is read off the parent's table, which every
// instance shares, instead of weighing each invoker again: after a zone crashes, thousands of instances
// each set its providers aside one at a time.
function subTable(of: WeightTable, parent: readonly Invoker[], sub: readonly Invoker[], nowMs: number): WeightTable {
  const length = sub.length;
  const inputs = new Array<WeightInputs>(length);
  const weights = numbers(length);
  const changesMs = numbers(length);
  let j = 0;
  for (let i = 0; i < parent.length && j < length; i++) {
    if (parent[i] !== sub[j]) continue;
    inputs[j] = of.inputs[i]!;
    weights[j] = of.weights[i]!;
    changesMs[j] = of.changesMs[i]!;
    j++;
  }
  if (j < length) throw new Error('a sub-list holds an invoker its parent list does not, or in another order');
  return withTotals(weights, inputs, changesMs, nowMs);
}

// The running totals, RandomLoadBalance's flag and the table's validity (the earliest change time).
function withTotals(weights: number[], inputs: readonly WeightInputs[], changesMs: number[], nowMs: number): WeightTable {
  const length = weights.length;
  const prefix = numbers(length);
  let totalWeight = 0;
  let sameWeight = true;
  let validUntilMs = Infinity;
  for (let i = 0; i < length; i++) {
    const weight = weights[i]!;
    totalWeight += weight;
    prefix[i] = totalWeight;
    if (sameWeight && totalWeight !== weight * (i + 1)) sameWeight = false;
    if (changesMs[i]! < validUntilMs) validUntilMs = changesMs[i]!;
  }
  return { weights, prefix, totalWeight, sameWeight, validFromMs: nowMs, validUntilMs, inputs, changesMs };
}

/**
 * A clock time no later than the first time after `nowMs` at which `weightAt(w, ·)` can differ from
 * `weightAt(w, nowMs)` (Infinity when it never changes). `weightAt` depends on the clock only through
 * `uptime = trunc(now - timestamp)`: 1 while uptime < 0, the full weight at 0, the warmup weight
 * (non-decreasing in uptime) while 0 < uptime < warmup, the full weight from then on.
 */
export function nextWeightChangeMs(w: WeightInputs, nowMs: number): number {
  if (w.registry || w.weight <= 0 || w.timestamp <= 0) return Infinity;
  const uptime = Math.trunc(nowMs - w.timestamp);
  if (uptime >= w.warmup) return Infinity;
  // Before the start (uptime <= -1) the weight is 1 until the uptime reaches -0; at 0 it is full until 1.
  if (uptime < 0) return w.timestamp - 1;
  if (uptime === 0) return w.timestamp + 1;
  const current = calculateWarmupWeight(uptime, w.warmup, w.weight);
  if (current >= w.weight) return Infinity;
  // The first uptime u > uptime whose warmup weight passes `current` (or the end of the warmup). The
  // warmup weight is non-decreasing in u (every float step of calculateWarmupWeight is monotonic).
  const step = warmupStep(w.warmup, w.weight);
  // Start near (current + 1) * step, then walk to the exact first uptime (float rounding moves it by a few).
  let u = Math.max(uptime + 1, Math.ceil((current + 1) * step) - 1);
  while (u > uptime + 1 && calculateWarmupWeight(u - 1, w.warmup, w.weight) !== current) u--;
  while (u < w.warmup && calculateWarmupWeight(u, w.warmup, w.weight) === current) u++;
  return w.timestamp + Math.min(u, w.warmup);
}
