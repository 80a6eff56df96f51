#!/usr/bin/env node
// Thin wrapper: the only place that calls process.exit. It runs the CLI in a child process of the
// same node and flags, so that a V8 out-of-memory abort ends with one zonesim line and exit 1
// instead of V8's dump (src/parallel/out-of-memory.ts); ZONESIM_NO_SUPERVISOR=1 runs it in this process.
import { fileURLToPath } from 'node:url';
import {
  exitIfParentGone,
  PARENT_PID_ENV,
  STDERR_ROWS_ENV,
  STDERR_TTY_ENV,
  SUPERVISED_ENV,
  superviseCli,
  watchParent,
} from '../dist/bundle/out-of-memory.js';

if (process.env[SUPERVISED_ENV] !== '1' && process.env.ZONESIM_NO_SUPERVISOR !== '1') {
  process.stderr.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
  const { exitCode, signal } = await superviseCli(fileURLToPath(import.meta.url), process.argv.slice(2));
  process.exitCode = exitCode;
  // A signal passed on to the child ends this process the same way (its handler is gone now).
  if (signal) process.kill(process.pid, signal);
} else {
  // Under the supervisor: end with it, even when it was killed by SIGKILL (src/parallel/parent-watch.ts).
  watchParent(Number(process.env[PARENT_PID_ENV]));
  const { main, reportError } = await import('../dist/bundle/main.js');
  const io = {
    stdout: (s) => {
      // Nothing goes to the stdout of a command whose supervisor was killed.
      exitIfParentGone();
      return process.stdout.write(s);
    },
    stderr: (s) => process.stderr.write(s),
    cwd: process.cwd(),
  };

  // What escapes every handler (a worker thread stopped at its heap limit is reported as an 'error'
  // event of the pool) still ends with one zonesim line: out of memory, or the error's message.
  process.on('uncaughtException', (error) => {
    process.exitCode = reportError(error, io, process.argv.slice(2));
    process.exit();
  });

  // A closed pipe (`zonesim run ... | head`) is not an error worth a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }

  // Under the supervisor stderr is a pipe to it; the parent says when its own stderr is a terminal, and its size.
  const ttyColumns = Number(process.env[STDERR_TTY_ENV]);
  const ttyRows = Number(process.env[STDERR_ROWS_ENV]);
  const progressStream = process.stderr.isTTY
    ? process.stderr
    : ttyColumns > 0
      ? Object.create(process.stderr, { isTTY: { value: true }, columns: { value: ttyColumns }, rows: { value: ttyRows > 0 ? ttyRows : undefined } })
      : undefined;

  // Progress bars only on a terminal: never on stdout, never into a pipe or a log file.
  const code = await main(process.argv.slice(2), { ...io, progressStream });
  process.exitCode = code;
}
