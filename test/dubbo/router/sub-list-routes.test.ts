/**
 * Routing a sub-list (a directory's providers with some set aside, see `markSubList`): the tag and zone
 * routers work it out from what they kept of the parent list, which every consumer instance shares. Each
 * result must equal routing a plain copy of the sub-list from scratch (the same providers in the same
 * order, the same trace), and be the sub-list, a list of the parent's, or a list marked as a sub-list of
 * one, so that what is cached per list (weight tables) is shared.
 */
import { describe, expect, it } from 'vitest';
import { keptOfSubList, markSubList, parentList } from '../../../src/dubbo/per-list.js';
import { ConditionStateRouter } from '../../../src/dubbo/router/condition/condition-state-router.js';
import { TagStateRouter } from '../../../src/dubbo/router/tag/tag-state-router.js';
import { ZoneStateRouter, type ZoneFallback } from '../../../src/dubbo/router/zone-state-router.js';
import type { StateRouter } from '../../../src/dubbo/router/router.js';
import { RpcInvocation, type Invoker } from '../../../src/dubbo/rpc.js';
import { URL } from '../../../src/dubbo/url.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { UrlInvoker } from './fixtures.js';

const ZONES = ['zoneA', 'zoneB', 'zoneC', 'zoneD', 'zoneE'];
const TAGS = ['canary', 'gray'];
// zoneB and zoneC are equally near zoneA, so `nearest` keeps them as one step.
const DISTANCE_MS: Record<string, number> = { zoneA: 0.2, zoneB: 2, zoneC: 2, zoneD: 9, zoneE: 30 };
const distance = (from: string, to: string) => (from === to ? 0.2 : from === 'zoneA' ? DISTANCE_MS[to] : 5);

function seeded(seed: number) {
  const rng = new RandomStreams(seed).stream('test-choices');
  return (n: number) => rng.nextInt(n);
}

/** A pushed list: providers in random zones (some without one), some carrying a static tag. */
function pushedList(rand: (n: number) => number, n: number): Invoker[] {
  return Array.from({ length: n }, (_, i) => {
    const zone = rand(8) === 0 ? '' : `&zone=${ZONES[rand(ZONES.length)]}`;
    const tag = rand(4) === 0 ? `&dubbo.tag=${TAGS[rand(TAGS.length)]}` : '';
    return new UrlInvoker(`dubbo://10.0.${i >> 8}.${i & 255}:20880/com.example.UserService?application=users${zone}${tag}`);
  });
}

/** `list` with each invoker left out with probability `dropPercent`%, in order, marked as its sub-list. */
function subListOf(rand: (n: number) => number, list: readonly Invoker[], dropPercent: number): Invoker[] {
  const sub = list.filter(() => rand(100) >= dropPercent);
  markSubList(sub, list);
  return sub;
}

function isOrderedPartOf(part: readonly Invoker[], whole: readonly Invoker[]): boolean {
  let j = 0;
  for (let i = 0; i < whole.length && j < part.length; i++) if (whole[i] === part[j]) j++;
  return j === part.length;
}

const routersUnderTest: Array<[string, () => StateRouter]> = [
  ['tag (static tags)', () => new TagStateRouter(null)],
  ...(
    [true, false, 'nearest', ['zoneD', 'zoneB'], ['zoneE']] as ZoneFallback[]
  ).map((fallback): [string, () => StateRouter] => [
    `zone, fallback ${JSON.stringify(fallback)}`,
    () => new ZoneStateRouter({ fallback, zoneFrom: 'attachment', zoneDistance: distance }),
  ]),
  ...['=> zone = $zone', '=> zone = zoneB,zoneD', 'method = getUser => zone != zoneC', '=> host = 10.0.0.1*', '=> host != $host', '=> dubbo.tag = canary'].flatMap(
    (rule): Array<[string, () => StateRouter]> => [
      [`condition ${rule}`, () => new ConditionStateRouter(rule)],
      [`condition ${rule}, force`, () => new ConditionStateRouter(rule, { force: true })],
    ],
  ),
];

// Consumer instances of two groups (another zone) and two instances of one group (another host).
const CONSUMERS = [
  'consumer://10.10.0.9/com.example.UserService?application=web&zone=zoneA',
  'consumer://10.0.0.5/com.example.UserService?application=web&zone=zoneB',
  'consumer://10.0.0.3/com.example.UserService?application=web&zone=zoneB',
].map((u) => URL.valueOf(u));

const CALLS: Array<Record<string, string>> = [
  {},
  { 'dubbo.tag': 'canary' },
  { 'dubbo.tag': 'missing' },
  { 'dubbo.tag': 'gray', 'dubbo.force.tag': 'true' },
  { zone: 'zoneB' },
  { zone: 'zoneE' },
  { zone: 'zoneX' },
];

