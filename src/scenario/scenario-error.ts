/**
 * Errors in scenario files as users see them: `file:line:col: path.to.field: message`, one line
 * per problem, sorted by position, with an optional hint line. Owns the error class and the
 * field-path notation (`consumers[0].reference["com.example.UserService"].retries`); finding
 * positions in the YAML belongs to `load.ts`.
 */

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
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.col}` : issue.file;
  const head = issue.path === '' ? `${where}: ${issue.message}` : `${where}: ${issue.path}: ${issue.message}`;
  return issue.hint ? `${head}\n  hint: ${issue.hint}` : head;
}

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
    return this.issues.map(formatIssue).join('\n');
  }
}
