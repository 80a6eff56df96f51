// Cohorts against per-instance simulation, per load balancer (issue 41; figures in docs/cohorts.md).
// Usage: npm run build && node bench/cohorts.js [seeds=10]
// Runs bench/cohort-validation.yaml with every consumer group's `cohorts` on and off, on the same seeds, for each
// load balancer, and prints each figure's mean both ways, the difference and four standard errors of it.
import { loadScenarioWithRaw } from '../dist/bundle/scenario-load.js';
import { runScenario } from '../dist/bundle/scenario-run.js';

const seeds = Number(process.argv[2] ?? 10);
const balancers = ['random', 'consistenthash', 'zoneAware', 'roundrobin', 'leastactive', 'shortestresponse', 'adaptive'];
const figures = {
  'stale %': (s) => (100 * s.registry.staleCalls) / s.attempts,
  'error %': (s) => 100 * s.errorRate,
  'cross-zone %': (s) => 100 * s.crossZoneRatio,
  'p50 ms': (s) => s.latencyMs.p50,
  'p99 ms': (s) => s.latencyMs.p99,
};

function stats(xs) {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { mean, variance: xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1) };
}

function runs(lb, mode) {
  const sets = [0, 1].flatMap((g) => [`consumers.${g}.cohorts=${mode}`, `consumers[${g}].reference["com.example.UserService"].loadbalance=${lb}`]);
  const { scenario } = loadScenarioWithRaw('bench/cohort-validation.yaml', sets);
  return Array.from({ length: seeds }, (_, i) => runScenario(scenario, { seed: i + 1, version: 'bench' }).summary);
}

console.log(`| load balancer | figure | per instance | cohorts | difference | 4 SE | within |`);
console.log(`|---|---|---:|---:|---:|---:|---|`);
for (const lb of balancers) {
  const off = runs(lb, 'off');
  const on = runs(lb, 'on');
  for (const [name, f] of Object.entries(figures)) {
    const a = stats(off.map(f));
    const b = stats(on.map(f));
    const se4 = 4 * Math.sqrt(a.variance / seeds + b.variance / seeds);
    const d = b.mean - a.mean;
    console.log(`| ${lb} | ${name} | ${a.mean.toFixed(3)} | ${b.mean.toFixed(3)} | ${d >= 0 ? '+' : ''}${d.toFixed(3)} | ${se4.toFixed(3)} | ${Math.abs(d) <= se4 ? 'yes' : '**no**'} |`);
  }
}
