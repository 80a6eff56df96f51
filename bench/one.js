// Runs one scenario once in this process and prints one JSON line with throughput figures.
// Usage: node bench/one.js <scenario> [path=value ...]
import { performance } from 'node:perf_hooks';
import { loadScenarioWithRaw } from '../dist/bundle/scenario-load.js';
import { runScenario } from '../dist/bundle/scenario-run.js';

const [file, ...sets] = process.argv.slice(2);
const { scenario } = loadScenarioWithRaw(file, sets);
const t0 = performance.now();
const { summary, stats } = runScenario(scenario, { version: 'bench' });
const wallMs = performance.now() - t0;
process.stdout.write(
  JSON.stringify({
    scenario: scenario.name,
    requests: stats.requestsStarted,
    events: stats.eventsProcessed,
    pushesHeld: stats.pushesHeld,
    wallMs,
    requestsPerSec: stats.requestsStarted / (wallMs / 1000),
    eventsPerSec: stats.eventsProcessed / (wallMs / 1000),
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    p99Ms: summary.latencyMs.p99,
  }) + '\n',
);
