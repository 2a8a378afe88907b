/**
 * "Did you mean …?" suggestions for misspelt names in workflow files, settings and MCP
 * config: the closest candidate within a small edit distance, or nothing.
 */

/** Edit distance counting a swap of two neighbouring letters as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
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

/** How many edits a typo of `name` may have: a third of its length, from 1 to 3. */
function typoDistance(name: string): number {
  return Math.max(1, Math.min(3, Math.floor(name.length / 3)));
}

/**
 * The closest candidate (case-insensitive), if it is close enough to be a likely typo:
 * within `maxDistance` edits, by default a third of the name's length (1 to 3).
 */
export function closest(name: string, candidates: Iterable<string>, maxDistance = typoDistance(name)): string | undefined {
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
  return bestDistance <= maxDistance ? best : undefined;
}

/** ` — did you mean 'x'?` or the fallback hint (which should start with ` — `). */
export function suggestion(name: string, candidates: Iterable<string>, fallback: string): string {
  const match = closest(name, candidates);
  return match === undefined ? fallback : ` — did you mean '${match}'?`;
}
