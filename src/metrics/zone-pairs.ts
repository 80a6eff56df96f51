/**
 * The `crossZoneByPair` matrix: attempts per (consumer zone, provider zone). Zones get an index
 * once (the declared ones first, in their order; any other when it first shows up), so counting
 * an attempt is two array reads and an increment. The recorder counts only cross-zone attempts
 * here and hands the same-zone ones over at the end. It owns the matrix, not what counts in it.
 */

/** Attempts per (consumer zone, provider zone), rows and columns in zone-index order. */
export class ZonePairs {
  readonly #names: string[] = [];
  readonly #rows: number[][] = [];

  /** `zones`: the scenario's zones in their declared order (rows and columns, zeros included). */
  constructor(zones: readonly string[] = []) {
    for (const zone of zones) this.indexOf(zone);
  }

  /** The zone's index, adding a row and a column for a zone seen for the first time. */
  indexOf(zone: string): number {
    const names = this.#names;
    // PERF: a few zones, named by the very strings the scenario holds: a scan of pointer compares, no map lookup.
    for (let i = 0; i < names.length; i++) if (names[i] === zone) return i;
    names.push(zone);
    for (const row of this.#rows) row.push(0);
    this.#rows.push(new Array<number>(names.length).fill(0));
    return names.length - 1;
  }

  /** One attempt from the consumer zone at index `consumer` to the provider zone at index `provider`. */
  count(consumer: number, provider: number): void {
    this.#rows[consumer]![provider]!++;
  }

  /**
   * `{ consumerZone: { providerZone: attempts } }`, every zone a row and a column, in index order,
   * with `sameZone` (attempts within the consumer's own zone, by zone index) added on the diagonal.
   */
  toJson(sameZone: ReadonlyArray<{ zone: number; attempts: number }> = []): Record<string, Record<string, number>> {
    const names = this.#names;
    const rows = this.#rows.map((row) => [...row]);
    for (const { zone, attempts } of sameZone) rows[zone]![zone]! += attempts;
    const out: Record<string, Record<string, number>> = {};
    names.forEach((consumer, c) => {
      const row: Record<string, number> = {};
      names.forEach((provider, p) => (row[provider] = rows[c]![p]!));
      out[consumer] = row;
    });
    return out;
  }
}
