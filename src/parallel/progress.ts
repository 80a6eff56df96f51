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

/** The sequences that turn line wrapping and the cursor back on, as cli-progress's `stop` does. */
const SHOW_CURSOR = '\x1b[?7h\x1b[?25h';

/**
 * Lines the bars may take on `stream`: one less than the terminal's rows, so that redrawing them
 * (the cursor goes back up to the first) never reaches above the screen, where each frame would be
 * drawn again into the scrollback. Unlimited when the height is unknown.
 */
function linesOn(stream: NodeJS.WritableStream): number {
  const rows = (stream as { rows?: unknown }).rows;
  return typeof rows === 'number' && rows > 0 ? Math.max(1, rows - 1) : Infinity;
}

/**
 * Bars for `labels.length` simulations of `durationMs` each, on `stream`; NO_PROGRESS without a
 * stream. More than fit in the terminal's height (`linesOn`): the unfinished ones in order get a bar
 * each but the last line, which sums up the others ("+12 more").
 */
export function progressBars(stream: NodeJS.WritableStream | undefined, labels: string[], durationMs: number, delayMs = 2000): ProgressSink {
  if (stream === undefined || labels.length === 0) return NO_PROGRESS;
  const started = Date.now();
  const state = labels.map(() => ({ simMs: 0, requests: 0, done: false, since: 0 }));
  const count = labels.length;
  const lines = Math.min(count, linesOn(stream));
  // Bars of one simulation each; the rest are summed up on the last line.
  const slots = lines < count ? lines - 1 : count;
  const restLabel = slots === 0 ? `all ${count}` : `+${count - slots} more`;
  let multi: MultiBar | null = null;
  let bars: ReturnType<MultiBar['create']>[] = [];
  const width = Math.max(...labels.map((l) => l.length), slots < count ? restLabel.length : 0);
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
  // Which simulations have a bar of their own: the unfinished ones in order, then the last finished.
  const shown = (): number[] => {
    const all = state.map((_, i) => i);
    if (slots === count) return all;
    const open = all.filter((i) => !state[i]!.done);
    const finished = all.filter((i) => state[i]!.done).reverse();
    return [...open, ...finished].slice(0, slots).sort((a, b) => a - b);
  };
  // The line that sums up the simulations without a bar.
  const rest = (others: number[]) => {
    let simMs = 0;
    let requests = 0;
    const by = { done: 0, running: 0, waiting: 0 };
    for (const i of others) {
      const s = state[i]!;
      simMs += s.done ? durationMs : s.simMs;
      requests += s.requests;
      by[s.done ? 'done' : s.since === 0 ? 'waiting' : 'running']++;
    }
    const remaining = by.done === others.length ? 'done' : (['running', 'waiting', 'done'] as const).filter((k) => by[k] > 0).map((k) => `${by[k]} ${k}`).join(', ');
    return {
      value: simMs,
      payload: {
        label: restLabel.padEnd(width),
        sim: (simMs / 1000).toFixed(1),
        dur: ((others.length * durationMs) / 1000).toFixed(1),
        requests: requests.toLocaleString('en-US'),
        remaining,
      },
    };
  };
  // A process that ends without `stop` (an error, `process.exit`) still gives the terminal its cursor back.
  const restoreOnExit = () => stream.write(`\n${SHOW_CURSOR}`);
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
      process.once('exit', restoreOnExit);
      bars = Array.from({ length: slots }, () => multi!.create(durationMs, 0));
      if (slots < count) bars.push(multi.create((count - slots) * durationMs, 0));
    }
    const mine = shown();
    mine.forEach((i, slot) => bars[slot]!.update(state[i]!.done ? durationMs : state[i]!.simMs, payload(i)));
    if (slots < count) {
      const own = new Set(mine);
      const { value, payload: sum } = rest(state.map((_, i) => i).filter((i) => !own.has(i)));
      bars[slots]!.update(value, sum);
    }
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
        process.off('exit', restoreOnExit);
      }
    },
  };
}