describe('routing sub-lists from the parent list', () => {
  it.each(routersUnderTest)('%s: a sub-list routes as a plain copy of it, and its result is marked against the parent result', (_, make) => {
    const rand = seeded(11);
    let derived = 0;
    for (let round = 0; round < 60; round++) {
      const pushed = pushedList(rand, 1 + rand(60));
      // Sub-lists as a directory makes them: a few providers set aside, then more of them, then nearly all.
      const firstSub = subListOf(rand, pushed, 10);
      const subs = [firstSub, subListOf(rand, firstSub, 30), subListOf(rand, pushed, 90)];
      // Every consumer instance routes the same pushed list with a router of its own.
      for (const consumer of CONSUMERS) {
        const router = make();
        router.notify?.(pushed);
        for (const attachments of CALLS) {
          const call = () => new RpcInvocation({ methodName: 'getUser', attachments });
          const ofParent = router.route(pushed, consumer, call()).invokers;
          for (const sub of subs) {
            const fast = router.route(sub, consumer, call());
            const plain = router.route([...sub], consumer, call());
            expect(fast.invokers).toEqual(plain.invokers);
            expect(fast.invokers.every((inv, i) => inv === plain.invokers[i])).toBe(true);
            expect(fast.trace).toEqual(plain.trace);
            const out = fast.invokers;
            if (out === sub || out === ofParent || out.length === 0) continue;
            derived++;
            const markedAgainst = parentList(out);
            // Unmarked: a list of the parent's (a step of its fallback order the sub-list holds whole), the same
            // object at every route.
            if (markedAgainst === undefined) expect(router.route(sub, consumer, call()).invokers).toBe(out);
            // Marked: an ordered part of what the parent's route kept (or of a step of its fallback order).
            else expect(isOrderedPartOf(out, markedAgainst) && isOrderedPartOf(markedAgainst, pushed)).toBe(true);
          }
        }
      }
    }
    // The fast paths were taken (not only the trivial results).
    expect(derived).toBeGreaterThan(10);
  });
});

describe("the zone router's fallback order of a parent list", () => {
  it('is ordered again when the distances change (an rtt fault), for its sub-lists too', () => {
    const distances: Record<string, number> = { zoneB: 2, zoneC: 9 };
    const router = new ZoneStateRouter({ fallback: 'nearest', zoneFrom: 'local', zoneDistance: (_, to) => distances[to] });
    const consumer = URL.valueOf('consumer://10.10.0.9/com.example.UserService?zone=zoneA');
    const pushed = ['zoneB', 'zoneC', 'zoneB', 'zoneC'].map((z, i) => new UrlInvoker(`dubbo://10.0.0.${i}:20880/S?zone=${z}`));
    const call = new RpcInvocation({ methodName: 'm' });
    const zonesOf = (invokers: Invoker[]) => invokers.map((inv) => inv.getUrl().getParameter('zone'));
    const first = [pushed[0]!, pushed[1]!, pushed[3]!];
    markSubList(first, pushed);
    expect(zonesOf(router.route(first, consumer, call).invokers)).toEqual(['zoneB']);
    distances.zoneC = 1;
    const second = [pushed[0]!, pushed[1]!, pushed[2]!];
    markSubList(second, pushed);
    const result = router.route(second, consumer, call);
    expect(zonesOf(result.invokers)).toEqual(['zoneC']);
    expect(result.trace).toEqual(router.route([...second], consumer, call).trace);
  });
});

describe('keptOfSubList', () => {
  const list = Array.from({ length: 6 }, (_, i) => new UrlInvoker(`dubbo://10.0.0.${i}:20880/S?i=${i}`));
  const even = list.filter((_, i) => i % 2 === 0);

  it('returns the sub-list itself when the filter keeps all of it', () => {
    const sub = [list[0]!, list[2]!];
    markSubList(sub, list);
    expect(keptOfSubList(sub, list, even)).toBe(sub);
  });

  it("returns the parent's result when the sub-list left out none of it", () => {
    const sub = [list[0]!, list[1]!, list[2]!, list[4]!];
    markSubList(sub, list);
    expect(keptOfSubList(sub, list, even)).toBe(even);
  });

  it("otherwise returns what the sub-list holds of the parent's result, marked against it", () => {
    const sub = [list[1]!, list[2]!, list[3]!, list[5]!];
    markSubList(sub, list);
    const kept = keptOfSubList(sub, list, even);
    expect(kept).toEqual([list[2]!]);
    expect(parentList(kept)).toBe(even);
  });
});
