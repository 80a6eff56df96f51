/**
 * Loads scenario files (YAML, or JSON through the same parser, which keeps positions): applies
 * `--set` overrides to the raw document, validates it with the schema and the cross-reference
 * checks, and reports every problem at once as `file:line:col: path: expected X, found Y`. On
 * success it returns the normalized `Scenario`. This is the scenario layer's only file reader.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, YAMLParseError, type Document } from 'yaml';
import { addressCapacityIssues } from './address-capacity.js';
import { crossCheck } from './cross-check.js';
import { loadDataFiles } from './data-files.js';
import { dataFileReader } from './data-root.js';
import { normalizeScenario } from './normalize.js';
import { readTextFile, TextFileError } from './read-text-file.js';
import { applyOverrides, mergedPair, type Override } from './overrides.js';
import { formatPath, ScenarioError, type FieldPath, type ScenarioIssue } from './scenario-error.js';
import { rawScenarioSchema } from './schema.js';
import { expandTemplates, writtenIssues, writtenPath } from './templates.js';
import { aliasErrorMessage, maxAliasCountOf } from './yaml-aliases.js';
import type { Scenario } from '../model/types.js';
import { fromZodIssues, zodParseOptions, type PathIssue } from './zod-issues.js';

export { ScenarioError, formatPath } from './scenario-error.js';
export type { ScenarioIssue } from './scenario-error.js';
export { applyOverrides, parseSetExpression } from './overrides.js';
export type { Override } from './overrides.js';

/** A loaded scenario and the raw document it came from, after overrides ("the scenario as run"). */
export interface LoadedScenario {
  scenario: Scenario;
  /** The file text, or the document re-serialized with the `--set` overrides applied. */
  rawText: string;
}

const keyOf = (k: unknown): string => (isScalar(k) ? String(k.value) : String(k));
const startOf = (n: unknown): number | undefined =>
  n && typeof n === 'object' && 'range' in n ? (n as { range?: [number, number, number] }).range?.[0] : undefined;

/** Offset in the source of the node at `path` (its key with `atKey`), or of its deepest existing ancestor. */
function offsetOf(doc: Document, path: FieldPath, atKey: boolean): number {
  let node: unknown = doc.contents;
  let pos = startOf(node) ?? 0;
  for (let i = 0; i < path.length; i++) {
    if (isAlias(node)) node = node.resolve(doc);
    const seg = path[i]!;
    if (isMap(node)) {
      // A field a map has through a merge key (`<<: *trade`) is at its line in the anchored map.
      const pair = node.items.find((p) => keyOf(p.key) === String(seg)) ?? mergedPair(doc, node, String(seg));
      if (!pair) break;
      const keyPos = startOf(pair.key);
      if (i === path.length - 1 && atKey) return keyPos ?? pos;
      const valuePos = startOf(pair.value);
      pos = valuePos ?? keyPos ?? pos;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      if (item === undefined) break;
      pos = startOf(item) ?? pos;
      node = item;
    } else break;
  }
  return pos;
}

/** True when the node at `path` exists but has no source range: `--set` created it. */
function createdBySet(doc: Document, path: FieldPath): boolean {
  let node: unknown = doc.contents;
  for (const seg of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) node = node.items.find((p) => keyOf(p.key) === String(seg))?.value;
    else if (isSeq(node) && typeof seg === 'number') node = node.items[seg];
    else return false;
    if (node === undefined || node === null) return false;
  }
  return startOf(node) === undefined;
}

const startsWith = (path: FieldPath, prefix: FieldPath): boolean =>
  prefix.length <= path.length && prefix.every((s, i) => String(s) === String(path[i]));

/** Keys whose maps hold URL parameters: their values keep their source text (`version: 1.0` stays "1.0"). */
const URL_PARAM_KEYS = new Set(['params', 'parameters']);

function keepParamSourceText(doc: Document): void {
  visit(doc, {
    Pair(_, pair) {
      if (!isScalar(pair.key) || !URL_PARAM_KEYS.has(String(pair.key.value)) || !isMap(pair.value)) return;
      for (const item of pair.value.items) {
        if (isScalar(item.value) && item.value.value !== null && typeof item.value.value !== 'string') {
          item.value.value = item.value.source ?? String(item.value.value);
        }
      }
    },
  });
}

