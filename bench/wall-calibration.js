// Calibration of the wall-time estimate (`--dry-run`, src/scenario/wall-estimate.ts `WALL_MODEL`): runs
// every shipped scenario, the bench deployments and a few scaled variants through the CLI
// (`zonesim run --jobs 1`, the whole process as a user waits for it), and prints, per case, the
// estimate's inputs, the estimate and the measured time, then a least-squares refit of the model's
// coefficients. Measured is the CPU time (user + system, via /usr/bin/time) of the CLI and its
// child, the best of BENCH_REPEAT runs (default 3): on a shared machine the wall time grows with
// the other processes' load, the CPU time much less, and on an idle machine a single-threaded
// run's wall time is about its CPU time (V8's GC helper threads make the CPU time a little longer).
// The wall time is printed beside it.
// Usage: npm run build && node bench/wall-calibration.js [--json out.json] [--only substring] [--measured in.json]
// (`--measured` takes the measured times of an earlier `--json` and only re-estimates and refits.)
// Timing lives here, never in tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const bin = here('../bin/zonesim.js');
const repeat = Number(process.env.BENCH_REPEAT ?? 3);
const args = process.argv.slice(2);
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const measuredFile = args.includes('--measured') ? args[args.indexOf('--measured') + 1] : undefined;
const earlier = measuredFile === undefined ? undefined : new Map(JSON.parse(readFileSync(measuredFile, 'utf8')).map((r) => [r.name, r]));

const shipped = readdirSync(here('../scenarios')).filter((f) => f.endsWith('.yaml')).sort().map((f) => ({ name: f.replace(/\.yaml$/, ''), file: here(`../scenarios/${f}`), sets: [] }));
const bench = ['large-deployment', 'many-providers', 'extra-large', 'routed-baseline', 'zone-crash-mixed'].map((n) => ({ name: `bench/${n}`, file: here(`../bench/${n}.yaml`), sets: [] }));
// Scaled variants: longer runs, more instances, more providers, retries under timeouts.
const variants = [
  { name: 'dual-zone-baseline, 10 min', file: here('../scenarios/dual-zone-baseline.yaml'), sets: ['duration=10m'] },
  { name: 'mmc-validation, 30 min', file: here('../scenarios/mmc-validation.yaml'), sets: ['duration=30m'] },
  { name: 'timeout-retry-storm, 10 min', file: here('../scenarios/timeout-retry-storm.yaml'), sets: ['duration=10m'] },
  { name: 'zone-a-down, 5 min', file: here('../scenarios/zone-a-down.yaml'), sets: ['duration=5m'] },
  { name: 'large-deployment, 6 s', file: here('../bench/large-deployment.yaml'), sets: ['duration=6s', 'warmup=1s', 'faults=[]'] },
  {
    name: 'large-deployment, 10,000 instances, 6 s',
    file: here('../bench/large-deployment.yaml'),
    sets: ['duration=6s', 'warmup=1s', 'faults=[]', 'consumers[0].instances=3334', 'consumers[1].instances=3333', 'consumers[2].instances=3333'],
  },
  { name: 'many-providers, 20,000 providers', file: here('../bench/many-providers.yaml'), sets: ['providers[0].count=20000'] },
  { name: 'many-providers, 40 s', file: here('../bench/many-providers.yaml'), sets: ['duration=40s'] },
  // Providers that refuse connections: every consumer instance sets them aside and routes lists of its own.
  { name: 'large-deployment, zoneC crashed, 6 s', file: here('../bench/large-deployment.yaml'), sets: ['duration=6s', 'warmup=1s', 'faults=[{at: 2s, zoneDown: zoneC, mode: crash}]'] },
  {
    name: 'large-deployment, zoneC crashed, 10,000 instances, 6 s',
    file: here('../bench/large-deployment.yaml'),
    sets: ['duration=6s', 'warmup=1s', 'faults=[{at: 2s, zoneDown: zoneC, mode: crash}]', 'consumers[0].instances=3334', 'consumers[1].instances=3333', 'consumers[2].instances=3333'],
  },
  { name: 'large-deployment, zoneC crashed, 20 s', file: here('../bench/large-deployment.yaml'), sets: ['duration=20s', 'warmup=1s', 'faults=[{at: 2s, zoneDown: zoneC, mode: crash}]'] },
  // A wide estate: 40,000 invokers in 200 lists, each called a few times per run (the cold-state terms).
  {
    name: 'release-day-seed-scale, a tenth',
    file: here('../scenarios/release-day-seed-scale.yaml'),
    sets: ['providers[0].repeat=50', 'providers[1].repeat=50', 'consumers[0].repeat=50', 'consumers[1].repeat=50'],
  },
];
let cases = [...shipped, ...bench, ...variants];
if (only !== undefined) cases = cases.filter((c) => c.name.includes(only));

