/**
 * The text forms of durations and rates (SPEC 2.1): `450ms`, `1.5s`, `2m`, `1h` or a number of ms;
 * `2000/s`, `120/m` or a number per second. Plain parsers without the schema library, so that a
 * worker thread, which only runs normalized scenarios, does not load it (units.ts builds the
 * schemas on these).
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
const NUMBER = String.raw`(\d+(?:\.\d*)?|\.\d+)`;
export const DURATION_RE = new RegExp(String.raw`^${NUMBER}\s*(ms|s|min|m|h)$`);
export const RATE_RE = new RegExp(String.raw`^${NUMBER}\s*/\s*(ms|s|min|m|h)$`);

const BANDWIDTH_BITS: Record<string, number> = { bps: 1, kbps: 1e3, mbps: 1e6, gbps: 1e9 };
const BANDWIDTH_BYTES: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9 };
export const BANDWIDTH_RE = new RegExp(String.raw`^${NUMBER}\s*(?:(bps|kbps|mbps|gbps)|(b|kb|mb|gb)\s*/\s*s)$`, 'i');
const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };
export const SIZE_RE = new RegExp(String.raw`^${NUMBER}\s*(b|kb|mb)$`, 'i');

/** The expected-phrase of a malformed duration. */
export const EXPECTED_DURATION = 'expected a duration such as 450ms, 1.5s, 2m or a number of milliseconds';
/** The expected-phrase of a malformed bandwidth. */
export const EXPECTED_BANDWIDTH = 'expected a bandwidth such as 1Gbps, 100Mbps or 125MB/s';
/** The expected-phrase of a malformed size. */
export const EXPECTED_SIZE = 'expected a size such as 1MB, 512KB or a number of bytes';
/** The expected-phrase of a malformed rate. */
export const EXPECTED_RATE = 'expected a rate such as 2000/s or 120/m, or a number per second';

/** Milliseconds of a duration value (`450ms`, `1.5s`, `2m`, `1h`, or a number of ms); undefined if malformed or negative. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = DURATION_RE.exec(value.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : undefined;
}

/** Events per second of a rate value (`2000/s`, `120/m`, or a number per second); undefined if malformed or negative. */
export function parseRate(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = RATE_RE.exec(value.trim());
  return m ? (Number(m[1]) * 1000) / UNIT_MS[m[2]!]! : undefined;
}

/**
 * Bytes per second of a bandwidth (`1Gbps`, `100Mbps`, `10kbps`, `bps` in bits per second, decimal as
 * network links are rated; `125MB/s`, `KB/s`, `B/s` in bytes per second); undefined if malformed or not > 0.
 */
export function parseBandwidth(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = BANDWIDTH_RE.exec(value.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const bytes = m[2] !== undefined ? (n * BANDWIDTH_BITS[m[2].toLowerCase()]!) / 8 : n * BANDWIDTH_BYTES[m[3]!.toLowerCase()]!;
  return bytes > 0 ? bytes : undefined;
}

/** Bytes of a size (`1MB`, `512KB`, `64B`, binary multiples as ZooKeeper's `jute.maxbuffer` counts, or a number of bytes); undefined if malformed or not > 0. */
export function parseSize(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = SIZE_RE.exec(value.trim());
  if (!m) return undefined;
  const bytes = Number(m[1]) * SIZE_UNITS[m[2]!.toLowerCase()]!;
  return bytes > 0 ? bytes : undefined;
}

/** A short human form of a duration in ms (`450ms`, `1.5s`, `2m`, `1h`), used in messages and dumps. */
export function formatDuration(ms: number): string {
  const units: Array<[string, number]> = [['h', 3_600_000], ['m', 60_000], ['s', 1000]];
  for (const [unit, size] of units) {
    if (ms >= size && Number.isInteger((ms / size) * 1000)) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
