// `npm run bench`: simulated requests per wall second, kernel events per second and peak RSS for
// the M/M/c scenario and the dual-zone baseline (with and without routers). Each case runs in
// its own process so that peak RSS is its own. Timing lives here, never in tests.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const cases = [
  { label: 'M/M/c (c=10, 80% load)', file: '../scenarios/mmc-validation.yaml', sets: ['duration=600s'] },
  { label: 'dual-zone baseline', file: '../scenarios/dual-zone-baseline.yaml', sets: ['duration=120s'] },
  { label: 'dual-zone baseline, routed', file: '../bench/routed-baseline.yaml', sets: ['duration=120s'] },
];
const repeat = Number(process.env.BENCH_REPEAT ?? 3);
const rows = [];
for (const c of cases) {
  let best = null;
  for (let i = 0; i < repeat; i++) {
    const out = execFileSync(process.execPath, [here('./one.js'), here(c.file), ...c.sets], { encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop());
    if (best === null || r.wallMs < best.wallMs) best = r;
  }
  rows.push({ case: c.label, ...best });
}
const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
console.log(`best of ${repeat} runs per case (node ${process.version})\n`);
console.log('case'.padEnd(30) + 'requests'.padStart(11) + 'wall s'.padStart(9) + 'req/s'.padStart(12) + 'events/s'.padStart(13) + 'peak RSS MB'.padStart(13));
for (const r of rows) {
  console.log(
    r.case.padEnd(30) +
      fmt(r.requests).padStart(11) +
      fmt(r.wallMs / 1000, 2).padStart(9) +
      fmt(r.requestsPerSec).padStart(12) +
      fmt(r.eventsPerSec).padStart(13) +
      fmt(r.peakRssMb, 1).padStart(13),
  );
}
const plain = rows.find((r) => r.case === 'dual-zone baseline');
const routed = rows.find((r) => r.case === 'dual-zone baseline, routed');
if (plain && routed) {
  console.log(`\nrouted / unrouted baseline wall time: ${(routed.wallMs / plain.wallMs).toFixed(2)}x (target <= 1.5x)`);
}