const out = mkdtempSync(join(tmpdir(), 'zs-wall-'));
const setArgs = (sets) => sets.flatMap((s) => ['--set', s]);

function dryRun(c) {
  const r = spawnSync(process.execPath, [bin, 'run', c.file, ...setArgs(c.sets), '--dry-run', '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${c.name}: dry run failed: ${r.stderr}`);
  const doc = JSON.parse(r.stdout);
  return { estimate: doc.simulations[0].estimate, simulationSeconds: doc.simulations[0].simulationSeconds, wallSeconds: doc.wallSeconds?.seconds };
}

/** The best CPU time (user + system) and wall time of `repeat` runs, in ms. */
function measure(c) {
  let cpu = Infinity;
  let wall = Infinity;
  const times = join(out, 'time.txt');
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', times, process.execPath, bin, 'run', c.file, ...setArgs(c.sets), '--out', out, '--jobs', '1'], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    wall = Math.min(wall, performance.now() - t0);
    if (r.status !== 0) throw new Error(`${c.name}: run failed (${r.status}): ${r.stderr}`);
    const [user, sys] = readFileSync(times, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    cpu = Math.min(cpu, (user + sys) * 1000);
  }
  return { cpu, wall };
}

// The cold-state terms' thresholds (WALL_MODEL.coldFromInvokers and coldFromLists): attempts times the e-folds above them.
const efolds = (n, from) => (n > from ? Math.log(n / from) : 0);
/** The model's inputs, as the estimate gives them (see `simulationSeconds` in src/scenario/wall-estimate.ts). */
const inputs = (e) => [
  1,
  e.attempts,
  e.refusedServiceAttempts,
  e.heartbeats,
  e.heartbeatRecords,
  e.pushDeliveries,
  e.references,
  e.providersAtStart + e.providersAddedByFaults,
  e.attempts * efolds(e.invokers, 20_000),
  e.attempts * efolds(e.lists, 80),
  e.extraExports,
];
const names = [
  'start (s)',
  'per attempt',
  'per attempt to refusing providers',
  'per heartbeat',
  'per further record heard',
  'per push delivery',
  'per reference',
  'per provider',
  'per attempt and e-fold of invokers above 20,000',
  'per attempt and e-fold of lists above 80',
  'per export beyond a process\'s first',
];

const rows = [];
for (const c of cases) {
  const { estimate, simulationSeconds, wallSeconds } = dryRun(c);
  const before = earlier?.get(c.name);
  if (earlier !== undefined && before === undefined) continue;
  const { cpu, wall } = before === undefined ? measure(c) : { cpu: before.measuredS * 1000, wall: before.wallS * 1000 };
  const measured = cpu;
  rows.push({ name: c.name, sets: c.sets, estimate, simulationSeconds, wallSeconds, measuredS: cpu / 1000, wallS: wall / 1000 });
  const e = estimate;
  process.stdout.write(
    `${c.name.padEnd(44)} attempts ${Math.round(e.attempts).toString().padStart(9)}  refused ${Math.round(e.refusedServiceAttempts).toString().padStart(8)}  heartbeats ${Math.round(e.heartbeats).toString().padStart(7)}  ` +
      `pushes ${Math.round(e.pushDeliveries).toString().padStart(9)}  refs ${e.references.toString().padStart(6)}  providers ${(e.providersAtStart + e.providersAddedByFaults).toString().padStart(6)}  ` +
      `estimate ${wallSeconds === undefined ? '-' : wallSeconds.toFixed(2)} s  CPU ${(measured / 1000).toFixed(2)} s  wall ${(wall / 1000).toFixed(2)} s` +
      (wallSeconds === undefined ? '\n' : `  (${wallSeconds >= measured / 1000 ? '+' : ''}${(((wallSeconds - measured / 1000) / (measured / 1000)) * 100).toFixed(0)}%)\n`),
  );
}
rmSync(out, { recursive: true, force: true });
if (jsonOut !== undefined) writeFileSync(jsonOut, JSON.stringify(rows, null, 2) + '\n');

// Least squares on relative error (each row weighted by 1/measured), non-negative by dropping
// negative coefficients and refitting: wall time is a sum of non-negative costs.
// Constants the refit holds at their values (WALL_MODEL's: keep in step), by index into `inputs`: per heartbeat and
// per further record heard (measured and fitted before), the two cold-state terms and the exports beyond a process's
// first (measured, docs/cli.md "Wide estates"). An unconstrained refit of 2026-12-07 put heartbeats at 0 and moved their cost into the providers'.
const HELD = new Map([
  [3, 3.7e-6],
  [4, 7.6e-7],
  [8, 2.1e-6],
  [9, 3.9e-6],
  [10, 2.75e-6],
]);
const heldSeconds = (e) => [...HELD].reduce((s, [j, c]) => s + inputs(e)[j] * c, 0);
function fit(data) {
  const k = names.length;
  let active = Array.from({ length: k }, (_, i) => i).filter((j) => !HELD.has(j));
  for (;;) {
    const A = data.map((r) => active.map((j) => inputs(r.estimate)[j] / r.measuredS));
    const b = data.map((r) => 1 - heldSeconds(r.estimate) / r.measuredS);
    const AtA = active.map((_, i) => active.map((_, j) => A.reduce((s, row) => s + row[i] * row[j], 0)));
    const Atb = active.map((_, i) => A.reduce((s, row, r) => s + row[i] * b[r], 0));
    const x = solve(AtA, Atb);
    const negative = x.findIndex((v) => v < 0);
    if (negative < 0) {
      const coef = Array(k).fill(0);
      active.forEach((j, i) => (coef[j] = x[i]));
      for (const [j, c] of HELD) coef[j] = c;
      return coef;
    }
    active = active.filter((_, i) => i !== negative);
  }
}
function solve(M, v) {
  const n = v.length;
  const a = M.map((row, i) => [...row, v[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
    [a[c], a[p]] = [a[p], a[c]];
    for (let r = 0; r < n; r++) {
      if (r === c || a[c][c] === 0) continue;
      const f = a[r][c] / a[c][c];
      for (let j = c; j <= n; j++) a[r][j] -= f * a[c][j];
    }
  }
  return a.map((row, i) => (row[i] === 0 ? 0 : row[n] / row[i]));
}
if (rows.length >= names.length) {
  const coef = fit(rows);
  process.stdout.write(`\nrefit (relative least squares, ${[...HELD.keys()].map((j) => names[j]).join(', ')} held): ${names.map((n, i) => `${n} ${coef[i].toExponential(3)}`).join(', ')}\n`);
  for (const r of rows) {
    const est = inputs(r.estimate).reduce((s, x, i) => s + x * coef[i], 0);
    process.stdout.write(`  ${r.name.padEnd(44)} refit ${est.toFixed(2)} s  measured ${r.measuredS.toFixed(2)} s  (${(((est - r.measuredS) / r.measuredS) * 100).toFixed(0)}%)\n`);
  }
}
