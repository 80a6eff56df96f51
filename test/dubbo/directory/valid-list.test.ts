/**
 * A directory's valid list (its providers less those connectivity validation set aside), worked out when
 * read, against a plain model of the list as it was kept before: filtered at once when an invoker is set
 * aside or put back, or the up-to-date list less that invoker (the first of two, in a list that holds an
 * invoker twice). Random pushes, set-asides, availability flips, reconnect runs and reads.
 */
import { describe, expect, it } from 'vitest';
import { DynamicDirectory } from '../../../src/dubbo/directory/directory.js';
import { OK, type Invoker, type Result } from '../../../src/dubbo/rpc.js';
import { RandomStreams } from '../../../src/engine/random.js';
import type { Proc } from '../../../src/engine/simulation.js';
import type { URL } from '../../../src/dubbo/url.js';
import { consumerUrl, makeRuntime, providerUrl, registryUrl } from '../cluster/fixtures.js';

class FlakyInvoker implements Invoker {
  readonly name: string;
  readonly #url: URL;
  available = true;
  constructor(name: string, url: URL) {
    this.name = name;
    this.#url = url;
  }
  getUrl(): URL {
    return this.#url;
  }
  isAvailable(): boolean {
    return this.available;
  }
  *invoke(): Proc<Result> {
    return OK;
  }
}

/** The valid list as AbstractDirectory kept it before it was worked out on read (no reconnect draws: < 10 set aside). */
class EagerModel {
  invokers: Invoker[] = [];
  invalidated = new Set<Invoker>();
  valid: Invoker[] = [];
  stale = false;

  notify(list: Invoker[]): void {
    for (const inv of this.invokers) if (!list.includes(inv)) this.invalidated.delete(inv);
    this.invokers = list;
    this.stale = this.invalidated.size > 0;
    if (!this.stale) this.valid = list;
  }
  read(): Invoker[] {
    if (this.stale) this.#filter();
    return this.valid;
  }
  setAside(inv: Invoker): void {
    if (!this.invokers.includes(inv) || this.invalidated.has(inv)) return;
    this.invalidated.add(inv);
    const at = this.stale ? -1 : this.valid.indexOf(inv);
    if (at >= 0) this.valid = this.valid.filter((_, i) => i !== at);
    else this.#filter();
  }
  reconnect(): void {
    let changed = false;
    for (const inv of [...this.invalidated]) {
      if (!this.invokers.includes(inv) || inv.isAvailable()) {
        this.invalidated.delete(inv);
        changed = true;
      }
    }
    if (changed) this.#filter();
  }
  #filter(): void {
    this.stale = false;
    this.valid = this.invalidated.size === 0 ? this.invokers : this.invokers.filter((i) => !this.invalidated.has(i));
  }
}

describe('DynamicDirectory valid list, worked out when read', () => {
  it('is, at every read, the list the eager filter kept (lists with an invoker twice included)', () => {
    const rng = new RandomStreams(11).stream('test-choices');
    const { sim, runtime } = makeRuntime(3);
    const cUrl = consumerUrl();
    const pool = Array.from({ length: 30 }, (_, i) => new FlakyInvoker(`p${i}`, providerUrl(i, cUrl)));
    const directory = new DynamicDirectory(runtime, registryUrl(), cUrl);
    const model = new EagerModel();
    const push = (): void => {
      const list: Invoker[] = pool.filter(() => rng.nextInt(3) > 0);
      if (list.length === 0) list.push(pool[0]!);
      // Now and then a list holding an invoker twice.
      if (rng.nextInt(3) === 0) list.splice(rng.nextInt(list.length + 1), 0, list[rng.nextInt(list.length)]!);
      directory.notify(list);
      model.notify(list);
    };
    push();
    let reads = 0;
    let setAside = 0;
    let duplicateReads = 0;
    for (let step = 0; step < 20_000; step++) {
      const op = rng.nextInt(10);
      if (op === 0) push();
      else if (op <= 4) {
        // Set aside at most 9 (the reconnect task then checks each one, no random draws).
        if (model.invalidated.size < 9) {
          // Half the time one the list holds (so now and then the one it holds twice).
          const inv = rng.nextInt(2) === 0 ? pool[rng.nextInt(pool.length)]! : model.invokers[rng.nextInt(model.invokers.length)]!;
          inv.available = false;
          directory.addInvalidateInvoker(inv);
          model.setAside(inv);
          setAside++;
        }
      } else if (op === 5) pool[rng.nextInt(pool.length)]!.available = true;
      else if (op === 6) {
        // One reconnect period: the directory's task runs, the model's checks the same invokers.
        sim.run({ until: sim.now + 1_000 });
        model.reconnect();
      } else {
        const read = directory.getValidInvokers();
        expect(read, `step ${step}`).toEqual(model.read());
        reads++;
        if (new Set(model.invokers).size !== model.invokers.length) duplicateReads++;
      }
    }
    expect(reads).toBeGreaterThan(5_000);
    expect(setAside).toBeGreaterThan(3_000);
    expect(duplicateReads).toBeGreaterThan(1_000);
  });
});
