/**
 * "Did you mean" suggestions for scenario errors: the closest known name by edit distance
 * (Levenshtein with adjacent transpositions), when it is close enough to be a plausible typo,
 * and, where names come in kinds (load balancers, clusters), the name's own kind ranked first.
 * Owns nothing else.
 */

/** Edit distance counting insertions, deletions, substitutions and adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** Largest distance still read as a typo: 1 for short names, 2 up to 12 characters, 3 beyond. */
function tolerance(length: number): number {
  return length <= 4 ? 1 : length <= 12 ? 2 : 3;
}

/**
 * The known name closest to `name`, if it is a plausible typo of it: the same letters in
 * another case, a close edit distance, or (for 4+ characters) a prefix of one another.
 */
export function didYouMean(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  let prefix: string | undefined;
  for (const k of known) {
    const kl = k.toLowerCase();
    if (kl === lower) return k;
    const d = editDistance(lower, kl);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
    if (prefix === undefined && lower.length >= 4 && (kl.startsWith(lower) || lower.startsWith(kl))) prefix = k;
  }
  if (best !== undefined && bestDistance <= tolerance(name.length)) return best;
  return prefix;
}

/** `; did you mean "x"?` or the empty string. */
export function suggestion(name: string, known: Iterable<string>): string {
  const s = didYouMean(name, known);
  return s === undefined ? '' : `; did you mean "${s}"?`;
}

/**
 * `; did you mean "x"?` among names of several kinds, `kind`'s own names first: a name of another
 * kind is suggested only when none of `kind` is close (`cluster: random` suggests the load
 * balancer, saying where it goes), or noted beside the suggestion when it is the very name in
 * another case (`cluster: zoneaware`: the cluster `zone-aware`, and the load balancer `zoneAware`).
 */
export function suggestionOfKind(name: string, kind: string, kinds: Readonly<Record<string, Iterable<string>>>): string {
  const lower = name.toLowerCase();
  const own = didYouMean(name, kinds[kind] ?? []);
  const others = Object.entries(kinds).filter(([k]) => k !== kind);
  const elsewhere = (s: string, k: string, not = '') => `"${s}" is a ${k} name${not}: write ${k}: ${s}`;
  if (own !== undefined) {
    if (own.toLowerCase() === lower) return `; did you mean "${own}"?`;
    for (const [k, names] of others) {
      const same = [...names].find((n) => n.toLowerCase() === lower);
      if (same !== undefined) return `; did you mean "${own}"? (${elsewhere(same, k)})`;
    }
    return `; did you mean "${own}"?`;
  }
  for (const [k, names] of others) {
    const s = didYouMean(name, names);
    if (s !== undefined) return `; ${elsewhere(s, k, `, not a ${kind} name`)}`;
  }
  return '';
}
