/**
 * "Did you mean …?" suggestions for misspelt names: the closest candidate within a small
 * edit distance, or nothing.
 */

/** Edit distance counting a swap of two neighbouring letters as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The closest candidate (case-insensitive), if it is close enough to be a likely typo. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = name.toLowerCase();
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const limit = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  return bestDistance <= limit ? best : undefined;
}

/** ` — did you mean 'x'?` or the fallback hint (which should start with ` — `). */
export function suggestion(name: string, candidates: Iterable<string>, fallback: string): string {
  const match = closest(name, candidates);
  return match === undefined ? fallback : ` — did you mean '${match}'?`;
}
