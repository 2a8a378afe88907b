/**
 * Set differences between two listings (tools, resources, prompts), phrased for the log
 * line that reports a `list_changed`.
 */

export interface ListDiff {
  added: string[];
  removed: string[];
}

export function diffNames(before: Iterable<string>, after: Iterable<string>): ListDiff {
  const old = new Set(before);
  const now = new Set(after);
  return { added: [...now].filter((name) => !old.has(name)), removed: [...old].filter((name) => !now.has(name)) };
}

/** `added a, b; removed c` or `no change`. */
export function describeDiff(diff: ListDiff): string {
  const parts: string[] = [];
  if (diff.added.length) parts.push(`added ${diff.added.join(', ')}`);
  if (diff.removed.length) parts.push(`removed ${diff.removed.join(', ')}`);
  return parts.length ? parts.join('; ') : 'no change';
}
