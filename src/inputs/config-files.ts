/**
 * Reading the config files of `zonesim import config` into dotted properties with their lines:
 * Java `.properties` (as `Properties.load` reads them), Spring Boot YAML (aliases and merge keys
 * followed, as SnakeYAML does for Spring Boot), and Spring placeholders `${key:default}` resolved
 * against the file itself, bounded so that a small hostile file cannot take unbounded time or
 * memory. What the properties mean is map-dubbo-config.ts's business.
 */
import { Document, isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Node, type YAMLMap } from 'yaml';
import { UsageError } from '../scenario/io.js';

/** One property: its dotted key (Spring's form: `a.b[0].c`), its text value and its line. */
export interface Property {
  key: string;
  value: string;
  line: number;
}

/**
 * Java `.properties`: `key=value`, `key: value` or `key value`, `#`/`!` comments, `\` continuations
 * and escapes (`\uXXXX` too); lines end at `\n`, `\r\n` or a lone `\r`, as in `Properties.load`.
 */
export function parseProperties(text: string): Property[] {
  const out: Property[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const startLine = i + 1;
    let logical = lines[i]!.replace(/^[ \t\f]+/, '');
    if (logical === '' || logical.startsWith('#') || logical.startsWith('!')) continue;
    // An odd number of trailing backslashes continues the line.
    while (/(^|[^\\])(\\\\)*\\$/.test(logical) && i + 1 < lines.length) {
      logical = logical.slice(0, -1) + lines[++i]!.replace(/^[ \t\f]+/, '');
    }
    let k = 0;
    let key = '';
    while (k < logical.length && !'=: \t\f'.includes(logical[k]!)) {
      if (logical[k] === '\\' && k + 1 < logical.length) {
        key += unescapeChar(logical, k);
        k += logical[k + 1] === 'u' ? 6 : 2;
      } else key += logical[k++];
    }
    while (k < logical.length && ' \t\f'.includes(logical[k]!)) k++;
    if (k < logical.length && '=:'.includes(logical[k]!)) k++;
    while (k < logical.length && ' \t\f'.includes(logical[k]!)) k++;
    let value = '';
    while (k < logical.length) {
      if (logical[k] === '\\' && k + 1 < logical.length) {
        value += unescapeChar(logical, k);
        k += logical[k + 1] === 'u' ? 6 : 2;
      } else value += logical[k++];
    }
    out.push({ key, value, line: startLine });
  }
  return out;
}

function unescapeChar(s: string, at: number): string {
  const c = s[at + 1]!;
  if (c === 'u') {
    const code = Number.parseInt(s.slice(at + 2, at + 6), 16);
    return Number.isNaN(code) ? 'u' : String.fromCharCode(code);
  }
  return ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[c] ?? c;
}

/** Nodes reached through YAML aliases beyond this many end the reading (a "billion laughs" file). */
export const MAX_ALIASED_NODES = 100_000;

/** A YAML 1.1 merge key (`<<: *base`): the yaml package reads a plain `<<` as a symbol when `merge` is on. */
const isMergeKey = (key: unknown) => isScalar(key) && typeof key.value === 'symbol';

/**
 * Spring Boot YAML flattened to dotted keys (every document, in order; lists as `[i]`, `[a.b]` keys
 * kept whole). Aliases (`*name`) and merge keys (`<<: *base`, `<<: [*a, *b]`) are followed as
 * SnakeYAML does for Spring Boot: a map's own keys win over merged ones, earlier merged maps over
 * later ones. A property's line is where its value is written (the anchored node for an alias).
 */
export function parseSpringYaml(text: string): Property[] {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, prettyErrors: false, merge: true });
  const out: Property[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      throw new UsageError(`not a YAML file: line ${lc.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`);
    }
    const lineOf = (node: unknown) => lc.linePos((node as Node).range?.[0] ?? 0).line;
    let aliased = 0;
    /** Maps and lists being walked, and maps being merged: an alias to one of them refers to itself, and is not followed. */
    const open = new Set<unknown>();
    const keyOf = (key: unknown) => {
      const rawKey = isScalar(key) ? String(key.value) : String(key);
      // Spring's `"[com.example.UserService]"` keeps the dots of one map key.
      return /^\[.*\]$/.test(rawKey) ? rawKey.slice(1, -1) : rawKey;
    };
    type Entry = { key: string; value: unknown; merged: boolean };
    /** The entries of a map, merged maps included (each key once: own keys first, then earlier merges). */
    const entries = (map: YAMLMap): Entry[] => {
      const own = map.items.filter((p) => !isMergeKey(p.key)).map((p): Entry => ({ key: keyOf(p.key), value: p.value, merged: false }));
      const seen = new Set(own.map((e) => e.key));
      const merged: Entry[] = [];
      for (const pair of map.items) {
        if (!isMergeKey(pair.key)) continue;
        for (const source of isSeq(pair.value) ? pair.value.items : [pair.value]) {
          const target = isAlias(source) ? source.resolve(doc as Document) : source;
          if (!isMap(target) || open.has(target)) continue;
          open.add(target);
          for (const e of entries(target)) {
            if (seen.has(e.key)) continue;
            seen.add(e.key);
            merged.push({ ...e, merged: true });
          }
          open.delete(target);
        }
      }
      return [...merged, ...own];
    };
    const walk = (node: unknown, prefix: string, viaAlias: boolean): void => {
      if (isAlias(node)) return walk(node.resolve(doc as Document), prefix, true);
      if (viaAlias && ++aliased > MAX_ALIASED_NODES) {
        throw new UsageError(`YAML aliases expand to more than ${MAX_ALIASED_NODES.toLocaleString('en-US')} values (at line ${lineOf(node)}); not read`);
      }
      if (isMap(node) || isSeq(node)) {
        if (open.has(node)) return;
        open.add(node);
        if (isMap(node)) {
          for (const e of entries(node)) walk(e.value, prefix === '' ? e.key : `${prefix}.${e.key}`, viaAlias || e.merged);
        } else node.items.forEach((item, i) => walk(item, `${prefix}[${i}]`, viaAlias));
        open.delete(node);
      } else if (isScalar(node) && node.value !== null) {
        out.push({ key: prefix, value: String(node.source ?? node.value), line: lineOf(node) });
      }
    };
    walk((doc as Document).contents, '', false);
  }
  return out;
}

