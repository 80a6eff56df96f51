/**
 * Templates in scenario files (SPEC 2.12), applied to the raw document before validation: top-level
 * `x-*` keys are dropped (docker-compose's convention: a home for YAML anchors), and a provider or
 * consumer group with `repeat: N` becomes N groups in its place, `{i}` (0-based, as Kubernetes
 * StatefulSet ordinals and zonesim's own instance and group indexes) and `{i:0W}` (zero-padded to W
 * digits, `{i:03}`) substituted in every string and map key of the group. It also maps paths and
 * group mentions of the expanded document back to the file as written, so that an error points at
 * the template's line and says which repetition it is in. Validation itself is `schema.ts`'s.
 */
import type { Scenario, TemplateCounts } from '../model/types.js';
import type { FieldPath } from './scenario-error.js';
import type { PathIssue } from './zod-issues.js';

/** `repeat` at most this (a typo such as `repeat: 1e9` is refused, not expanded). */
export const MAX_REPEAT = 10_000;
/** Groups in one list after expansion at most this many. */
export const MAX_EXPANDED_GROUPS = 100_000;

/** The lists whose groups may carry `repeat`. */
export const TEMPLATE_LISTS = ['providers', 'consumers'] as const;
export type TemplateList = (typeof TEMPLATE_LISTS)[number];

/** Where an expanded group comes from: its index in the file's list, and its repetition when repeated. */
export interface GroupOrigin {
  index: number;
  i?: number;
}


/** The document after templates are applied, where each group came from, and what was wrong. */
export interface Expansion {
  raw: unknown;
  origins: Record<TemplateList, GroupOrigin[]>;
  /** Problems of the templates themselves, at paths of the file as written. */
  issues: PathIssue[];
  /** Groups with a `repeat` the schema refuses, left as written: only that field's problem is theirs to report. */
  unexpanded: FieldPath[];
  /** Per list, when some group of the file had `repeat`. */
  counts?: Record<TemplateList, TemplateCounts>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

// `{i}` or `{i:0W}`; anything else that starts `{i:` is a mistake worth naming.
const PLACEHOLDER = /\{i(?::0([1-9]))?\}/g;
const BAD_PLACEHOLDER = /\{i:(?!0[1-9]\})[^}]*\}/;

/** `text` with `{i}` and `{i:0W}` replaced by `i`. */
export function substitute(text: string, i: number): string {
  return text.replace(PLACEHOLDER, (_m, width: string | undefined) => (width === undefined ? String(i) : String(i).padStart(Number(width), '0')));
}

/** True when `repeat` is a value the schema accepts (an integer from 1 to MAX_REPEAT). */
const validRepeat = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_REPEAT;

/** A deep copy of `value` with the placeholders substituted in strings and map keys; key collisions and bad placeholders go to `issues`. */
function expandValue(value: unknown, i: number, path: Array<string | number>, issues: PathIssue[]): unknown {
  if (typeof value === 'string') {
    const bad = BAD_PLACEHOLDER.exec(value);
    if (bad) issues.push({ path, message: `expected {i} or {i:0W} such as {i:03} (W digits, zero-padded), found ${bad[0]}` });
    return substitute(value, i);
  }
  if (Array.isArray(value)) return value.map((v, k) => expandValue(v, i, [...path, k], issues));
  if (!isObj(value)) return value;
  const out: Obj = {};
  for (const [key, v] of Object.entries(value)) {
    const bad = BAD_PLACEHOLDER.exec(key);
    if (bad) issues.push({ path: [...path, key], atKey: true, message: `expected {i} or {i:0W} such as {i:03} (W digits, zero-padded), found ${bad[0]}` });
    const k = substitute(key, i);
    if (Object.hasOwn(out, k)) {
      issues.push({ path: [...path, key], atKey: true, message: `with i=${i} the key becomes "${k}", which the map already has` });
      continue;
    }
    out[k] = expandValue(v, i, [...path, key], issues);
  }
  return out;
}

