/**
 * The CLI's child process ends with its supervising parent (bin/zonesim.js, out-of-memory.ts). A
 * parent killed by SIGKILL passes nothing on, and a child left running would finish its simulations,
 * write a results folder nobody waits for (racing a retried job) and print into the old stdout.
 * Node has no parent-death signal (`prctl`), so the child watches whether its parent is still its
 * parent: the kernel hands an orphan to another process (init or a subreaper), which changes
 * `process.ppid`, a system call each time it is read. The check runs every 100 ms while the event
 * loop is free, at each progress step of a simulation on this thread (which holds the loop for the
 * whole simulation), and before anything is written or printed.
 */

/** Set in the child's environment by the supervising parent: the parent's pid. */
export const PARENT_PID_ENV = 'ZONESIM_PARENT_PID';

/** The parent watched in this thread; undefined when not watching (unsupervised, tests, worker threads). */
let watched: number | undefined;

/**
 * Starts watching the supervisor `parentPid` (from `PARENT_PID_ENV`): this process ends as soon as its
 * parent is gone, at once when the supervisor already is. Nothing happens for a pid that is not a
 * positive number.
 */
export function watchParent(parentPid: number, intervalMs = 100): void {
  if (!(Number.isInteger(parentPid) && parentPid > 0)) return;
  // The supervisor started this process itself, unless a launcher runs between them (a wrapper
  // around node): then the launcher is the parent to watch, as long as the supervisor still runs.
  if (process.ppid !== parentPid && !running(parentPid)) process.exit(1);
  watched = process.ppid;
  setInterval(exitIfParentGone, intervalMs).unref();
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True while this thread watches a parent (a simulation on it then checks at each progress step). */
export function watchingParent(): boolean {
  return watched !== undefined;
}

/** True once the watched parent is gone; never when not watching. */
export function parentGone(): boolean {
  return watched !== undefined && process.ppid !== watched;
}

/**
 * Ends this process, worker threads and all, when the watched parent is gone. It prints nothing: its
 * stderr went to the parent, and whoever ran the parent has been told it was killed.
 */
export function exitIfParentGone(): void {
  if (parentGone()) process.exit(1);
}
