/**
 * `--set path=value` overrides (SPEC 1): parses the path notation
 * (`consumers[0].reference["com.example.UserService"].retries`, `duration`, `providers.1.count`)
 * and writes the value, read as a YAML scalar or flow value (`10m`, `0`, `{cidr: 10.30.0.0/16}`),
 * into the raw YAML document before validation. Validation and error positions belong to
 * `load.ts`; malformed expressions are reported here as `ScenarioError`s naming the `--set`.
 */
import { isAlias, isMap, isNode, isScalar, isSeq, parse as parseYaml, visit, type Document, type Node, type Pair, YAMLMap, YAMLSeq } from 'yaml';
import { ScenarioError } from './scenario-error.js';

/** One parsed `--set` expression. */
export interface Override {
  /** The expression as given. */
  expr: string;
  path: Array<string | number>;
  value: unknown;
}

const fail = (file: string, expr: string, what: string): never => {
  throw new ScenarioError([{ file, line: 0, col: 0, path: '', message: `--set ${expr}: ${what}` }]);
};

/** Parses `path=value`; throws a ScenarioError (mentioning `--set`) when malformed. */
export function parseSetExpression(expr: string, file = '<scenario>'): Override {
  const path: Array<string | number> = [];
  let i = 0;
  const at = () => `at character ${i + 1}`;
  for (;;) {
    if (expr[i] === '[') {
      i++;
      const q = expr[i];
      if (q === '"' || q === "'") {
        let j = i + 1;
        while (j < expr.length && expr[j] !== q) j += expr[j] === '\\' && q === '"' ? 2 : 1;
        if (j >= expr.length) fail(file, expr, `unclosed ${q} ${at()}`);
        const text = expr.slice(i, j + 1);
        let key: string;
        try {
          key = q === '"' ? (JSON.parse(text) as string) : text.slice(1, -1);
        } catch {
          return fail(file, expr, `malformed quoted key ${text}`);
        }
        path.push(key);
        i = j + 1;
      } else {
        const m = /^\d+/.exec(expr.slice(i));
        if (!m) fail(file, expr, `expected a list index or a quoted key after "[" ${at()}`);
        path.push(Number(m![0]));
        i += m![0].length;
      }
      if (expr[i] !== ']') fail(file, expr, `expected "]" ${at()}`);
      i++;
    } else {
      const m = /^[^.[\]="']+/.exec(expr.slice(i));
      if (!m) fail(file, expr, `expected a field name ${at()} (write keys with dots as ["a.b"])`);
      const seg = m![0].trim();
      path.push(/^\d+$/.test(seg) ? Number(seg) : seg);
      i += m![0].length;
    }
    if (i >= expr.length) fail(file, expr, 'expected path=value, found no "="');
    const c = expr[i];
    if (c === '=') break;
    if (c === '.') {
      i++;
      continue;
    }
    if (c === '[') continue;
    fail(file, expr, `unexpected "${c}" ${at()}`);
  }
  const text = expr.slice(i + 1);
  let value: unknown;
  try {
    value = text.trim() === '' ? null : parseYaml(text);
  } catch (e) {
    fail(file, expr, `the value is not a YAML value (${(e as Error).message.split('\n')[0]})`);
  }
  return { expr, path, value };
}

const keyOf = (k: unknown): string => (isScalar(k) ? String(k.value) : String(k));

function shown(path: ReadonlyArray<string | number>): string {
  return path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('').replace(/^\./, '') || '(the document)';
}

/** A deep copy of `node` without anchors (its aliases keep pointing at the original's anchors). */
function copyOf(node: Node): Node {
  const copy = node.clone() as Node;
  visit(copy, {
    Node(_, n) {
      if ('anchor' in n) n.anchor = undefined;
    },
  });
  if ('anchor' in copy) copy.anchor = undefined;
  return copy;
}

/**
 * Makes `node` private to its place before it is written: every alias of it elsewhere in the
 * document (plain `*a` or a merge `<<: *a`) becomes a copy of its current value, so the write does
 * not reach them.
 */
function unshare(doc: Document, node: unknown): void {
  if (!isNode(node) || !('anchor' in node) || !node.anchor) return;
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) === node) return copyOf(node);
      return undefined;
    },
  });
}

/** A `<<` key (with `merge: true` the parser gives it a symbol value; a created one is the plain string). */
function isMergeKey(key: unknown): boolean {
  if (!isScalar(key)) return false;
  const v = key.value;
  return typeof v === 'symbol' ? v.description === '<<' : v === '<<' && (!key.type || key.type === 'PLAIN');
}

