/**
 * Whether a command line will have every core simulating at once, read by the supervising parent
 * (`bin/zonesim.js`) before it starts the CLI's child process, so that it can choose the child's V8
 * flags. V8 takes most flags only when a process starts, and a process's flags hold for all its
 * threads. This is a guess from the words of the command line, not a parse: yargs in the child parses
 * and checks everything. A wrong guess costs speed only, never a result: V8 flags do not change what
 * a simulation computes.
 */

/**
 * V8 flags for a child whose every core runs a simulation. V8 compiles optimized code and marks the
 * heap on background threads; with every core simulating, those threads take their time from the
 * simulations (measured on a 2-core machine: `compare --seeds 2 --jobs 2` 1.72 -> 1.58 s at 150
 * simulated s, 3.43 -> 3.27 s at 600 s; two zone-a-down processes side by side 1.56-1.78 s each against
 * 1.48 s alone by default, 1.56 s each with this flag). One simulation alone gains from those threads
 * (`compare --jobs 1`, the same four runs one after another: 1.95 s with them, 2.21 s without), so
 * one simulation at a time keeps V8's default.
 */
export const EVERY_CORE_V8_FLAGS: readonly string[] = ['--single-threaded'];

/** Global options that take a value and may come before the command. */
const GLOBAL_WITH_VALUE = new Set(['--plugin-timeout']);

/** The value of `--name value` or `--name=value` (the last one given), or undefined. */
function optionValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === name) value = argv[i + 1];
    else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
  }
  return value;
}

function given(argv: readonly string[], name: string): boolean {
  return argv.some((arg) => arg === name || arg.startsWith(`${name}=`));
}

/** A whole number >= 1 written in decimal digits, else undefined. */
function whole(text: string | undefined): number | undefined {
  if (text === undefined || !/^[0-9]+$/.test(text.trim())) return undefined;
  const n = Number(text);
  return n >= 1 && Number.isSafeInteger(n) ? n : undefined;
}

/** The command `argv` names (its first word that is not an option), or undefined. */
export function commandOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (GLOBAL_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * True when `argv` (the CLI's arguments, without node and the script) runs simulations side by side
 * on at least `cores` threads, `cores` >= 2: `compare`, `sweep` and `recommend`, and `run` with
 * `--seeds` above 1, with `--jobs` at least `cores` (its default is `cores`) and, for `run`, at
 * least as many seeds (no more threads start than simulations), and not `--dry-run` or
 * `sweep --explain` (they run nothing). The same cases as `withJobs`'s `parallel` in main.ts.
 */
export function simulatesOnEveryCore(argv: readonly string[], cores: number): boolean {
  if (cores < 2) return false;
  const command = commandOf(argv);
  if (command === undefined || given(argv, '--help') || given(argv, '-h') || given(argv, '--dry-run')) return false;
  let simulations = Infinity;
  if (command === 'run') {
    const seeds = whole(optionValue(argv, '--seeds'));
    if (seeds === undefined || seeds < 2) return false;
    simulations = seeds;
  } else if (command === 'sweep') {
    if (given(argv, '--explain')) return false;
  } else if (command !== 'compare' && command !== 'recommend') return false;
  const jobsText = optionValue(argv, '--jobs');
  const jobs = jobsText === undefined ? cores : whole(jobsText);
  return jobs !== undefined && Math.min(jobs, simulations) >= cores;
}
