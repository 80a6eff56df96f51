/**
 * How an error reaches the user (SPEC 1): one line on stderr, never a stack trace (unless
 * ZONESIM_DEBUG is set), and the exit code: 2 for bad input or usage, 1 for a failure while
 * running (out of memory named as such). main.ts calls it for what a command throws, and
 * bin/zonesim.js for what escapes every handler.
 */
import { clipMessage } from '../scenario/clip-text.js';
import { UsageError, type Io } from '../scenario/io.js';
import { commandOf } from '../parallel/busy-cores.js';
import { outOfMemoryMessage } from '../parallel/out-of-memory.js';

/** Prints an error the way SPEC 1 wants and returns its exit code; `argv` names the command (for hints). */
export function reportError(error: unknown, io: Io, argv: readonly string[] = []): number {
  const e = error as { name?: string; message?: string; hint?: string; format?: () => string; violations?: string[] };
  if (e && e.name === 'ScenarioError' && typeof e.format === 'function') {
    io.stderr(e.format() + '\n');
    return 2;
  }
  if (error instanceof UsageError) {
    // Usage errors echo argv (yargs' "Unknown argument: ..." too): escaped and cut (clip-text.ts).
    io.stderr(`zonesim: ${clipMessage(error.message)}\n`);
    const details = (error as { details?: string }).details;
    if (details) io.stderr(details.endsWith('\n') ? details : `${details}\n`);
    if (error.hint) io.stderr(`hint: ${clipMessage(error.hint)}\n`);
    return 2;
  }
  if (e && e.name === 'InvariantError') {
    io.stderr(`zonesim: ${e.message}\n`);
    return 1;
  }
  const oom = outOfMemoryMessage(error, commandOf(argv));
  if (oom !== undefined) {
    io.stderr(`zonesim: ${oom}\n`);
    return 1;
  }
  io.stderr(`zonesim: ${clipMessage(e?.message ?? String(error))}\n`);
  if (process.env.ZONESIM_DEBUG && (error as Error)?.stack) io.stderr(`${(error as Error).stack}\n`);
  return 1;
}
