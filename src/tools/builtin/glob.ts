/**
 * The glob built-in: files matching a pattern, newest first, honouring .gitignore, so the
 * model finds recently touched files before stale ones.
 */
import { WeftError } from '../../core/errors.js';
import type { Tool, ToolContext, ToolResult } from '../tool.js';
import { textResult } from '../tool.js';
import { globFilesWithTimes, scopePattern } from './workspace-glob.js';
import { displayPath, fileNotFound, resolveInWorkspace, statOrUndefined, workspaceRealRoot } from './workspace-path.js';

export const MAX_GLOB_RESULTS = 1000;

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const pattern = args.pattern as string;
  const basePath = (args.path as string | undefined) ?? '.';
  const base = await resolveInWorkspace(context.workspaceRoot, basePath, context.realRoots, context.sandbox?.rules.denyRead);
  const shownBase = displayPath(context.workspaceRoot, base);
  const stats = await statOrUndefined(base);
  if (!stats) throw fileNotFound(shownBase, 'Use list_dir to see which folders exist.');
  if (!stats.isDirectory()) throw new WeftError('TOOL_FAILED', `'${shownBase}' is a file; path must be a directory.`);
  const realRoot = await workspaceRealRoot(context.workspaceRoot, context.realRoots);
  const found = await globFilesWithTimes(realRoot, scopePattern(realRoot, base, pattern));
  if (found.length === 0) return textResult(`No files match '${pattern}' in '${shownBase}'.`);
  const rows = found
    .map((entry) => ({ shown: displayPath(context.workspaceRoot, entry.path), mtimeMs: entry.mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
  const lines = rows.slice(0, MAX_GLOB_RESULTS).map((row) => row.shown);
  if (rows.length > MAX_GLOB_RESULTS) {
    lines.push(`... ${rows.length - MAX_GLOB_RESULTS} more files not shown; use a narrower pattern or path.`);
  }
  return textResult(lines.join('\n'));
}

export const globTool: Tool = {
  name: 'glob',
  source: 'builtin',
  description:
    'Find files in the workspace by glob pattern (e.g. "**/*.ts", "src/**/index.*"). Honours .gitignore and skips .git. ' +
    'Returns paths relative to the workspace root, most recently modified first.',
  annotations: { title: 'Find files', readOnlyHint: true, idempotentHint: true },
  inputSchema: {
    type: 'object',
    properties: {
      pattern: { type: 'string', minLength: 1, description: 'Glob pattern, relative to path, e.g. "**/*.md".' },
      path: {
        type: 'string',
        minLength: 1,
        description: 'Directory to search from, relative to the workspace root or absolute inside it. Defaults to the workspace root.',
      },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  execute,
};
