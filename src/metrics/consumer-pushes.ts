/**
 * Registry pushes by consumer group (summary `registry.byConsumerGroup`): per group its instances, pushes and
 * bytes, the spread of the per-instance figures (min, median, max) and the few instances that got the most
 * bytes, by name; the per-instance map (`registry.byConsumer`) only when asked (`run --per-instance`). The
 * summary's size grows with groups, not with instances. A subscriber that stands for `members` instances (a
 * cohort's representative) counts `members` times: in the totals with each push, and in the spread with its
 * own figures (each of its members received each of its pushes).
 */
import type { ConsumerGroupPushes, InstancePushes, PushSpread, SubscriberPushes } from './summary.js';

/** How many instances `worst` names per group. */
export const WORST_INSTANCES = 3;

/** One consumer group's pushes: the totals over its members. */
interface GroupAcc {
  pushes: number;
  pushBytes: number;
}

/** One subscriber's pushes: its figures per member, how many instances it stands for, and its group. */
interface SubscriberAcc extends InstancePushes {
  members: number;
  readonly group: GroupAcc;
}

// The keys are unique (a map's), so a comparator never sees two equal ones.
const byKey = <T>([a]: [string, T], [b]: [string, T]): number => (a < b ? -1 : 1);

/** Accumulates pushes per consumer group and per subscriber as the recorder gets them. */
export class ConsumerPushes {
  readonly #groups = new Map<string, GroupAcc>();
  // PERF: one lookup per push, by instance id; the group is looked up once per subscriber. One map of every
  // subscriber, not one per group as well: at 5·10^5 instances each entry of a map counts.
  readonly #subscribers = new Map<string, SubscriberAcc>();
  readonly #perInstance: boolean;
  // PERF: a consumer instance catching up on held pushes reports several in a row.
  #lastId: string | undefined;
  #last: SubscriberAcc | undefined;

  /** `perInstance`: the summary also lists every subscriber (`registry.byConsumer`). */
  constructor(perInstance = false) {
    this.#perInstance = perInstance;
  }

  /**
   * One push of `bytes` to subscriber `instance`, received by each of its `members` instances. An instance
   * belongs to one group: the `group` of its first push.
   */
  record(instance: string, group: string, bytes: number, members: number): void {
    let s = instance === this.#lastId ? this.#last : this.#subscribers.get(instance);
    if (s === undefined) {
      let g = this.#groups.get(group);
      if (g === undefined) this.#groups.set(group, (g = { pushes: 0, pushBytes: 0 }));
      s = { pushes: 0, pushBytes: 0, members, group: g };
      this.#subscribers.set(instance, s);
    }
    this.#lastId = instance;
    this.#last = s;
    s.group.pushes += members;
    s.group.pushBytes += members * bytes;
    s.pushes++;
    s.pushBytes += bytes;
    // A cohort that grew or shrank: the spread counts it with its latest size.
    s.members = members;
  }

  /** `registry.byConsumerGroup`: every group that was pushed to, by key. */
  byConsumerGroup(): Record<string, ConsumerGroupPushes> {
    const subscribersOf = new Map<GroupAcc, Array<InstancePushes & { id: string; members: number }>>();
    for (const [id, { pushes, pushBytes, members, group }] of this.#subscribers) {
      let list = subscribersOf.get(group);
      if (list === undefined) subscribersOf.set(group, (list = []));
      list.push({ id, pushes, pushBytes, members });
    }
    const out: Record<string, ConsumerGroupPushes> = {};
    for (const [key, g] of [...this.#groups].sort(byKey)) {
      const subs = subscribersOf.get(g)!;
      const worst = subs
        .sort((a, b) => b.pushBytes - a.pushBytes || (a.id < b.id ? -1 : 1))
        .slice(0, WORST_INSTANCES)
        .map(({ id, pushes, pushBytes, members }) => withMembers({ id, pushes, pushBytes }, members));
      out[key] = {
        instances: subs.reduce((n, s) => n + s.members, 0),
        pushes: g.pushes,
        pushBytes: g.pushBytes,
        perInstance: {
          pushes: spreadOf(subs.map((s) => [s.pushes, s.members])),
          pushBytes: spreadOf(subs.map((s) => [s.pushBytes, s.members])),
        },
        worst,
      };
    }
    return out;
  }

  /**
   * `registry.byConsumer` (every subscriber by instance id), or undefined when not asked for. A subscriber that
   * stands for several instances (a cohort's representative, named as its first member) is one entry with its
   * figures per member and its `members`, as in `worst`.
   */
  byConsumer(): Record<string, SubscriberPushes> | undefined {
    if (!this.#perInstance) return undefined;
    const all = [...this.#subscribers].map(([id, s]): [string, SubscriberPushes] => [id, withMembers({ pushes: s.pushes, pushBytes: s.pushBytes }, s.members)]);
    return Object.fromEntries(all.sort(byKey));
  }
}

/** `figures`, with `members` when the subscriber stands for more than one instance. */
function withMembers<T extends InstancePushes>(figures: T, members: number): T & { members?: number } {
  return members === 1 ? figures : { ...figures, members };
}

/**
 * Min, median and max of the values, each `[value, count]` counting `count` times (the median of an even count
 * is the mean of the two middle values, as `simple-statistics`' median).
 */
export function spreadOf(weighted: ReadonlyArray<readonly [number, number]>): PushSpread {
  const sorted = weighted.filter(([, n]) => n > 0).sort(([a], [b]) => a - b);
  const total = sorted.reduce((n, [, c]) => n + c, 0);
  if (total === 0) return { min: 0, median: 0, max: 0 };
  // The values at the 0-based ranks ⌊(total−1)/2⌋ and ⌊total/2⌋ of the expanded list.
  const lo = Math.floor((total - 1) / 2);
  const hi = Math.floor(total / 2);
  let seen = 0;
  let loValue = 0;
  let hiValue = 0;
  // Values in rising rank: the last one starting at or before rank `lo` holds it, the first one reaching past
  // rank `hi` holds that.
  for (const [v, c] of sorted) {
    if (seen <= lo) loValue = v;
    if (hi < seen + c) {
      hiValue = v;
      break;
    }
    seen += c;
  }
  return { min: sorted[0]![0], median: (loValue + hiValue) / 2, max: sorted[sorted.length - 1]![0] };
}
