/**
 * The supervising parent (bin/zonesim.js) and the CLI's child process as users run them (the built
 * CLI): the child ends with its parent even when the parent is killed by SIGKILL, and writes nothing
 * then; the terminal gets its cursor back when the child is stopped in the middle of its progress
 * bars, which stay within the terminal's height. Linux: child processes are found with `ps --ppid`
 * and /proc, and a terminal is given with util-linux's `script`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TerminalModes } from '../../src/parallel/terminal-modes.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const BIN = join(root, 'bin', 'zonesim.js');
/** How long a wait for an event may take before the test fails (a safety net, not a measurement). */
const SAFETY_MS = 60_000;
/** zone-a-down for an hour of simulated time: about 10 s of CPU, so a kill lands in the middle. */
const LONG = ['scenarios/zone-a-down.yaml', '--set', 'duration=3600s'];

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const e = { ...process.env, ...extra };
  for (const name of ['ZONESIM_SUPERVISED', 'ZONESIM_NO_SUPERVISOR', 'ZONESIM_PARENT_PID', 'NODE_OPTIONS']) delete e[name];
  return e;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `done` every 50 ms until it holds; fails after SAFETY_MS. */
async function waitFor(what: string, done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 50) {
    if (waited > SAFETY_MS) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function childrenOf(pid: number): number[] {
  const ps = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
}

/** Whether `pid` still runs: it exists and is not a zombie waiting for whoever adopted it to reap it. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU time `pid` has used, all its threads (/proc/<pid>/stat: utime and stime, in clock ticks); 0 once gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    // After "pid (comm) ", utime and stime are the 12th and 13th fields.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** When `pid` started (/proc/<pid>/stat field 22, clock ticks since boot); undefined once gone. */
function startTicks(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[19];
  } catch {
    return undefined;
  }
}

