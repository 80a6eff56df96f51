/** Progress: watching a run changes nothing in it, and bars go to a terminal stream only. */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { progressBars, NO_PROGRESS } from '../../src/parallel/progress.js';
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
  const recordingTerminal = (rows?: number) => {
    const seen = { text: '' };
    const stream = Object.assign(
      new Writable({
        write(chunk, _encoding, callback) {
          seen.text += String(chunk);
          callback();
        },
      }),
      { isTTY: true, columns: 160, rows },
    );
    return { stream, seen };
  };

  it('keeps the bars within the terminal\'s height, the runs without a bar summed up on the last line (TTY-overflow: 16 bars in 8 rows)', () => {
    const { stream, seen } = recordingTerminal(8);
    const bars = progressBars(stream, Array.from({ length: 16 }, (_, i) => `seed ${i + 1}`), 10_000, 0);
    bars.update(4, 5_000, 50);
    for (const i of [0, 1, 2, 3]) bars.done(i);
    bars.stop();
    // Each redraw goes back up to the first bar: never more than 6 lines up, so never above an 8-row screen.
    const ups = [...seen.text.matchAll(/\x1b\[(\d+)A/g)].map((m) => Number(m[1]));
    expect(ups.length).toBeGreaterThan(0);
    expect(Math.max(...ups)).toBe(6);
    // Every frame is at most 7 lines (6 line breaks; the final one ends with one more).
    const frames = seen.text.split(/\x1b\[\d+A/);
    for (const frame of frames.slice(0, -1)) expect(frame.split('\n').length - 1).toBeLessThanOrEqual(6);
    expect(frames.at(-1)!.split('\n').length - 1).toBeLessThanOrEqual(7);
    // Six bars for the first unfinished runs (seeds 5 to 10 once 1 to 4 are done), one line for the other ten.
    expect(seen.text).toMatch(/seed 10 +\|/);
    expect(seen.text).not.toMatch(/seed 1[1-6] +\|/);
    expect(seen.text).toContain('+10 more |');
    // Seeds 1-4 done (40 of 100 simulated s), seeds 11-16 waiting.
    expect(seen.text).toMatch(/\+10 more \|[^\n]*\| 40% \| sim 40\.0\/100\.0 s \| 0 requests \| \d+s \| 6 waiting, 4 done/);
  });

  it('draws every bar when the terminal\'s height is unknown or large enough', () => {
    for (const rows of [undefined, 4]) {
      const { stream, seen } = recordingTerminal(rows);
      const bars = progressBars(stream, ['seed 1', 'seed 2', 'seed 3'], 10_000, 0);
      bars.update(0, 5_000, 50);
      bars.stop();
      expect(seen.text).toMatch(/seed 3 \|/);
      expect(seen.text).not.toContain('more');
    }
  });

  it('gives the cursor back when the process exits without stopping the bars (an error, process.exit)', () => {
    const progress = pathToFileURL(join(dirname(dirname(dirname(fileURLToPath(import.meta.url)))), 'dist/parallel/progress.js')).href;
    const script = [
      `import { progressBars } from ${JSON.stringify(progress)};`,
      "const tty = Object.create(process.stderr, { isTTY: { value: true }, columns: { value: 100 }, rows: { value: 10 } });",
      "const bars = progressBars(tty, ['seed 1', 'seed 2'], 10000, 0);",
      'bars.update(0, 5000, 10);',
      'process.exit(3);',
    ].join('\n');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('\x1b[?25l');
    expect(r.stderr).toContain('seed 1');
    expect(r.stderr.endsWith('\n\x1b[?7h\x1b[?25h')).toBe(true);
  });

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