// ---- placeholders ----

/** A placeholder expansion may add at most this many characters to a value; more is ignored (a placeholder bomb). */
export const MAX_EXPANDED_CHARS = 10_000;

/** Placeholders inside the values of placeholders are followed this deep. */
const MAX_PLACEHOLDER_DEPTH = 32;

export type Expansion = { value: string } | { problem: string };

/** Where the `}` that closes the `${` before `from` is (nested `${...}` skipped), or -1. */
function closingBrace(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '$' && text[i + 1] === '{') {
      depth++;
      i++;
    } else if (text[i] === '}') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** Where the `:` before a placeholder's default is (outside nested placeholders), or -1. */
function defaultSeparator(inner: string): number {
  let depth = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === '$' && inner[i + 1] === '{') {
      depth++;
      i++;
    } else if (inner[i] === '}') depth--;
    else if (inner[i] === ':' && depth === 0) return i;
  }
  return -1;
}

/**
 * Spring placeholders `${key}` / `${key:default}` (nested in keys, defaults and values) resolved
 * against the file's own properties. Each key is resolved once and remembered, so a value that
 * names another a hundred times costs a hundred look-ups; an expansion that grows a value by more
 * than MAX_EXPANDED_CHARS stops, and a key that comes back to itself is circular.
 */
export class Placeholders {
  readonly #props: Map<string, string>;
  readonly #resolved = new Map<string, Expansion>();
  readonly #resolving = new Set<string>();

  constructor(props: Map<string, string>) {
    this.#props = props;
  }

  /** `text` with its placeholders replaced, or why it cannot be. */
  resolve(text: string, depth = 0): Expansion {
    if (!text.includes('${')) return { value: text };
    if (depth > MAX_PLACEHOLDER_DEPTH) return { problem: `placeholders nested more than ${MAX_PLACEHOLDER_DEPTH} deep` };
    let out = '';
    let at = 0;
    for (;;) {
      const open = text.indexOf('${', at);
      const close = open < 0 ? -1 : closingBrace(text, open + 2);
      // An unclosed `${` stays as written, as in Spring.
      if (close < 0) return { value: out + text.slice(at) };
      out += text.slice(at, open);
      const inner = text.slice(open + 2, close);
      const sep = defaultSeparator(inner);
      const name = this.resolve(sep < 0 ? inner : inner.slice(0, sep), depth + 1);
      if ('problem' in name) return name;
      let found = this.#key(name.value, depth);
      if (found === undefined) {
        if (sep < 0) return { problem: `unresolved placeholder \${${name.value}} (no default, not in this file)` };
        found = this.resolve(inner.slice(sep + 1), depth + 1);
      }
      if ('problem' in found) return found;
      out += found.value;
      if (out.length > text.length + MAX_EXPANDED_CHARS) {
        return { problem: `placeholder expansion too large (it adds more than ${MAX_EXPANDED_CHARS.toLocaleString('en-US')} characters)` };
      }
      at = close + 1;
    }
  }

  /** The resolved value of property `name`, undefined when the file does not set it. */
  #key(name: string, depth: number): Expansion | undefined {
    const done = this.#resolved.get(name);
    if (done !== undefined) return done;
    const raw = this.#props.get(name);
    if (raw === undefined) return undefined;
    if (this.#resolving.has(name)) return { problem: `circular placeholder \${${name}} (its value comes back to itself)` };
    this.#resolving.add(name);
    const r = this.resolve(raw, depth + 1);
    this.#resolving.delete(name);
    this.#resolved.set(name, r);
    return r;
  }
}
