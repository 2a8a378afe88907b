/**
 * How a surface words what is wrong with its input (MCP tool arguments, HTTP bodies and
 * queries): one line per problem with its path, so both surfaces say it alike.
 */
import type * as z from 'zod';

type Issue = z.core.$ZodIssue;

/**
 * One line per problem, each with its path. A union (a run given as a path or an object)
 * reports the branch the value was meant for — the one whose problems lie inside the
 * value — instead of zod's bare "Invalid input".
 *
 * @example describeIssues(error) // → 'runs.0.dry_run: Invalid input: expected boolean, received string'
 */
export function describeIssues(error: z.ZodError): string {
  const lines: string[] = [];
  const visit = (issue: Issue, prefix: readonly PropertyKey[]) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union') {
      const inside = issue.errors.find((branch) => branch.length > 0 && branch.every((nested) => nested.path.length > 0));
      if (inside) return inside.forEach((nested) => visit(nested, path));
      const expected = issue.errors.flatMap((branch) =>
        branch.flatMap((nested) => (nested.code === 'invalid_type' ? [nested.expected] : [])),
      );
      if (expected.length > 0)
        return void lines.push(`${describePath(path)}: Invalid input: expected ${[...new Set(expected)].join(' or ')}`);
    }
    lines.push(`${describePath(path)}: ${issue.message}`);
  };
  for (const issue of error.issues) visit(issue, []);
  return lines.join('; ');
}

function describePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'arguments' : path.map(String).join('.');
}
