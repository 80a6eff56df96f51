/** Progress: watching a run changes nothing in it, and bars go to a terminal stream only. */
import { describe, expect, it } from 'vitest';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { progressBars, NO_PROGRESS } from '../../src/cli/progress.js';
import { combinedProgress } from '../../src/cli/sweep.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const file = fileURLToPath(new URL('../../scenarios/zone-a-down.yaml', import.meta.url));

describe('progress of a run', () => {
  const { scenario } = loadScenarioWithRaw(file, ['duration=20s', 'warmup=1s']);

  it('gives the same summary bytes whether or not the run is watched', () => {
    const seen: Array<[number, number]> = [];
    const watched = runScenario(scenario, { version: 'test', onProgress: (simMs, requests) => seen.push([simMs, requests]) });
    const plain = runScenario(scenario, { version: 'test' });
    expect(JSON.stringify(watched.summary)).toBe(JSON.stringify(plain.summary));
    expect(watched.stats.eventsProcessed).toBe(plain.stats.eventsProcessed);
    // Every 0.5% of the 20 s: 199 reports, simulated time and requests never going back, ending near the duration.
    expect(seen).toHaveLength(199);
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]![0]).toBeGreaterThanOrEqual(seen[i - 1]![0]);
      expect(seen[i]![1]).toBeGreaterThanOrEqual(seen[i - 1]![1]);
    }
    expect(seen.at(-1)![0]).toBeGreaterThan(19_800);
    expect(seen.at(-1)![1]).toBeLessThanOrEqual(plain.stats.requestsStarted);
  });
});

describe('progressBars', () => {
  it('shows nothing without a terminal stream', () => {
    expect(progressBars(undefined, ['seed 1'], 1000)).toBe(NO_PROGRESS);
  });

  it('draws one bar per run with simulated time, duration and requests once the delay has passed', async () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d) => (text += String(d)));
    const bars = progressBars(stream, ['alpha seed 1', 'beta seed 1'], 10_000, 0);
    bars.update(0, 2_500, 1234);
    await new Promise((r) => setTimeout(r, 250));
    bars.update(1, 5_000, 99);
    bars.done(0);
    bars.stop();
    expect(text).toContain('alpha seed 1');
    expect(text).toContain('beta seed 1');
    expect(text).toContain('sim 5.0/10.0 s');
    expect(text).toContain('1,234 requests');
    expect(text).toContain('done');
  });

  // A terminal that records what is written to it, as it is written.
  const recordingTerminal = () => {
    const seen = { text: '' };
    const stream = Object.assign(
      new Writable({
        write(chunk, _encoding, callback) {
          seen.text += String(chunk);
          callback();
        },
      }),
      { isTTY: true, columns: 160 },
    );
    return { stream, seen };
  };

  it('redraws while this thread is busy, as a simulation keeps it (no timer can fire)', () => {
    const { stream, seen } = recordingTerminal();
    const bars = progressBars(stream, ['seed 1'], 10_000, 0);
    // A run that reports progress for about 0.6 s without ever yielding to the event loop.
    const until = Date.now() + 600;
    let simMs = 0;
    while (Date.now() < until) bars.update(0, Math.min(9_000, (simMs += 1)), 4321);
    const drawnWhileBusy = seen.text;
    bars.stop();
    expect(drawnWhileBusy).toContain('seed 1');
    expect(drawnWhileBusy).toContain('4,321 requests');
    expect(drawnWhileBusy).toMatch(/sim \d+\.\d\/10\.0 s/);
  });

  it('sums many runs into one bar (a sweep), each run counted at its latest report', () => {
    const { stream, seen } = recordingTerminal();
    const bar = combinedProgress(stream, 'sweep (3 runs)', [1_000, 2_000, 3_000], 0);
    bar.update(0, 500, 10);
    bar.update(1, 1_000, 20);
    bar.update(1, 1_500, 25);
    bar.done(0);
    bar.update(2, 2_500, 5);
    bar.stop();
    // 1.0 (run 0 done) + 1.5 + 2.5 simulated s of 6; 10 + 25 + 5 requests.
    expect(seen.text).toContain('sim 5.0/6.0 s | 40 requests');
  });

  it('stays silent for a run shorter than the delay', () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d) => (text += String(d)));
    const bars = progressBars(stream, ['seed 1'], 10_000, 60_000);
    bars.update(0, 5_000, 10);
    bars.done(0);
    bars.stop();
    expect(text).toBe('');
  });
});
