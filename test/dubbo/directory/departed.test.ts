/**
 * Which set-aside invokers a directory forgets when a new list replaces its list (`departedBetween`), and
 * its list without the set-aside ones (`withoutInvokers`), against the plain filters, over list versions as pushes make them (a few providers leave, a few come
 * in anywhere, now and then a stretch is reordered, now and then the whole list is shuffled).
 */
import { describe, expect, it } from 'vitest';
import { departedBetween, withoutInvokers } from '../../../src/dubbo/directory/directory.js';
import { excludedOf } from '../../../src/dubbo/loadbalance/weight-table.js';
import { parentList, subListFacts } from '../../../src/dubbo/per-list.js';
import type { Invoker } from '../../../src/dubbo/rpc.js';
import { RandomStreams } from '../../../src/engine/random.js';

const invoker = (name: string) => ({ name }) as unknown as Invoker;

describe('departedBetween', () => {
  it('gives exactly the invokers of the old list missing from the new one, in the old order', () => {
    const rng = new RandomStreams(5).stream('test-choices');
    const pool = Array.from({ length: 400 }, (_, i) => invoker(`p${i}`));
    let before = pool.slice(0, 1 + rng.nextInt(300));
    let found = 0;
    for (let step = 0; step < 2_000; step++) {
      const after = before.filter(() => rng.nextInt(40) > 0);
      for (let k = rng.nextInt(4); k > 0; k--) {
        const inv = pool[rng.nextInt(pool.length)]!;
        if (!after.includes(inv)) after.splice(rng.nextInt(after.length + 1), 0, inv);
      }
      if (rng.nextInt(10) === 0 && after.length > 6) {
        const at = rng.nextInt(after.length - 5);
        after.splice(at, 5, ...after.slice(at, at + 5).reverse());
      }
      // A list in another order altogether (application-level discovery orders by hash).
      if (rng.nextInt(50) === 0) after.sort(() => rng.nextInt(3) - 1);
      const departed = departedBetween(before, after);
      expect(departed, `step ${step}`).toEqual(before.filter((inv) => !after.includes(inv)));
      // Worked out once per pair of lists.
      expect(departedBetween(before, after)).toBe(departed);
      found += departed.length;
      before = after.length > 0 ? after : pool.slice(0, 50);
    }
    expect(found).toBeGreaterThan(1_000);
  });
});

describe('withoutInvokers', () => {
  it('gives the list without the set-aside invokers, in order, whoever else is set aside', () => {
    const rng = new RandomStreams(6).stream('test-choices');
    const pool = Array.from({ length: 300 }, (_, i) => invoker(`p${i}`));
    for (let step = 0; step < 1_000; step++) {
      const list = pool.filter(() => rng.nextInt(4) > 0);
      // Set aside: some of the list, and now and then one it no longer holds.
      const picked = list.filter(() => rng.nextInt(1 + rng.nextInt(20)) === 0);
      // In the order they were set aside, not the list's.
      for (let i = picked.length - 1; i > 0; i--) {
        const j = rng.nextInt(i + 1);
        [picked[i], picked[j]] = [picked[j]!, picked[i]!];
      }
      const left = new Set(picked);
      if (rng.nextInt(5) === 0) left.add(pool[rng.nextInt(pool.length)]!);
      // Now and then a list holding one invoker twice.
      if (rng.nextInt(20) === 0 && list.length > 0) list.splice(rng.nextInt(list.length), 0, list[rng.nextInt(list.length)]!);
      const kept = withoutInvokers(list, left);
      expect(kept, `step ${step}`).toEqual(list.filter((i) => !left.has(i)));
      // Marked as a sub-list of `list`; the indexes it leaves out, when kept with it, are those a walk finds.
      expect(parentList(kept)).toBe(list);
      const excluded = subListFacts(kept)!.excluded;
      if (new Set(list).size === list.length) {
        expect(excluded, `step ${step}`).toBeDefined();
        expect([...excluded!], `step ${step}`).toEqual([...excludedOf([...kept], list)]);
      } else expect(excluded).toBeUndefined();
    }
  });
});
