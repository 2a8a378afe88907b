/**
 * The grep built-in: JavaScript-regex search over the workspace honouring .gitignore.
 * Files that show up in results count as read for the read-before-write guardrail.
 */
import { promises as fs } from 'node:fs';
import { WeftError, errorMessage } from '../../core/errors.js';
import type { Tool, ToolContext, ToolResult } from '../tool.js';
import { textResult } from '../tool.js';
import { looksBinary } from './binary-sniff.js';
import { globFiles, scopePattern } from './workspace-glob.js';
import { displayPath, fileNotFound, resolveInWorkspace, statOrUndefined, workspaceRealRoot } from './workspace-path.js';

export const DEFAULT_MAX_RESULTS = 200;
// Minified files put a whole bundle on one line; a match should not flood the output.
const MAX_MATCH_LINE_CHARS = 500;
// Bigger files are almost always generated or data; reading them would stall the search.
const MAX_FILE_BYTES = 10 * 1024 * 1024;

function compile(pattern: string, caseInsensitive: boolean): RegExp {
  try {
    return new RegExp(pattern, caseInsensitive ? 'i' : '');
  } catch (error) {
    throw new WeftError('TOOL_INVALID_ARGS', `Invalid regular expression '${pattern}': ${errorMessage(error)}`, {
      data: { pattern },
    });
  }
}

function clip(text: string): string {
  return text.length > MAX_MATCH_LINE_CHARS ? `${text.slice(0, MAX_MATCH_LINE_CHARS)}... [line truncated]` : text;
}

async function candidateFiles(context: ToolContext, searchPath: string, glob: string | undefined): Promise<string[]> {
  const absolute = await resolveInWorkspace(context.workspaceRoot, searchPath, context.realRoots, context.sandbox?.rules.denyRead);
  const stats = await statOrUndefined(absolute);
  if (!stats) throw fileNotFound(displayPath(context.workspaceRoot, absolute), 'Use list_dir or glob to find the right path.');
  // A file named explicitly is searched even when .gitignore would hide it.
  if (!stats.isDirectory()) return [absolute];
  const realRoot = await workspaceRealRoot(context.workspaceRoot, context.realRoots);
  // A glob without a slash matches file names at any depth, as in ripgrep and git grep.
  const pattern = glob === undefined ? '**/*' : glob.includes('/') ? glob : `**/${glob}`;
  const files = await globFiles(realRoot, scopePattern(realRoot, absolute, pattern));
  return files.sort();
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const pattern = args.pattern as string;
  const searchPath = (args.path as string | undefined) ?? '.';
  const glob = args.glob as string | undefined;
  const maxResults = (args.max_results as number | undefined) ?? DEFAULT_MAX_RESULTS;
  const regex = compile(pattern, (args.case_insensitive as boolean | undefined) ?? false);
  const files = await candidateFiles(context, searchPath, glob);

  const matches: string[] = [];
  let truncated = false;
  let skippedLarge = 0;
  for (const file of files) {
    if (context.signal.aborted) throw new WeftError('TOOL_CANCELLED', 'Cancelled');
    const stats = await statOrUndefined(file);
    if (!stats?.isFile()) continue;
    if (stats.size > MAX_FILE_BYTES) {
      skippedLarge += 1;
      continue;
    }
    const raw = await fs.readFile(file);
    if (looksBinary(raw)) continue;
    const shown = displayPath(context.workspaceRoot, file);
    const lines = raw.toString('utf8').split(/\r?\n/);
    let matchedHere = false;
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index] ?? '';
      if (!regex.test(line)) continue;
      if (matches.length >= maxResults) {
        truncated = true;
        break;
      }
      matches.push(`${shown}:${index + 1}:${clip(line)}`);
      matchedHere = true;
    }
    if (matchedHere) context.readFiles.markRead(file);
    if (truncated) break;
  }

  const notes: string[] = [];
  if (truncated) notes.push(`Results cut at max_results=${maxResults}; narrow the pattern, path or glob, or raise max_results.`);
  if (skippedLarge > 0) notes.push(`${skippedLarge} file${skippedLarge === 1 ? '' : 's'} over 10 MiB not searched.`);
  if (matches.length === 0) {
    return textResult([`No matches for /${pattern}/ in ${files.length} file${files.length === 1 ? '' : 's'}.`, ...notes].join('\n'));
  }
  return textResult([...matches, ...notes].join('\n'));
}

export const grepTool: Tool = {
  name: 'grep',
  source: 'builtin',
  description:
    'Search file contents in the workspace with a JavaScript regular expression, line by line. ' +
    'Honours .gitignore, skips .git and binary files. Returns one `file:line:text` line per match, paths relative to the workspace. ' +
    'Files that appear in the results count as read for write_file.',
  annotations: { title: 'Search file contents', readOnlyHint: true, idempotentHint: true },
  inputSchema: {
    type: 'object',
    properties: {
      pattern: { type: 'string', minLength: 1, description: 'JavaScript regular expression to search for, e.g. function\\s+main' },
      path: {
        type: 'string',
        minLength: 1,
        description: 'File or directory to search, relative to the workspace root or absolute inside it. Defaults to the workspace root.',
      },
      glob: {
        type: 'string',
        minLength: 1,
        description: 'Only search files matching this glob, e.g. "*.ts" (any depth) or "src/**/*.test.ts" (relative to path).',
      },
      case_insensitive: { type: 'boolean', description: 'Match regardless of letter case. Defaults to false.' },
      max_results: {
        type: 'integer',
        minimum: 1,
        description: `Maximum number of matching lines to return. Defaults to ${DEFAULT_MAX_RESULTS}.`,
      },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  execute,
};
