/**
 * Out of memory ends with one zonesim line and exit 1, never V8's dump. Two layers:
 * - in process, `outOfMemoryMessage` recognizes the allocation failures JavaScript can catch
 *   ("Invalid array length", "Invalid string length", "Array buffer allocation failed", a worker
 *   thread stopped at its heap limit) so `reportError` prints them as out of memory;
 * - V8's own heap-limit abort cannot be caught inside the process that hits it, so
 *   `bin/zonesim.js` runs the CLI in a child process (`superviseCli`) and watches it: the child's
 *   stderr passes through line by line until V8's fatal banner appears, and when the child then
 *   dies by SIGABRT the banner is replaced by one line. The child is the same `node` with the
 *   same flags, plus the V8 flags below and a heap limit of half the machine's memory where node's
 *   command line and NODE_OPTIONS set none (`childHeapFlags`); signals sent to the parent are passed on to it, the
 *   child ends by itself when the parent is gone (parent-watch.ts), and the terminal modes its
 *   progress bars leave off are put back when it ends without doing so (terminal-modes.ts).
 *   `ZONESIM_NO_SUPERVISOR=1` runs the CLI in the one process (what V8 prints then is V8's).
 */
import { spawn } from 'node:child_process';
import { availableParallelism, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { commandOf, EVERY_CORE_V8_FLAGS, simulatesOnEveryCore } from './busy-cores.js';
import { PARENT_PID_ENV } from './parent-watch.js';
import { TerminalModes } from './terminal-modes.js';

export { exitIfParentGone, PARENT_PID_ENV, watchParent } from './parent-watch.js';

/** Set in the child's environment: the CLI runs there, under a supervising parent. */
export const SUPERVISED_ENV = 'ZONESIM_SUPERVISED';
/** Set by the parent when its stderr is a terminal, with its width: the child may draw progress bars. */
export const STDERR_TTY_ENV = 'ZONESIM_STDERR_COLUMNS';
/** Set with `STDERR_TTY_ENV`: the terminal's height, which the child's progress bars keep within. */
export const STDERR_ROWS_ENV = 'ZONESIM_STDERR_ROWS';

const heapLimitMb = () => Math.round(getHeapStatistics().heap_size_limit / (1024 * 1024));

/** The commands that take `--dry-run` (the cost estimate). */
const DRY_RUN_COMMANDS: ReadonlySet<string> = new Set(['run', 'compare', 'sweep', 'recommend']);

/** What to try when the heap ran out: the estimate where `command` has one, and a larger heap. */
const heapHint = (command: string | undefined): string =>
  `${command !== undefined && DRY_RUN_COMMANDS.has(command) ? 'see what it needs with --dry-run; ' : ''}NODE_OPTIONS=--max-old-space-size=MB raises the heap limit`;

/**
 * A string, array or buffer longer than V8 allows (a string holds at most about 512 MB): a fixed
 * limit, which a larger heap does not raise, so the only way out is less data.
 */
const TOO_LONG =
  'the results need a string or array longer than JavaScript allows, a fixed V8 limit that --max-old-space-size does not raise; ' +
  'make them smaller: a wider --bucket, or fewer grid values, seeds or strategies';

/** How V8 and Node name a length over their fixed limits, in errors JavaScript can catch. */
const LENGTH_LIMIT = /^(Invalid (typed )?array length|Invalid string length|Invalid array buffer length)/;

/**
 * The one-line message for an error that is an allocation failure, or undefined; `command` (the
 * CLI's command, when known) decides whether the hint may name `--dry-run`.
 */
export function outOfMemoryMessage(error: unknown, command?: string): string | undefined {
  const e = error as { name?: string; message?: unknown; code?: unknown } | null;
  if (e === null || typeof e !== 'object') return undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  const code = typeof e.code === 'string' ? e.code : '';
  const what = message.split('\n')[0]!.slice(0, 80);
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return `out of memory: a simulation worker thread reached its heap limit (${heapLimitMb()} MB); ${heapHint(command)}`;
  }
  if (code === 'ERR_STRING_TOO_LONG' || code === 'ERR_BUFFER_TOO_LARGE' || (e.name === 'RangeError' && LENGTH_LIMIT.test(message))) {
    return `out of memory (${what}): ${TOO_LONG}`;
  }
  if (e.name === 'RangeError' && message.startsWith('Array buffer allocation failed')) {
    return `out of memory (${what}): the run needs more memory than this process could get; ${heapHint(command)}`;
  }
  return undefined;
}