// Whatever a failed test left running is stopped by its pid, and only if that pid is still the
// process the test started: pids are reused (pid_max may be 32768), and another test's process may
// hold it by now.
const started: Array<{ pid: number; since: string | undefined }> = [];
const track = (pid: number) => started.push({ pid, since: startTicks(pid) });
afterEach(() => {
  for (const { pid, since } of started.splice(0)) {
    try {
      if (since !== undefined && startTicks(pid) === since && running(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
});

/** What a process wrote to `stream` so far, and a promise that resolves once it matches `pattern`. */
function output(stream: NodeJS.ReadableStream, pattern: RegExp): { seen: () => string; appeared: Promise<void> } {
  let seen = '';
  const appeared = new Promise<void>((resolve) =>
    stream.on('data', (d) => {
      seen += String(d);
      if (pattern.test(seen)) resolve();
    }),
  );
  return { seen: () => seen, appeared };
}

const exitOf = (proc: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));

describe('kill -9 of zonesim (J-sigkill-parent: the child simulated on and wrote a results folder)', () => {
  it.each([
    ['a simulation on the child\'s main thread', ['run', ...LONG, '--jobs', '1']],
    ['simulations on a worker thread too', ['compare', ...LONG, '--jobs', '2']],
  ])('ends the child and writes nothing: %s', async (_what, args) => {
    const out = tempDir('zs-sigkill-');
    // No terminal, as in the audit: the child writes nothing to its stderr (a write into the dead
    // parent's pipe would end it anyway), so only watching its parent can end it.
    const parent = spawn(process.execPath, [BIN, ...args, '--out', out], { cwd: root, env: env(), stdio: ['ignore', 'ignore', 'pipe'] });
    track(parent.pid!);
    const stderr = output(parent.stderr!, /./);
    let kids: number[] = [];
    await waitFor('the child to start', () => (kids = childrenOf(parent.pid!)).length > 0);
    expect(kids).toHaveLength(1);
    track(kids[0]!);
    // Start-up takes well under a second of CPU: past 2 s the child is simulating.
    await waitFor('the child to simulate', () => cpuSeconds(kids[0]!) >= 2);
    const exited = exitOf(parent);
    parent.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');
    // The child goes too, before its simulations end: gone, it can write nothing later.
    await waitFor('the child to end', () => !running(kids[0]!));
    expect(readdirSync(out)).toEqual([]);
    expect(stderr.seen()).toBe('');
  });
});

describe('the terminal after the progress bars', () => {
  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

  /**
   * Runs a 16-run compare in a terminal of 8 rows (util-linux `script`), waits for its bars, stops it
   * with `stop` and returns everything the terminal received and how zonesim ended.
   */
  async function inTerminal(stop: (terminal: ChildProcess, zonesim: number) => void) {
    const out = tempDir('zs-tty-');
    const command = `stty rows 8 cols 150; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} compare ${LONG.join(' ')} --seeds 8 --jobs 2 --out ${JSON.stringify(out)}`;
    const terminal = spawn('script', ['-qfec', command, '/dev/null'], { cwd: root, env: env(), stdio: ['pipe', 'pipe', 'ignore'] });
    track(terminal.pid!);
    // A bar redrawn (the cursor back up to the first bar): the runs are under way.
    const screen = output(terminal.stdout!, / requests \|[^]*\x1b\[\d+A/);
    const exited = exitOf(terminal);
    await Promise.race([screen.appeared, sleep(SAFETY_MS)]);
    // `script`'s shell ran zonesim in its place (exec).
    const [zonesim] = childrenOf(terminal.pid!);
    expect(zonesim).toBeGreaterThan(0);
    track(zonesim!);
    stop(terminal, zonesim!);
    const { code } = await exited;
    return { text: screen.seen(), code, out };
  }

  /** The cursor and line wrapping are on at the end, and the bars never went above an 8-row screen. */
  function expectRestored(text: string) {
    expect(text).toContain('\x1b[?25l');
    expect(text.lastIndexOf('\x1b[?25h')).toBeGreaterThan(text.lastIndexOf('\x1b[?25l'));
    expect(text.lastIndexOf('\x1b[?7h')).toBeGreaterThan(text.lastIndexOf('\x1b[?7l'));
    // TTY-overflow: 16 bars redrawn in 8 rows went into the scrollback; now at most 7 lines, 6 up.
    const ups = [...text.matchAll(/\x1b\[(\d+)A/g)].map((m) => Number(m[1]));
    expect(ups.length).toBeGreaterThan(0);
    expect(Math.max(...ups)).toBeLessThanOrEqual(6);
    expect(text).toContain('+10 more');
  }

  it.skipIf(!hasScript)('Ctrl-C in the middle of the bars: exit 130, nothing written, the cursor shown (TTY-ctrl-c)', async () => {
    const r = await inTerminal((terminal) => terminal.stdin!.write('\x03'));
    expect(r.code).toBe(130);
    expectRestored(r.text);
    expect(readdirSync(r.out)).toEqual([]);
  });

  it.skipIf(!hasScript)('SIGTERM to zonesim in the middle of the bars: exit 143, the cursor shown (TTY-sigterm)', async () => {
    const r = await inTerminal((_terminal, zonesim) => process.kill(zonesim, 'SIGTERM'));
    expect(r.code).toBe(143);
    expectRestored(r.text);
    expect(readdirSync(r.out)).toEqual([]);
  });
});

describe('watchParent', () => {
  // A process that watches `pid`, then says it is still running once its event loop has turned a few times.
  const watching = (pid: string) => {
    const watch = pathToFileURL(join(root, 'dist/parallel/parent-watch.js')).href;
    const script = `import { watchParent } from ${JSON.stringify(watch)}; watchParent(${pid}, 10); setTimeout(() => console.log('still running'), 300);`;
    return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  };

  it('keeps running while its parent does, and without a pid to watch', () => {
    for (const pid of ['process.ppid', 'Number(undefined)']) {
      const r = watching(pid);
      expect(r.stdout, pid).toBe('still running\n');
      expect(r.status).toBe(0);
    }
  });

  it('ends at once when the supervisor is already gone', () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    const r = watching(String(gone));
    expect(r.stdout).toBe('');
    expect(r.status).toBe(1);
  });
});

describe('TerminalModes', () => {
  const after = (...chunks: string[]) => {
    const modes = new TerminalModes();
    for (const c of chunks) modes.observe(c);
    return modes.restore();
  };

  it('restores nothing after bars that stopped, or no bars at all', () => {
    expect(after('zonesim: warning\n')).toBe('');
    expect(after('\x1b[?25l\x1b[?7lseed 1 |██░░|', '\x1b[?25h\x1b[?7h\nseed 1 |████|\n')).toBe('');
  });

  it('ends the bar line and turns wrapping and the cursor back on after bars cut short', () => {
    expect(after('\x1b[?25l\x1b[?7lseed 1 |██░░| 50%')).toBe('\n\x1b[?7h\x1b[?25h');
    expect(after('\x1b[?25lseed 1 |██░░| 50%')).toBe('\n\x1b[?25h');
  });

  it('reads a sequence cut between two chunks, wherever the cut', () => {
    const text = 'x\x1b[?25l\x1b[?7lseed 1 |██░░|\x1b[?7h\x1b[?25h\n\x1b[?25lseed 2';
    for (let cut = 0; cut <= text.length; cut++) {
      expect(after(text.slice(0, cut), text.slice(cut)), `cut at ${cut}`).toBe('\n\x1b[?25h');
    }
  });
});
