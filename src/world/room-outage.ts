/**
 * A room that goes dark (SPEC 2.8 `roomDown` / `roomUp`), on the consumer and registry side: the
 * room's consumer groups stop (no arrivals; requests in flight end as `lost`), the registry loses
 * the room (`RegistryModel.setRoomDown`), and a `shift` moves the dark groups' traffic to the groups
 * of the same application in other rooms, as a GSLB would. The room's providers are the fault
 * timeline's (`faults.ts` black-holes them as `zoneDown` does).
 *
 * A room coming back is a power or network loss ending: its consumer processes start again. Their
 * arrivals resume at their rates, and their registry subscriptions read the current list again
 * (`setRoomDown(zone, false)`), as a restarted process's `subscribe` does; per-process Dubbo state
 * (RpcStatus, round-robin weights) is kept (DIVERGENCE: a restarted JVM would start it afresh).
 */
import type { ConsumerGroup } from './consumer.js';
import type { World } from './world.js';

/** What one `roomDown` did, to undo it. */
interface DarkRoom {
  readonly groups: readonly ConsumerGroup[];
  /** Rate added to each target group by the shift (per second). */
  readonly shifted: ReadonlyArray<readonly [ConsumerGroup, number]>;
}

/** The dark rooms of one world. */
export class RoomOutages {
  readonly #world: World;
  readonly #dark = new Map<string, DarkRoom>();

  constructor(world: World) {
    this.#world = world;
    // PERF: consumer groups keep their requests in flight only in a world where a room can go dark.
    if (world.scenario.faults.some((f) => f.action.kind === 'roomDown')) for (const g of world.consumerGroups) g.trackInFlight();
  }

  /** True while `zone` is dark. */
  isDark(zone: string): boolean {
    return this.#dark.has(zone);
  }

  /**
   * `zone` goes dark now: its consumer groups stop (in-flight requests end `lost`), the registry loses
   * it, and `shift` (zone → share, normalized to sum 1) moves each dark group's rate to the groups of
   * its application in those zones, split among several in one zone in proportion to their own rates
   * (evenly when they are all 0). Returns the requests lost; nothing happens if the room is already dark.
   */
  down(zone: string, shift: Readonly<Record<string, number>> | undefined): number {
    if (this.#dark.has(zone)) return 0;
    const world = this.#world;
    const groups = world.consumerGroups.filter((g) => g.spec.zone === zone);
    let lost = 0;
    for (const g of groups) lost += g.setDark(true);
    world.registry.setRoomDown(zone, true);
    const shifted = shift === undefined ? [] : this.#shift(groups, shift);
    this.#dark.set(zone, { groups, shifted });
    if (lost > 0) world.observer.count('room.lostRequests', lost);
    return lost;
  }

  /** `zone` comes back now (nothing happens if it is not dark): consumers resume, the shift is undone, the registry reaches the room again. */
  up(zone: string): void {
    const room = this.#dark.get(zone);
    if (room === undefined) return;
    this.#dark.delete(zone);
    for (const [g, perSec] of room.shifted) g.addShiftedRate(-perSec);
    this.#world.registry.setRoomDown(zone, false);
    for (const g of room.groups) g.setDark(false);
  }

  #shift(groups: readonly ConsumerGroup[], shift: Readonly<Record<string, number>>): Array<[ConsumerGroup, number]> {
    const all = this.#world.consumerGroups;
    const total = Object.values(shift).reduce((s, w) => s + w, 0);
    const out: Array<[ConsumerGroup, number]> = [];
    for (const dark of groups) {
      const rate = dark.ratePerSec;
      if (!(rate > 0) || !(total > 0)) continue;
      for (const [target, weight] of Object.entries(shift)) {
        const receivers = all.filter((g) => g.spec.zone === target && g.spec.application === dark.spec.application);
        if (receivers.length === 0) continue;
        const own = receivers.reduce((s, g) => s + g.ratePerSec, 0);
        for (const g of receivers) {
          const part = own > 0 ? g.ratePerSec / own : 1 / receivers.length;
          const perSec = (rate * weight * part) / total;
          if (!(perSec > 0)) continue;
          g.addShiftedRate(perSec);
          out.push([g, perSec]);
        }
      }
    }
    return out;
  }
}