/**
 * The YAML parser's `DUPLICATE_KEY` error ("Map keys must be unique") for each key of a map equal to an
 * earlier one of the same map (two scalars of one value: the parser's own test), found with a set per map
 * instead of the parser's comparison with every earlier key; the errors stay in document order.
 */
function addDuplicateKeyErrors(doc: Document): void {
  let added = false;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = pair.key;
        if (!isScalar(key)) continue;
        // NaN is no scalar's equal (the parser compares with ===).
        if (typeof key.value === 'number' && Number.isNaN(key.value)) continue;
        if (!seen.has(key.value)) {
          seen.add(key.value);
          continue;
        }
        const at = key.range?.[0] ?? 0;
        doc.errors.push(new YAMLParseError([at, at + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
        added = true;
      }
    },
  });
  if (added) doc.errors.sort((a, b) => a.pos[0] - b.pos[0]);
}

/** The YAML parser's own errors (syntax, duplicate keys) as scenario issues. */
function yamlIssues(doc: Document, lc: LineCounter, file: string): ScenarioIssue[] {
  return doc.errors.map((e) => {
    const { line, col } = lc.linePos(e.pos[0]);
    const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return { file, line, col, path: '', message: `YAML: ${message}` };
  });
}

/** Path issues with their positions in the file; a value written by `--set` is named instead. */
function positioned(all: readonly PathIssue[], doc: Document, lc: LineCounter, fileName: string, applied: readonly Override[]): ScenarioIssue[] {
  const docStart = lc.linePos(startOf(doc.contents) ?? 0);
  const seen = new Set<string>();
  const issues: ScenarioIssue[] = [];
  for (const i of all) {
    const path = formatPath(i.path);
    if (seen.has(`${path}\u0000${i.message}`)) continue;
    seen.add(`${path}\u0000${i.message}`);
    // A value written by --set has no place in the file: point at the document start and name the --set.
    const set = [...applied]
      .reverse()
      .find((o) => startsWith(i.path, o.path) || (startsWith(o.path, i.path) && createdBySet(doc, i.path)));
    const { line, col } = set ? docStart : lc.linePos(offsetOf(doc, i.path, i.atKey === true));
    const message = set ? `${i.message} (from --set ${set.expr})` : i.message;
    issues.push({ file: fileName, line, col, path, message, ...(i.hint ? { hint: i.hint } : {}) });
  }
  return issues;
}

const ANCHOR_HINT = 'top-level keys starting with x- are ignored (a home for YAML anchors: x-defaults: &defaults {...})';

