/**
 * "Did you mean" suggestions for scenario errors: the closest known name by Levenshtein
 * distance, when it is close enough to be a plausible typo. Owns nothing else.
 */

/** Levenshtein edit distance between two strings (two-row dynamic programme). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/**
 * The known name closest to `name`, if it is a plausible typo of it: same letters in another
 * case, or an edit distance of at most max(2, a third of the name's length).
 */
export function didYouMean(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    if (k.toLowerCase() === lower) return k;
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** `; did you mean "x"?` or the empty string. */
export function suggestion(name: string, known: Iterable<string>): string {
  const s = didYouMean(name, known);
  return s === undefined ? '' : `; did you mean "${s}"?`;
}
