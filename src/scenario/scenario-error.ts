/**
 * Errors in scenario files as users see them: `file:line:col: path.to.field: message`, one line
 * per problem, sorted by position, with an optional hint line. Owns the error class and the
 * field-path notation (`consumers[0].reference["com.example.UserService"].retries`); finding
 * positions in the YAML belongs to `load.ts`.
 */
import { clipMessage, clipText } from './clip-text.js';

/** A path into the raw document: map keys and list indexes. */
export type FieldPath = ReadonlyArray<string | number>;

/** One problem in a scenario file. `line` and `col` are 1-based; 0 means "no position" (a `--set` syntax error). */
export interface ScenarioIssue {
  file: string;
  line: number;
  col: number;
  /** Field path in the notation of `formatPath` ('' for the whole document). */
  path: string;
  message: string;
  hint?: string;
}

const IDENT = /^[A-Za-z_$][\w$-]*$/;

/** `consumers[0].reference["com.example.UserService"].retries`: identifiers after dots, indexes and other keys in brackets. */
export function formatPath(path: FieldPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENT.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** One issue as a line (plus an indented hint line). */
export function formatIssue(issue: ScenarioIssue): string {
  // What came from the input (file name, keys in the path, values in the message) is escaped and cut.
  const file = clipText(issue.file);
  const where = issue.line > 0 ? `${file}:${issue.line}:${issue.col}` : file;
  const message = clipMessage(issue.message);
  const head = issue.path === '' ? `${where}: ${message}` : `${where}: ${clipText(issue.path, 120)}: ${message}`;
  return issue.hint ? `${head}\n  hint: ${clipMessage(issue.hint)}` : head;
}

/** At most this many problems are printed; the rest are counted. */
const MAX_PRINTED_ISSUES = 50;

/** Bad input in a scenario file or a `--set` override; carries every problem found, the first in its own fields. */
export class ScenarioError extends Error {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly path: string;
  readonly hint?: string;
  /** Every problem, sorted by position. */
  readonly issues: ScenarioIssue[];

  constructor(issues: ScenarioIssue[]) {
    if (issues.length === 0) throw new Error('ScenarioError needs at least one issue');
    const sorted = [...issues].sort((a, b) => a.line - b.line || a.col - b.col);
    const first = sorted[0]!;
    super(first.message);
    this.name = 'ScenarioError';
    this.file = first.file;
    this.line = first.line;
    this.col = first.col;
    this.path = first.path;
    this.hint = first.hint;
    this.issues = sorted;
  }

  /** Every issue, one per line (hints on indented lines below their issue). */
  format(): string {
    const shown = this.issues.slice(0, MAX_PRINTED_ISSUES).map(formatIssue);
    const more = this.issues.length - shown.length;
    if (more > 0) shown.push(`... and ${more} more problem${more === 1 ? '' : 's'} in ${clipText(this.file)}`);
    return shown.join('\n');
  }
}
