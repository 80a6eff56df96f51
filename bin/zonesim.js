#!/usr/bin/env node
// Thin wrapper: the only place that calls process.exit.
import { main } from '../dist/cli/main.js';

// A closed pipe (`zonesim run ... | head`) is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const code = await main(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  cwd: process.cwd(),
  // Progress bars only on a terminal: never on stdout, never into a pipe or a log file.
  progressStream: process.stderr.isTTY ? process.stderr : undefined,
});
process.exitCode = code;