/** Expands one list's templates; the groups of the file stay in order, each template's repetitions in its place. */
function expandList(list: unknown[], name: TemplateList, issues: PathIssue[], unexpanded: FieldPath[]): { groups: unknown[]; origins: GroupOrigin[]; repeats: number[] } {
  const groups: unknown[] = [];
  const origins: GroupOrigin[] = [];
  const repeats: number[] = [];
  list.forEach((g, index) => {
    // A bad repeat stays in the group, and the schema reports it there; the group's other problems
    // (its {i} not substituted) would only be noise.
    if (!isObj(g) || !validRepeat(g.repeat)) {
      if (isObj(g) && g.repeat !== undefined) unexpanded.push([name, index]);
      groups.push(g);
      origins.push({ index });
      return;
    }
    const n = g.repeat;
    // Provider group names must differ (consumer groups may share an application: traffic faults address them together).
    if (name === 'providers' && g.name !== undefined && !(typeof g.name === 'string' && /\{i(:0[1-9])?\}/.test(g.name))) {
      issues.push({
        path: [name, index, 'name'],
        message: `a group with repeat: ${n} needs {i} (or {i:03}) in its name, else its ${n} groups share one name`,
        hint: typeof g.name === 'string' ? `e.g. name: ${g.name}-{i}` : undefined,
      });
    }
    const { repeat: _repeat, ...template } = g;
    if (groups.length + n > MAX_EXPANDED_GROUPS) {
      issues.push({ path: [name, index, 'repeat'], message: `expands ${name} to more than ${MAX_EXPANDED_GROUPS.toLocaleString('en-US')} groups` });
      return;
    }
    repeats.push(n);
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const found: PathIssue[] = [];
      groups.push(expandValue(template, i, [name, index], found));
      origins.push({ index, i });
      // The same template problem comes once per repetition; the first one names it.
      for (const f of found) {
        const key = `${f.path.join('\u0000')}\u0000${f.message.replace(/i=\d+/, '')}`;
        if (!seen.has(key)) issues.push(f);
        seen.add(key);
      }
    }
  });
  return { groups, origins, repeats };
}

/** Applies the templates of a raw scenario document (the document itself is not changed). */
export function expandTemplates(raw: unknown): Expansion {
  const origins: Record<TemplateList, GroupOrigin[]> = { providers: [], consumers: [] };
  if (!isObj(raw)) return { raw, origins, issues: [], unexpanded: [] };
  const out: Obj = {};
  for (const [k, v] of Object.entries(raw)) if (!k.startsWith('x-')) out[k] = v;
  const issues: PathIssue[] = [];
  const unexpanded: FieldPath[] = [];
  let templated = false;
  const counts = {} as Record<TemplateList, TemplateCounts>;
  for (const name of TEMPLATE_LISTS) {
    const list = raw[name];
    if (!Array.isArray(list)) {
      counts[name] = { groups: 0, repeats: [] };
      continue;
    }
    const e = expandList(list, name, issues, unexpanded);
    out[name] = e.groups;
    origins[name] = e.origins;
    counts[name] = { groups: e.groups.length, repeats: e.repeats };
    templated ||= e.repeats.length > 0;
  }
  return { raw: out, origins, issues, unexpanded, ...(templated ? { counts } : {}) };
}

/** The map key of `template` that gives `key` at repetition `i` (the key itself when the template has it). */
function templateKey(template: unknown, key: string, i: number): string {
  if (!isObj(template) || (Object.hasOwn(template, key) && substitute(key, i) === key)) return key;
  return Object.keys(template).find((k) => substitute(k, i) === key) ?? key;
}

/**
 * A path of the expanded document as a path of the file as written (`providers[7].exports["svc-3"]`
 * → `providers[1].exports["svc-{i}"]`), and the repetition it is in; `written` is the document
 * before expansion.
 */
export function writtenPath(path: FieldPath, written: unknown, origins: Expansion['origins']): { path: Array<string | number>; i?: number } {
  const list = path[0];
  const k = path[1];
  const origin = typeof list === 'string' && typeof k === 'number' ? origins[list as TemplateList]?.[k] : undefined;
  if (origin === undefined) return { path: [...path] };
  const out: Array<string | number> = [list as string, origin.index];
  let node: unknown = isObj(written) ? (written[list as string] as unknown[] | undefined)?.[origin.index] : undefined;
  for (const seg of path.slice(2)) {
    const s = typeof seg === 'string' && origin.i !== undefined ? templateKey(node, seg, origin.i) : seg;
    out.push(s);
    node = node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[s] : undefined;
  }
  return origin.i === undefined ? { path: out } : { path: out, i: origin.i };
}

/**
 * Rewrites `providers[7]` and `consumers[2]` in a message to the group as written: `providers[1]`,
 * with `(repeat i=3)` after a mention of another group's repetition (not inside a path such as `providers[7].service`).
 */