// How the lines that open a V8 / C++ fatal report on stderr begin.
const FATAL_START = ['<--- Last few GCs --->', '<--- JS stacktrace --->', 'FATAL ERROR:', '# Fatal', 'terminate called after throwing', '----- Native stack trace -----'];
const opensFatal = (line: string) => line === '#' || FATAL_START.some((p) => line.startsWith(p));
// A line not yet ended that may still turn out to open a fatal report.
const mayOpenFatal = (partial: string) => partial === '#' || FATAL_START.some((p) => p.startsWith(partial) || partial.startsWith(p));
const OOM = /out of memory|Allocation failed|heap limit|std::bad_alloc|invalid size error|invalid table size|Invalid array length/i;
// The fatal reports of a length over V8's fixed limits (not of the heap running out).
const FATAL_LENGTH = /invalid size error|invalid table size|Invalid array length/i;
const MAX_HELD_BYTES = 1024 * 1024;

/** Scans a child's stderr: passes ordinary output on at once, holds a fatal report back. */
export class StderrFilter {
  readonly #forward: (text: string) => void;
  /** The current line so far, when it might still turn out to open a fatal report. */
  #pending = '';
  /** Inside a line already passed on. */
  #midLine = false;
  /** Blank lines held until we know whether a fatal report follows. */
  #blank = '';
  #fatal = false;
  #held = '';

  constructor(forward: (text: string) => void) {
    this.#forward = forward;
  }

  /** True once a fatal report has started. */
  get fatal(): boolean {
    return this.#fatal;
  }

  /** The fatal report held back (at most 1 MB). */
  get held(): string {
    return this.#held;
  }

