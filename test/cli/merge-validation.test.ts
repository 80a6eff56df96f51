/**
 * `zonesim merge` trusts no part file (issue 37; audit 3 defect 11): each hand-edited part of the
 * audit is refused with exit 2 and one line naming the file — whether the edit left the part's hash
 * as it was (the hash is checked against the contents) or recomputed it (the shapes, summaries,
 * counts and cells are checked too). `report` refuses a sweep.json whose grid is empty.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { comparePartHash, sweepPartHash } from '../../src/cli/parts.js';
import { cli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const SHORT = ['--set', 'duration=3s', '--set', 'warmup=1s', '--jobs', '1'];
const SWEEP = ['sweep', 'scenarios/timeout-sweep.yaml', '--grid', 'consumers[0].consumerDefaults.timeout=100ms,300ms', '--grid', 'consumers[0].consumerDefaults.retries=0,1', ...SHORT];
const COMPARE = ['compare', 'scenarios/zone-a-down.yaml', '--seeds', '2', ...SHORT];

/** Folders holding the untouched parts of a sweep (3 shards) and of a comparison (2 shards). */
let sweepParts: string;
let compareParts: string;

beforeAll(async () => {
  const out = tempDir('zs-mv-');
  for (const k of [1, 2, 3]) expect((await cli([...SWEEP, '--shard', `${k}/3`, '--out', out])).code).toBe(0);
  for (const k of [1, 2]) expect((await cli([...COMPARE, '--shard', `${k}/2`, '--out', out])).code).toBe(0);
  sweepParts = join(out, 'timeout-sweep');
  compareParts = join(out, 'zone-a-down');
}, 120_000);

type Part = Record<string, any>;

/**
 * A copy of the parts in `from` with `edit` applied to each (its index among them, 0-based), the
 * hash recomputed from the edited contents when `rehash`; returns the copy's folder.
 */
function edited(from: string, edit: (part: Part, i: number) => void, rehash: boolean): string {
  const dir = join(tempDir('zs-mv-edit-'), 'parts');
  mkdirSync(dir);
  cpSync(from, dir, { recursive: true });
  readdirSync(dir)
    .filter((f) => /\.part-\d+-of-\d+\.json$/.test(f))
    .sort()
    .forEach((f, i) => {
      const part = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Part;
      edit(part, i);
      if (rehash) part.hash = part.zonesim === 'sweep-part' ? sweepPartHash(part.scenarioText, part.header as never) : comparePartHash(part.scenarioText, part.header as never);
      writeFileSync(join(dir, f), JSON.stringify(part, null, 2));
    });
  return dir;
}

const firstCell = (edit: (summaryOrCell: Part) => void) => (part: Part, i: number) => {
  if (i === 0) edit(part.cells[0]);
};
const firstRun = (edit: (run: Part) => void) => (part: Part, i: number) => {
  if (i === 0) edit(part.runs[0]);
};

