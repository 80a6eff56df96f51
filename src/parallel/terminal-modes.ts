/**
 * What the child's progress bars leave the terminal in, read from the stderr the supervisor passes
 * on (out-of-memory.ts). cli-progress hides the cursor and turns line wrapping off while it draws,
 * and turns both back on when it stops. A child that ends without stopping them (SIGINT, SIGTERM, an
 * abort: a simulation holds its event loop, so it cannot run a handler in time) would leave the
 * user's shell without a cursor, so the supervisor, which outlives it, puts both back.
 */

/** DECTCEM (cursor shown or hidden) and DECAWM (line wrapping on or off), as cli-progress writes them. */
const MODE = /\x1b\[\?(25|7)([hl])/g;
/** The longest of those sequences less one: what a chunk may end with before the rest arrives. */
const CARRY = 5;

/** Follows the cursor and line-wrapping modes in text written to a terminal. */
export class TerminalModes {
  #cursorHidden = false;
  #wrapOff = false;
  // The end of the text seen so far, where a sequence cut between two chunks begins.
  #carry = '';

  /** Reads `text`, the next piece written to the terminal. */
  observe(text: string): void {
    const s = this.#carry + text;
    // A sequence inside the carry is read again here: in the same order, so the state is the same.
    for (const [, mode, set] of s.matchAll(MODE)) {
      if (mode === '25') this.#cursorHidden = set === 'l';
      else this.#wrapOff = set === 'l';
    }
    this.#carry = s.slice(-CARRY);
  }

  /**
   * What to write to undo what the text left, '' when it left both modes on. The bars were stopped
   * mid-draw with the cursor on their last line, so a newline first: what comes next goes below them.
   */
  restore(): string {
    if (!this.#cursorHidden && !this.#wrapOff) return '';
    return `\n${this.#wrapOff ? '\x1b[?7h' : ''}${this.#cursorHidden ? '\x1b[?25h' : ''}`;
  }
}