  write(chunk: string): void {
    if (this.#fatal) return this.#hold(chunk);
    let text = this.#pending + chunk;
    this.#pending = '';
    while (text.length > 0 && !this.#fatal) {
      const nl = text.indexOf('\n');
      const line = nl >= 0 ? text.slice(0, nl + 1) : text;
      text = nl >= 0 ? text.slice(nl + 1) : '';
      if (this.#midLine) {
        this.#forward(line);
        this.#midLine = nl < 0;
        continue;
      }
      const body = line.replace(/\r?\n$/, '');
      if (nl < 0) {
        // A partial line: hold it only while it could still be the start of a fatal report.
        if (mayOpenFatal(body)) this.#pending = line;
        else {
          this.#flushBlank();
          this.#forward(line);
          this.#midLine = true;
        }
        continue;
      }
      if (body.trim() === '') {
        this.#blank += line;
        continue;
      }
      if (opensFatal(body)) {
        this.#fatal = true;
        this.#blank = '';
        this.#hold(line + text);
        return;
      }
      this.#flushBlank();
      this.#forward(line);
    }
  }

  /** The child is gone: passes on what is held unless it is a fatal report (`held` then keeps it). */
  end(): void {
    if (this.#fatal) return;
    this.#flushBlank();
    if (this.#pending !== '') this.#forward(this.#pending);
    this.#pending = '';
  }

  #flushBlank(): void {
    if (this.#blank !== '') this.#forward(this.#blank);
    this.#blank = '';
  }

  #hold(text: string): void {
    if (this.#held.length < MAX_HELD_BYTES) this.#held += text.slice(0, MAX_HELD_BYTES - this.#held.length);
  }
}

/**
 * What ended the child and what the parent should say and return; `command` is the CLI's command
 * (for the hint).
 */
export function childOutcome(
  code: number | null,
  signal: NodeJS.Signals | null,
  filter: StderrFilter,
  command?: string,
): { exitCode: number; message?: string; dump?: string } {
  const aborted = signal === 'SIGABRT' || signal === 'SIGTRAP' || signal === 'SIGILL' || signal === 'SIGSEGV' || code === 134 || code === 133 || code === 132 || code === 139;
  if (filter.fatal && OOM.test(filter.held)) {
    const detail = /FATAL ERROR: ([^\n]*)/.exec(filter.held)?.[1] ?? /# (Fatal (?!error in\b)[^\n]*)/.exec(filter.held)?.[1] ?? /terminate called after throwing an instance of '([^']*)'/.exec(filter.held)?.[1];
    const what = detail !== undefined ? ` (${detail.trim().slice(0, 100)})` : '';
    if (FATAL_LENGTH.test(filter.held) && !/heap out of memory|Allocation failed/i.test(filter.held)) return { exitCode: 1, message: `out of memory${what}: ${TOO_LONG}` };
    return { exitCode: 1, message: `out of memory${what}: the run needed more than the ${heapLimitMb()} MB this process may use; ${heapHint(command)}` };
  }
  if (filter.fatal) return { exitCode: aborted ? 1 : (code ?? 1), dump: filter.held };
  if (signal === 'SIGKILL') {
    return { exitCode: 1, message: 'killed by SIGKILL (often the system out-of-memory killer: the run needed more memory than the machine had free)' };
  }
  if (signal !== null) return { exitCode: 128 + (signalNumber(signal) ?? 0) };
  return { exitCode: code ?? 1 };
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  const table: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };
  return table[signal];
}

/**
 * V8 flags the CLI's child process runs with, besides the parent's own. A simulation allocates
 * short-lived objects fast, many of which live long enough to be promoted; V8's default lets the old
 * generation grow up to 4x what survives before collecting it, so peak RSS was mostly garbage (an
 * 8,000-instance run: 1.2 GB peak for 200 MB live). Growing it by a quarter keeps the peak near the live
 * size, at equal speed on `npm run bench` (by half, the first choice, the seed-scale estate's 1.2 GB live
 * heap peaked at 2.1 GB RSS; by a quarter at 1.85 GB, in the same wall time). Each scavenge copies the requests in flight, however
 * young the generation; at tens of thousands of requests per second that set is large, so a young
 * generation twice V8's default (semi-spaces of 32 MB instead of 16) halves the scavenges and their
 * cost (the large deployment: GC 2.9 s -> 1.45 s, about 50 MB more peak RSS). V8's allocation-site
 * pretenuring allocates the objects of an object literal straight in the old generation once most of
 * them have survived a scavenge; a scavenge during the first calls of a large world (thousands of
 * consumer instances, every early request still in flight) made it do that for the per-request
 * literals, which then died in the old generation and kept the young objects they point to alive
 * until the next mark-compact (the large deployment without its restart: 130 MB promoted in 15
 * simulated s instead of 23, 3.0 s -> 2.6 s). A flag given on node's command line (`node
 * --heap-growing-percent=0 bin/zonesim.js ...` restores V8's default; `--allocation-site-pretenuring`
 * turns pretenuring back on) wins. `--expose-gc` lets a thread that runs several simulations collect each one's
 * world as soon as it ends (`collectIfGrown` in sim-task.ts).
 */
export const CHILD_V8_FLAGS: readonly string[] = ['--heap-growing-percent=25', '--max-semi-space-size=32', '--no-allocation-site-pretenuring', '--expose-gc'];

/**
 * `execArgv` plus each of `CHILD_V8_FLAGS` and `extra` it does not already set (node takes V8 flags
 * only on its command line).
 */
export function childExecArgv(execArgv: readonly string[], extra: readonly string[] = []): string[] {
  // A boolean flag counts as given in either sense (`--x` or `--no-x`), and V8 reads `-` and `_` alike.
  const spellings = (name: string) => [name, `--${name.slice(2).replaceAll('-', '_')}`];
  const given = (flag: string) => {
    const name = flag.split('=')[0]!;
    const base = name.startsWith('--no-') ? `--${name.slice(5)}` : name;
    const names = [...spellings(base), ...spellings(`--no-${base.slice(2)}`)];
    return execArgv.some((arg) => names.some((n) => arg === n || arg.startsWith(`${n}=`)));
  };
  return [...execArgv, ...[...CHILD_V8_FLAGS, ...extra].filter((f) => !given(f))];
}

/** The V8 flags that set a heap limit, as V8 reads them (`-` and `_` alike). */
const HEAP_LIMIT_FLAG = /^--max[-_](old[-_]space|heap)[-_]size(=|$)/;

/**
 * The child's heap limit as a V8 flag: half the machine's memory (`totalMemMb`), or nothing where V8's own
 * limit (`defaultLimitMb`, this process's `heap_size_limit`) is already that much, or where node's command
 * line (`execArgv`) or NODE_OPTIONS sets a limit (the user's choice wins).
 */
// V8's default is about 4 GB on any machine of 16 GB or more. Estates of the seed articles' size peak at 1.5 to
// 3.1 GB as written and their variants above the estimate (a ZooKeeper election at 10^5 providers: 2.7 GB against
// 1.5 GB estimated); near the limit V8 collects again and again (a Sentinel variant sat at 4.0-4.1 GB for ten
// minutes), and an estimate above it refused a run the machine had the memory for. The limit only caps the
// heap: V8 grows it by `--heap-growing-percent` whatever the cap, so runs below 4 GB use what they used.
export function childHeapFlags(execArgv: readonly string[], nodeOptions: string | undefined, totalMemMb: number, defaultLimitMb: number): string[] {
  const options = (nodeOptions ?? '').split(/\s+/);
  if ([...execArgv, ...options].some((arg) => HEAP_LIMIT_FLAG.test(arg))) return [];
  const halfMb = Math.floor(totalMemMb / 2);
  return halfMb > defaultLimitMb ? [`--max-old-space-size=${halfMb}`] : [];
}

/** `childHeapFlags` for a child of this process (its flags and NODE_OPTIONS) on this machine. */
export function heapFlagsForChild(execArgv: readonly string[] = process.execArgv): string[] {
  return childHeapFlags(execArgv, process.env.NODE_OPTIONS, totalmem() / (1024 * 1024), heapLimitMb());
}

/**
 * Runs `script args` in a child `node` with this process's flags and watches it (see the module
 * comment). Resolves with the exit code the parent should end with; a signal that ended the child
 * after the parent passed it on is re-raised on the parent by the caller (`signal`).
 */
export function superviseCli(script: string, args: string[]): Promise<{ exitCode: number; signal?: NodeJS.Signals }> {
  // The child ends by itself when this process is gone (parent-watch.ts).
  const env: NodeJS.ProcessEnv = { ...process.env, [SUPERVISED_ENV]: '1', [PARENT_PID_ENV]: String(process.pid) };
  if (process.stderr.isTTY) {
    env[STDERR_TTY_ENV] = String(process.stderr.columns || 80);
    env[STDERR_ROWS_ENV] = String(process.stderr.rows || 24);
  }
  const extra = [
    ...(simulatesOnEveryCore(args, availableParallelism()) ? EVERY_CORE_V8_FLAGS : []),
    ...heapFlagsForChild(),
  ];
  const child = spawn(process.execPath, [...childExecArgv(process.execArgv, extra), script, ...args], { stdio: ['inherit', 'inherit', 'pipe'], env });
  // What the child's progress bars leave the terminal in: put back if the child ends without doing so.
  const modes = new TerminalModes();
  const filter = new StderrFilter((text) => {
    modes.observe(text);
    process.stderr.write(text);
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => filter.write(chunk));
  const passed = new Set<NodeJS.Signals>();
  const forward = (sig: NodeJS.Signals) => {
    passed.add(sig);
    child.kill(sig);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
  for (const sig of signals) process.on(sig, forward);
  return new Promise((resolve) => {
    child.on('error', (error) => {
      for (const sig of signals) process.off(sig, forward);
      process.stderr.write(`zonesim: cannot start ${process.execPath}: ${error.message}\n`);
      resolve({ exitCode: 1 });
    });
    child.on('close', (code, signal) => {
      for (const sig of signals) process.off(sig, forward);
      filter.end();
      const restore = modes.restore();
      if (restore !== '' && process.stderr.isTTY) process.stderr.write(restore);
      if (signal !== null && passed.has(signal)) return resolve({ exitCode: 128 + (signalNumber(signal) ?? 0), signal });
      const outcome = childOutcome(code, signal, filter, commandOf(args));
      if (outcome.dump !== undefined) process.stderr.write(outcome.dump);
      if (outcome.message !== undefined) process.stderr.write(`zonesim: ${outcome.message}\n`);
      resolve({ exitCode: outcome.exitCode });
    });
  });
}
