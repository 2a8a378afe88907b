/**
 * The read_file built-in: numbered, paged text (`cat -n` style) and a description
 * instead of a dump for binary files. Reading satisfies the read-before-write guardrail.
 */
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { WeftError } from '../../core/errors.js';
import type { Tool, ToolContext, ToolResult } from '../tool.js';
import { textResult } from '../tool.js';
import { formatBytes, isBinaryFile } from './binary-sniff.js';
import { displayPath, fileNotFound, resolveInWorkspace, statOrUndefined, workspaceRealRoot } from './workspace-path.js';

export const DEFAULT_READ_LIMIT = 2000;
export const MAX_LINE_CHARS = 2000;

function numbered(lineNumber: number, text: string): string {
  const shown =
    text.length > MAX_LINE_CHARS
      ? `${text.slice(0, MAX_LINE_CHARS)}... [line truncated: ${text.length.toLocaleString('en-US')} chars]`
      : text;
  return `${String(lineNumber).padStart(6)}\t${shown}`;
}

/** Suggests siblings whose names differ only in case or extension, the usual slips. */
async function nearMisses(absolutePath: string, root: string): Promise<string[]> {
  const dir = path.dirname(absolutePath);
  const wanted = path.basename(absolutePath).toLowerCase();
  const stem = path.parse(wanted).name;
  try {
    const names = await fs.readdir(dir);
    return names
      .filter((name) => name.toLowerCase() === wanted || path.parse(name.toLowerCase()).name === stem)
      .slice(0, 5)
      .map((name) => displayPath(root, path.join(dir, name)));
  } catch {
    return [];
  }
}

interface Page {
  lines: string[];
  total: number;
}

async function readPage(absolutePath: string, offset: number, limit: number, signal: AbortSignal): Promise<Page> {
  const stream = createReadStream(absolutePath, { encoding: 'utf8', signal });
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  const lines: string[] = [];
  let total = 0;
  try {
    for await (const line of reader) {
      total += 1;
      if (total >= offset && total < offset + limit) lines.push(numbered(total, line));
    }
  } catch (error) {
    if (signal.aborted) throw new WeftError('TOOL_CANCELLED', 'Cancelled', { cause: error });
    throw error;
  } finally {
    reader.close();
    stream.destroy();
  }
  return { lines, total };
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const filePath = args.file_path as string;
  const offset = (args.offset as number | undefined) ?? 1;
  const limit = (args.limit as number | undefined) ?? DEFAULT_READ_LIMIT;
  const realRoot = await workspaceRealRoot(context.workspaceRoot, context.realRoots);
  const absolute = await resolveInWorkspace(context.workspaceRoot, filePath, context.realRoots, context.sandbox?.rules.denyRead);
  const shown = displayPath(context.workspaceRoot, absolute, realRoot);
  const stats = await statOrUndefined(absolute);
  if (!stats) {
    const similar = await nearMisses(absolute, context.workspaceRoot);
    const hint =
      similar.length > 0 ? `Did you mean ${similar.map((s) => `'${s}'`).join(', ')}?` : 'Use list_dir or glob to find the right path.';
    throw fileNotFound(shown, hint);
  }
  if (stats.isDirectory()) {
    throw new WeftError('TOOL_FAILED', `'${shown}' is a directory, not a file. Use list_dir to see its entries.`);
  }
  if (await isBinaryFile(absolute)) {
    context.readFiles.markRead(absolute);
    return textResult(`Binary file '${shown}' (${formatBytes(stats.size)}); contents not shown.`);
  }
  const page = await readPage(absolute, offset, limit, context.signal);
  context.readFiles.markRead(absolute);
  if (page.total === 0) return textResult(`File '${shown}' is empty.`);
  if (page.lines.length === 0) {
    return textResult(`File '${shown}' has ${page.total} line${page.total === 1 ? '' : 's'}; offset=${offset} is past the end.`);
  }
  const last = offset + page.lines.length - 1;
  const out = [...page.lines];
  if (last < page.total) {
    out.push(`... showing lines ${offset}-${last} of ${page.total}; use offset=${last + 1} to read the next page.`);
  }
  return textResult(out.join('\n'));
}

export const readFileTool: Tool = {
  name: 'read_file',
  source: 'builtin',
  description:
    'Read a text file from the workspace. Returns lines prefixed with their line numbers (like `cat -n`). ' +
    `Reads up to ${DEFAULT_READ_LIMIT} lines from \`offset\`; when more remain, the result says which offset reads the next page. ` +
    `Lines longer than ${MAX_LINE_CHARS} characters are truncated. Binary files are described, not shown. ` +
    'Reading a file is required before overwriting it with write_file.',
  annotations: { title: 'Read file', readOnlyHint: true, idempotentHint: true },
  inputSchema: {
    type: 'object',
    properties: {
      file_path: { type: 'string', minLength: 1, description: 'Path of the file, relative to the workspace root or absolute inside it.' },
      offset: { type: 'integer', minimum: 1, description: 'First line to read (1-based). Defaults to 1.' },
      limit: { type: 'integer', minimum: 1, description: `Maximum number of lines to return. Defaults to ${DEFAULT_READ_LIMIT}.` },
    },
    required: ['file_path'],
    additionalProperties: false,
  },
  execute,
};
