/**
 * scenarios/three-room-quorum-loss.yaml: three rooms, a ZooKeeper ensemble of two nodes in zoneA and one in
 * zoneB, and zoneA dark from 60 s to 240 s (its users shifted to zoneB and zoneC). With the 2 + 1 ensemble the
 * surviving node has no quorum: nothing is written, no session expires, and zoneB's and zoneC's consumers keep
 * zoneA's ten dead providers listed until the room returns. With one node per room the majority survives and
 * the dead providers' sessions expire. The timeouts are derived from failover's arithmetic.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Summary, TimelineRow } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { applyStrategy } from '../../src/scenario/strategies.js';
import { cli } from '../helpers/cli.js';

const file = fileURLToPath(new URL('../../scenarios/three-room-quorum-loss.yaml', import.meta.url));
const DARK_FROM_MS = 60_000;
const DARK_TO_MS = 240_000;
/** Providers per room, and the dead share of every surviving consumer's list while it keeps zoneA's. */
const PER_ROOM = 10;
const LISTED = 3 * PER_ROOM;
/**
 * A request times out when its three attempts (retries 2) all pick a dead provider: failover never picks the
 * same invoker twice, so (10/30)(9/29)(8/28).
 */
const P_ALL_DEAD = (PER_ROOM / LISTED) * ((PER_ROOM - 1) / (LISTED - 1)) * ((PER_ROOM - 2) / (LISTED - 2));

const run = (strategy: string): Summary => {
  const { scenario } = loadScenarioWithRaw(file);
  return runScenario(applyStrategy(scenario, scenario.strategies[strategy]!), { version: 'test' }).summary;
};

const rows = (s: Summary, fromMs: number, toMs: number): TimelineRow[] => s.timeline.filter((r) => r.tMs >= fromMs && r.tMs < toMs);
const sum = (rs: TimelineRow[], key: 'requests' | 'timeout'): number => rs.reduce((n, r) => n + r[key], 0);

/** The timeouts of `rs` are `P_ALL_DEAD` of their requests, within four binomial standard deviations. */
function expectAllDeadShare(rs: TimelineRow[]): void {
  const n = sum(rs, 'requests');
  const sd = Math.sqrt(n * P_ALL_DEAD * (1 - P_ALL_DEAD));
  expect(n).toBeGreaterThan(50_000);
  expect(Math.abs(sum(rs, 'timeout') - n * P_ALL_DEAD)).toBeLessThan(4 * sd);
}

describe('three-room-quorum-loss', () => {
  const twoOne = run('ensemble-2-1');
  const perRoom = run('ensemble-1-1-1');

  it('2 + 1: the surviving node has no quorum, so no session expires and the dead providers stay listed the whole outage', () => {
    expect(twoOne.events['registry.sessionExpired'] ?? 0).toBe(0);
    expect(Object.values(twoOne.registry.servers!).map((n) => n.sessionsExpired)).toEqual([0, 0, 0]);
    // Nobody learned that zoneA's providers were gone: attempts to them are not stale calls, they are timeouts.
    expect(twoOne.registry.staleCalls).toBe(0);
    expectAllDeadShare(rows(twoOne, DARK_FROM_MS, DARK_TO_MS));
    // Every 10 s of the outage still has its timeouts, up to the room's return.
    for (let t = DARK_FROM_MS; t < DARK_TO_MS; t += 10_000) expect(sum(rows(twoOne, t, t + 10_000), 'timeout')).toBeGreaterThan(0);
    expect(sum(rows(twoOne, DARK_TO_MS + 2_000, 300_000), 'timeout')).toBe(0);
  });

  it('one node per room: the majority survives, zoneA\'s sessions expire (10 processes x 2 discovery levels) and the timeouts stop', () => {
    expect(perRoom.events['registry.sessionExpired']).toBe(2 * PER_ROOM);
    // Before the sessions can expire (the last ping at most 10 s before the room went dark, 40 s sessions):
    expectAllDeadShare(rows(perRoom, DARK_FROM_MS, DARK_FROM_MS + 30_000));
    // After the latest expiry (40 s + a 2 s tick after the last ping) and the 3.3 consumers' 5 s notification delay:
    expect(sum(rows(perRoom, DARK_FROM_MS + 50_000, 300_000), 'timeout')).toBe(0);
    expect(perRoom.timeoutRate).toBeLessThan(twoOne.timeoutRate / 4);
  });

  it('the dark room\'s requests in flight are lost, alike under both layouts', () => {
    expect(twoOne.outcomes.lost).toBeGreaterThan(0);
    expect(perRoom.outcomes.lost).toBe(twoOne.outcomes.lost);
  });

  it('check warns about the 2 + 1 layout before the run, and not about one node per room', async () => {
    const asWritten = JSON.parse((await cli(['check', 'scenarios/three-room-quorum-loss.yaml', '--json'])).out);
    // The scenario as written (no `strategy` on the warning), and each strategy's own layout.
    const kinds = (w: Array<{ kind: string; strategy?: string }>, strategy?: string) => w.filter((x) => x.strategy === strategy).map((x) => x.kind);
    expect(kinds(asWritten.warnings)).toContain('registry-quorum-lost');
    expect(kinds(asWritten.warnings, 'ensemble-2-1')).toContain('registry-quorum-lost');
    expect(kinds(asWritten.warnings, 'ensemble-1-1-1')).not.toContain('registry-quorum-lost');
    const spread = JSON.parse(
      (await cli(['check', 'scenarios/three-room-quorum-loss.yaml', '--json', '--set', 'registry.servers={zoneA: 1, zoneB: 1, zoneC: 1}'])).out,
    );
    expect(kinds(spread.warnings)).not.toContain('registry-quorum-lost');
  });
});
