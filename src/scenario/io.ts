/**
 * The CLI's window on the world: output streams and the working directory. Commands write
 * through it so tests can capture output; only bin/zonesim.js touches `process`.
 */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  /** stderr when it is a terminal (progress bars go there); absent otherwise, and in tests. */
  progressStream?: NodeJS.WritableStream;
}

/** A usage or input error: printed as one line (no stack trace), exit code 2. */
export class UsageError extends Error {
  readonly hint?: string;
  constructor(message: string, hint?: string) {
    super(message);
    this.name = 'UsageError';
    this.hint = hint;
  }
}
