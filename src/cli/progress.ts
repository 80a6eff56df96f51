/**
 * Progress of long runs on stderr, only when stderr is a terminal: one bar per simulation (seed,
 * strategy), with simulated time over duration, requests started, wall time and ETA, drawn by
 * cli-progress. Bars appear only once a run has taken more than `delayMs` (2 s), so short runs
 * print nothing. Wall-clock time lives here, in the CLI, never in the model.
 */
import { MultiBar, Presets } from 'cli-progress';

/** What the simulations report to. */
export interface ProgressSink {
  update(index: number, simMs: number, requests: number): void;
  done(index: number): void;
  stop(): void;
}

/** A sink that shows nothing. */
export const NO_PROGRESS: ProgressSink = { update() {}, done() {}, stop() {} };

/**
 * Bars for `labels.length` simulations of `durationMs` each, on `stream`; NO_PROGRESS without a stream.
 */
export function progressBars(stream: NodeJS.WritableStream | undefined, labels: string[], durationMs: number, delayMs = 2000): ProgressSink {
  if (stream === undefined || labels.length === 0) return NO_PROGRESS;
  const started = Date.now();
  const state = labels.map(() => ({ simMs: 0, requests: 0, done: false, since: 0 }));
  let multi: MultiBar | null = null;
  let bars: ReturnType<MultiBar['create']>[] = [];
  const width = Math.max(...labels.map((l) => l.length));
  const payload = (i: number) => ({
    label: labels[i]!.padEnd(width),
    sim: (state[i]!.simMs / 1000).toFixed(1),
    dur: (durationMs / 1000).toFixed(1),
    requests: state[i]!.requests.toLocaleString('en-US'),
    remaining: eta(state[i]!),
  });
  // Remaining simulated time at this run's own pace so far; "waiting" until it has started.
  const eta = (s: (typeof state)[number]) => {
    if (s.done) return 'done';
    if (s.simMs <= 0 || s.since === 0) return 'waiting';
    const perSimMs = (Date.now() - s.since) / s.simMs;
    return `ETA ${Math.ceil(((durationMs - s.simMs) * perSimMs) / 1000)}s`;
  };
  const draw = () => {
    if (multi === null) {
      if (Date.now() - started < delayMs) return;
      multi = new MultiBar(
        {
          stream,
          format: '{label} |{bar}| {percentage}% | sim {sim}/{dur} s | {requests} requests | {duration_formatted} | {remaining}',
          hideCursor: true,
          clearOnComplete: false,
          stopOnComplete: false,
          etaBuffer: 50,
          fps: 5,
        },
        Presets.shades_classic,
      );
      bars = labels.map((_, i) => multi!.create(durationMs, state[i]!.simMs, payload(i)));
    }
    state.forEach((s, i) => bars[i]!.update(s.done ? durationMs : s.simMs, payload(i)));
    // cli-progress redraws on a timer, which cannot fire while a simulation runs on this thread (they
    // run synchronously): redraw now. `update` is throttled, so this is a few times a second at most.
    multi.update();
  };
  let last = 0;
  return {
    update(index, simMs, requests) {
      const s = state[index]!;
      if (s.since === 0 && simMs > 0) s.since = Date.now();
      s.simMs = simMs;
      s.requests = requests;
      // Throttled: the simulation calls this often; drawing is for people.
      const now = Date.now();
      if (now - last < 200) return;
      last = now;
      draw();
    },
    done(index) {
      state[index]!.done = true;
      state[index]!.simMs = durationMs;
      if (multi !== null) draw();
    },
    stop() {
      if (multi !== null) {
        draw();
        multi.stop();
      }
    },
  };
}