// The audit's edited parts (M-*), and the line a merge of them must give (beyond naming the file).
const CASES: Array<[id: string, kind: 'sweep' | 'compare', edit: (part: Part, i: number) => void, why: RegExp]> = [
  ['M-cmp-fewer', 'compare', (p) => delete p.header.strategies[Object.keys(p.header.strategies).at(-1)!], /runCount: expected 2 \(strategies × seeds\), found 4|runs\[\d\]\.strategy/],
  ['M-req-str', 'sweep', firstCell((c) => (c.summary.requests = 'abc')), /cells\[0\]\.summary\.requests: expected a number, found "abc"/],
  ['M-summary-empty', 'sweep', firstCell((c) => (c.summary = {})), /cells\[0\]\.summary\.requests: expected a number, found nothing/],
  ['M-values-missing', 'sweep', firstCell((c) => (c.values = {})), /cells\[0\]\.values\["consumers\[0\]\.consumerDefaults\.timeout"\]: expected a value for this axis of the grid, found nothing/],
  ['M-no-latency', 'sweep', firstCell((c) => delete c.summary.latencyMs), /cells\[0\]\.summary\.latencyMs: expected a map/],
  ['M-p99-str', 'sweep', firstCell((c) => (c.summary.latencyMs.p99 = '12')), /cells\[0\]\.summary\.latencyMs\.p99: expected a number, found "12"/],
  ['M-summary-null', 'sweep', firstCell((c) => (c.summary = null)), /cells\[0\]\.summary: expected a map \(JSON object\), found null/],
  ['M-cmp-badsummary', 'compare', firstRun((r) => (r.summary.errorRate = 'high')), /runs\[0\]\.summary\.errorRate: expected a number, found "high"/],
  ['M-cmp-ghost', 'compare', firstRun((r) => (r.strategy = 'ghost')), /runs\[0\]\.strategy: run 0 is of the strategy "dubbo-default", found "ghost"/],
  ['M-all-n1e9', 'sweep', (p) => (p.shard.n = 1e9), /shard\.n: expected a whole number of shards from 1 to 100000/],
  ['M-all-n1e300', 'sweep', (p) => (p.shard.n = 1e300), /shard\.n: expected a whole number of shards from 1 to 100000/],
  ['M-zero-cells', 'sweep', (p) => ((p.cellCount = 0), (p.cells = [])), /cellCount: expected 4 \(the cells of the grid and strategies\), found 0/],
  ['M-all-grid-edit', 'sweep', (p) => (p.header.grid['consumers[0].consumerDefaults.timeout'] = ['100ms', '200ms']), /cells\[1\]\.values\["consumers\[0\]\.consumerDefaults\.timeout"\]: expected one of the grid's values for this axis, found "300ms"/],
  ['M-all-grid-empty', 'sweep', (p) => (p.header.grid = {}), /header\.grid: expected at least one axis/],
  ['M-all-strategies', 'sweep', (p) => (p.header.strategies = ['dubbo-default']), /strategy: expected one of the sweep's strategies \(dubbo-default\), found null/],
  ['M-all-seeds-empty', 'sweep', (p) => (p.header.seeds = []), /header\.seeds: expected the seeds 1, 2, … \(at least one\), found \[\]/],
];

describe('merge refuses hand-edited parts with exit 2, naming the file', () => {
  it('merges the untouched parts (the edits below are what breaks them)', async () => {
    expect((await cli(['merge', sweepParts, '--out', tempDir('zs-mv-out-')])).code).toBe(0);
    expect((await cli(['merge', compareParts, '--out', tempDir('zs-mv-out-')])).code).toBe(0);
  });

  for (const [id, kind, edit, why] of CASES) {
    for (const rehash of [false, true]) {
      it(`${id}: the hash ${rehash ? 'recomputed' : 'left as it was'}`, async () => {
        const dir = edited(kind === 'sweep' ? sweepParts : compareParts, edit, rehash);
        const r = await cli(['merge', dir, '--out', tempDir('zs-mv-out-')]);
        expect(r.code).toBe(2);
        expect(r.out).toBe('');
        // One line naming the file (`file:line:col: field: reason`, or the hash), and maybe a hint; no stack trace.
        expect(r.err.trimEnd().split('\n').filter((l) => !l.startsWith('hint: '))).toHaveLength(1);
        const file = `${dir}/${kind}\\.part-1-of-\\d\\.json`;
        if (rehash) expect(r.err).toMatch(new RegExp(`^${file}:\\d+:\\d+: `));
        else expect(r.err).toMatch(new RegExp(`^(${file}:\\d+:\\d+: |zonesim: ${file}: its contents do not match its hash: the part file was edited or damaged$)`));
        if (rehash || !r.err.includes('its hash')) expect(r.err).toMatch(why);
      });
    }
  }

  it('refuses a part whose header alone was edited, by its hash', async () => {
    const dir = edited(sweepParts, (p) => (p.header.scenario = 'renamed'), false);
    const r = await cli(['merge', dir, '--out', tempDir('zs-mv-out-')]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`zonesim: ${dir}/sweep.part-1-of-3.json: its contents do not match its hash: the part file was edited or damaged\nhint: run that shard again\n`);
  });

  it('refuses parts a different zonesim version wrote', async () => {
    const dir = edited(sweepParts, (p) => (p.header.version = '0.0.1'), true);
    const r = await cli(['merge', dir, '--out', tempDir('zs-mv-out-')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/sweep\.part-1-of-3\.json was written by zonesim 0\.0\.1; this is zonesim /);
  });
});

describe('report refuses a damaged sweep.json with exit 2, naming the file', () => {
  it('RP2-sw-nogrid: a sweep.json whose grid is empty (was an internal TypeError, exit 1)', async () => {
    const out = tempDir('zs-mv-sw-');
    expect((await cli([...SWEEP, '--out', out])).code).toBe(0);
    const folder = join(out, 'timeout-sweep', readdirSync(join(out, 'timeout-sweep'))[0]!);
    const doc = JSON.parse(readFileSync(join(folder, 'sweep.json'), 'utf8'));
    writeFileSync(join(folder, 'sweep.json'), JSON.stringify({ ...doc, grid: {} }, null, 2));
    const r = await cli(['report', folder]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^${folder}/sweep\\.json:\\d+:\\d+: grid: expected at least one axis\\n$`));
  });
});