/** The pair a merge key (`<<: *a`, `<<: [*a, *b]`, `<<: {...}`) gives `map` for `key`, if any (in the anchored map). */
export function mergedPair(doc: Document, map: YAMLMap, key: string): Pair | undefined {
  for (const pair of map.items) {
    if (!isMergeKey(pair.key)) continue;
    const sources = isSeq(pair.value) ? pair.value.items : [pair.value];
    for (let source of sources) {
      if (isAlias(source)) source = source.resolve(doc);
      if (!isMap(source)) continue;
      const found = source.items.find((p) => keyOf(p.key) === key) ?? mergedPair(doc, source, key);
      if (found) return found as Pair;
    }
  }
  return undefined;
}

/** The value a merge key gives `key` in `map`, if any. */
function mergedValue(doc: Document, map: YAMLMap, key: string): Node | undefined {
  const found = mergedPair(doc, map, key);
  if (found === undefined) return undefined;
  return (isAlias(found.value) ? found.value.resolve(doc) : found.value) as Node | undefined;
}

/**
 * Applies `--set` expressions to a parsed YAML document, in order; returns them parsed. A write
 * changes only the path it names: an alias on the way becomes a copy of what it points at, an
 * anchored node on the way first gives each of its aliases a copy, and a field that a map has
 * only through a merge key is copied into the map before something inside it is written.
 */
export function applyOverrides(doc: Document, overrides: readonly string[], file = '<scenario>'): Override[] {
  const applied: Override[] = [];
  for (const expr of overrides) {
    const o = parseSetExpression(expr, file);
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) doc.contents = new YAMLMap() as never;
    let node: unknown = doc.contents;
    unshare(doc, node);
    for (let k = 0; k < o.path.length; k++) {
      const seg = o.path[k]!;
      const last = k === o.path.length - 1;
      const make = (): Node =>
        last ? (doc.createNode(o.value) as Node) : typeof o.path[k + 1] === 'number' ? new YAMLSeq() : new YAMLMap();
      // The child at `seg`: an alias there is replaced by a private copy, an anchored one is unshared.
      const own = (child: unknown, put: (n: Node) => void): unknown => {
        if (isAlias(child)) {
          const copy = copyOf(child.resolve(doc) as Node);
          put(copy);
          return copy;
        }
        unshare(doc, child);
        return child;
      };
      if (isMap(node)) {
        const map = node;
        let pair = map.items.find((p) => keyOf(p.key) === String(seg));
        if (!pair && !last) {
          const merged = mergedValue(doc, map, String(seg));
          if (merged !== undefined && merged !== null) {
            map.items.push(doc.createPair(String(seg), copyOf(merged)) as never);
            pair = map.items[map.items.length - 1];
          }
        }
        const value = pair ? own(pair.value, (n) => (pair!.value = n)) : undefined;
        const empty = !pair || value === null || (isScalar(value) && value.value === null);
        if (last || empty) {
          const child = make();
          if (pair) pair.value = child;
          else map.items.push(doc.createPair(String(seg), child) as never);
          node = child;
        } else node = value;
      } else if (isSeq(node)) {
        if (typeof seg !== 'number') fail(file, expr, `${shown(o.path.slice(0, k))} is a list; index it with [n]`);
        const seq = node;
        const n = seq.items.length;
        if ((seg as number) > n) {
          // Templates expand after --set (SPEC 2.12): an index past the written list may mean an expanded group.
          const repeated = seq.items.some((item) => isMap(item) && item.items.some((p) => keyOf(p.key) === 'repeat'));
          const why = repeated ? ' (--set indexes the groups as written, before repeat: expands them; write to the template, or give the group its own entry)' : '';
          fail(file, expr, `${shown(o.path.slice(0, k + 1))} is past the end of a list of ${n}${why}`);
        }
        if (last || seg === n) {
          if (seg !== n) own(seq.items[seg as number], (c) => (seq.items[seg as number] = c));
          const child = make();
          if (seg === n) seq.items.push(child);
          else seq.items[seg as number] = child;
          node = child;
        } else node = own(seq.items[seg as number], (c) => (seq.items[seg as number] = c));
      } else {
        fail(file, expr, `${shown(o.path.slice(0, k))} is a single value, not a map or list`);
      }
    }
    applied.push(o);
  }
  return applied;
}