export function writtenMentions(text: string, origins: Expansion['origins'], self?: FieldPath): string {
  return text.replace(/\b(providers|consumers)\[(\d+)\](?=([.[])?)/g, (m, list: TemplateList, k: string, inPath: string | undefined) => {
    const o = origins[list][Number(k)];
    if (o === undefined) return m;
    const own = self !== undefined && self[0] === list && self[1] === Number(k);
    return o.i === undefined || own || inPath !== undefined ? `${list}[${o.index}]` : `${list}[${o.index}] (repeat i=${o.i})`;
  });
}

/** The repetitions as a short list: `3`, `0, 2, 5`, `0..39`, `0..9, 12 and 3 more`. */
export function repetitionList(is: readonly number[]): string {
  const sorted = [...new Set(is)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let k = 0; k < sorted.length; ) {
    let j = k;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    runs.push(j - k >= 2 ? `${sorted[k]}..${sorted[j]}` : j === k ? `${sorted[k]}` : `${sorted[k]}, ${sorted[j]}`);
    k = j + 1;
  }
  return runs.length > 4 ? `${runs.slice(0, 3).join(', ')} and ${runs.length - 3} more` : runs.join(', ');
}

/**
 * Issues of the expanded document as issues of the file as written: paths and group mentions
 * mapped back, and one issue per template problem, naming the repetitions it is in (`(repeat i=0..39)`).
 */
export function writtenIssues(issues: readonly PathIssue[], written: unknown, expansion: Expansion): PathIssue[] {
  const out = new Map<string, { issue: PathIssue; general: PathIssue; is: number[] }>();
  for (const issue of issues) {
    const w = writtenPath(issue.path, written, expansion.origins);
    const message = writtenMentions(issue.message, expansion.origins, issue.path);
    const hint = issue.hint === undefined ? undefined : writtenMentions(issue.hint, expansion.origins, issue.path);
    // The same problem in several repetitions may name each one's group: merged, the group is named as written.
    const names = w.i === undefined ? [] : templatedNames(written, w.path, w.i);
    const general = { ...issue, path: w.path, message: writtenNames(message, names), ...(hint !== undefined ? { hint: writtenNames(hint, names) } : {}) };
    const key = `${w.path.join('\u0000')}\u0000${general.message}\u0000${general.hint ?? ''}\u0000${w.i === undefined}`;
    const seen = out.get(key);
    if (seen !== undefined) {
      if (w.i !== undefined) seen.is.push(w.i);
      continue;
    }
    out.set(key, { issue: { ...issue, path: w.path, message, ...(hint !== undefined ? { hint } : {}) }, general, is: w.i === undefined ? [] : [w.i] });
  }
  // Before the message, which may name other groups: `(repeat i=1) ... already used by providers[0]`.
  return [...out.values()].map(({ issue, general, is }) =>
    is.length === 0 ? issue : { ...(is.length === 1 ? issue : general), message: `(repeat i=${repetitionList(is)}) ${(is.length === 1 ? issue : general).message}` },
  );
}

/**
 * The templated `name` and `application` of the group a written path is in, each as [expanded for repetition
 * `i`, as written]: a message naming the group (`providers[0] (b007-A) runs dubbo '2.7'`) then reads the same in
 * every repetition (`providers[0] (b{i:03}-A)`), and the repetitions' issues become one.
 */
function templatedNames(written: unknown, path: ReadonlyArray<string | number>, i: number): Array<[string, string]> {
  const list = path[0];
  const index = path[1];
  if (typeof list !== 'string' || typeof index !== 'number' || !isObj(written)) return [];
  const group = (written[list] as unknown[] | undefined)?.[index];
  if (!isObj(group)) return [];
  const out: Array<[string, string]> = [];
  for (const key of ['name', 'application']) {
    const v = group[key];
    if (typeof v !== 'string') continue;
    const expanded = substitute(v, i);
    if (expanded !== v) out.push([expanded, v]);
  }
  return out;
}

/** `text` with each templated name (see `templatedNames`) as written, where it stands in parentheses or quotes. */
function writtenNames(text: string, names: ReadonlyArray<[string, string]>): string {
  let out = text;
  for (const [expanded, asWritten] of names) {
    for (const [open, close] of [['(', ')'], ['"', '"'], ["'", "'"]] as const) out = out.split(`${open}${expanded}${close}`).join(`${open}${asWritten}${close}`);
  }
  return out;
}

/** What a list holds after expansion, for `--dry-run`: groups, the templates they come from, instances. */
export interface ExpandedList {
  groups: number;
  /** `repeat` of each template, in file order. */
  templates: number[];
  /** Groups written without `repeat`. */
  asWritten: number;
  instances: number;
}

/** The lists of a scenario whose file had templates, after expansion; undefined without templates. */
export function expandedLists(scenario: Scenario): Record<TemplateList, ExpandedList> | undefined {
  const t = scenario.templates;
  if (t === undefined) return undefined;
  const one = (name: TemplateList, instances: number): ExpandedList => ({
    groups: t[name].groups,
    templates: t[name].repeats,
    asWritten: t[name].groups - t[name].repeats.reduce((s, n) => s + n, 0),
    instances,
  });
  return {
    providers: one('providers', scenario.providers.reduce((s, g) => s + g.count, 0)),
    consumers: one('consumers', scenario.consumers.reduce((s, c) => s + c.instances, 0)),
  };
}

const count = (n: number, one: string): string => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;

/** `providers: 40 groups (from 1 template x 40), 400 instances; consumers: 2 groups, 3,000 instances`. */
export function expandedListsText(lists: Record<TemplateList, ExpandedList>): string {
  return TEMPLATE_LISTS.map((name) => {
    const l = lists[name];
    const from =
      l.templates.length === 0
        ? ''
        : ` (from ${count(l.templates.length, 'template')} x ${l.templates.join(', x ')}${l.asWritten > 0 ? ` and ${count(l.asWritten, 'group')} as written` : ''})`;
    return `${name}: ${count(l.groups, 'group')}${from}, ${count(l.instances, 'instance')}`;
  }).join('; ');
}