/** Parses and validates scenario text; `fileName` is used in messages and for the default scenario name. */
export function parseScenarioWithRaw(text: string, fileName: string, overrides: readonly string[] = []): LoadedScenario {
  const lc = new LineCounter();
  // PERF: the parser's own duplicate-key check compares each key with every key before it: ~1 s for the
  // seed scale's map of 4,000 services. The same check, one set per map (duplicateKeyErrors).
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, merge: true, uniqueKeys: false });
  addDuplicateKeyErrors(doc);
  if (doc.errors.length > 0) throw new ScenarioError(yamlIssues(doc, lc, fileName));
  const applied: Override[] = applyOverrides(doc, overrides, fileName);

  keepParamSourceText(doc);
  let raw: unknown;
  const maxAliasCount = maxAliasCountOf(doc);
  try {
    raw = doc.toJS({ maxAliasCount });
  } catch (e) {
    throw new ScenarioError([{ file: fileName, line: 1, col: 1, path: '', message: `YAML: ${aliasErrorMessage((e as Error).message, maxAliasCount)}` }]);
  }

  if (raw === null || raw === undefined) {
    throw new ScenarioError([
      { file: fileName, line: 1, col: 1, path: '', message: 'the file is empty; expected a scenario map with zones, services, providers and consumers' },
    ]);
  }
  // Templates (templates.ts): `x-*` keys go, `repeat: N` groups become N groups. Everything below
  // validates the expanded document; its problems are mapped back to the file as written (where
  // `--set` paths point too), at the template's line and naming the repetition.
  const written = raw;
  const expansion = expandTemplates(written);
  raw = expansion.raw;
  const toWritten = (issues: readonly PathIssue[]): PathIssue[] => writtenIssues(issues, written, expansion);
  const knownKeys = new WeakMap<object, string[]>();
  const parsed = rawScenarioSchema.safeParse(raw, zodParseOptions(knownKeys));
  const cross = crossCheck(raw);
  const schemaIssues = parsed.success ? [] : fromZodIssues(parsed.error.issues, raw, knownKeys);
  // A template's own problem (a name without {i}) stands for what it causes in the groups (duplicate names).
  const templateFields = expansion.issues.map((i) => formatPath(i.path));
  const all: PathIssue[] = [
    ...expansion.issues,
    ...toWritten([...schemaIssues.filter((i) => !cross.suppress.some((p) => startsWith(i.path, p))), ...cross.issues])
      .filter((i) => !templateFields.includes(formatPath(i.path)))
      .filter((i) => !expansion.unexpanded.some((g) => startsWith(i.path, g) && !startsWith(i.path, [...g, 'repeat'])))
      // A top-level key the schema does not know: the error stays, and says where anchors may live.
      .map((i) => (i.path.length === 1 && i.atKey && i.hint === undefined ? { ...i, hint: ANCHOR_HINT } : i)),
  ];
  if (all.length > 0) throw new ScenarioError(positioned(all, doc, lc, fileName, applied));
  // Measured distributions: data files are relative to the scenario file and stay inside its folder
  // tree (or --data-root, data-root.ts); bad data points at its own line, a refused or missing file
  // at the field that names it (a path given by --set is named as such).
  const dataIssues = loadDataFiles(parsed.data, raw, fileName, dataFileReader(fileName));
  if (dataIssues.length > 0) {
    const at = (i: (typeof dataIssues)[number]) => writtenPath([...i.path, i.key], written, expansion.origins).path;
    const named = (i: (typeof dataIssues)[number]) => lc.linePos(offsetOf(doc, at(i), false));
    throw new ScenarioError([
      ...dataIssues
        .filter((i) => i.at !== undefined)
        .map((i) => ({
          file: i.file,
          line: i.at!.line,
          col: i.at!.col,
          path: formatPath(at(i).slice(0, -1)),
          message: i.message,
          hint: `named at ${fileName}:${named(i).line}:${named(i).col} (${formatPath(at(i))})`,
        })),
      ...positioned(
        toWritten(dataIssues.filter((i) => i.at === undefined).map((i) => ({ path: [...i.path, i.key], message: i.message }))),
        doc,
        lc,
        fileName,
        applied,
      ),
    ]);
  }
  const scenario = normalizeScenario(parsed.data!, fileName);
  if (expansion.counts !== undefined) scenario.templates = expansion.counts;
  // Needs the normalized timeline (durations, fault targets, default CIDRs).
  const capacity = addressCapacityIssues(scenario);
  if (capacity.length > 0) throw new ScenarioError(positioned(toWritten(capacity), doc, lc, fileName, applied));
  return { scenario, rawText: applied.length > 0 ? doc.toString() : text };
}

/** Parses and validates scenario text (YAML or JSON); throws a ScenarioError listing every problem. */
export function parseScenario(text: string, fileName: string, overrides: readonly string[] = []): Scenario {
  return parseScenarioWithRaw(text, fileName, overrides).scenario;
}

// Bounded: a directory, FIFO, device or file above 10 MB is refused before reading (read-text-file.ts).
function readScenarioText(path: string): string {
  try {
    return readTextFile(path);
  } catch (e) {
    const reason = e instanceof TextFileError ? e.message : (e as Error).message;
    throw new ScenarioError([{ file: path, line: 0, col: 0, path: '', message: `cannot read the scenario: ${reason}` }]);
  }
}

/** Reads and validates a scenario file. */
export function loadScenarioFile(path: string, overrides: readonly string[] = []): Scenario {
  return parseScenarioWithRaw(readScenarioText(path), path, overrides).scenario;
}

/** Reads and validates a scenario file, also returning its text after overrides (for results folders). */
export function loadScenarioWithRaw(path: string, overrides: readonly string[] = []): LoadedScenario {
  return parseScenarioWithRaw(readScenarioText(path), path, overrides);
}
