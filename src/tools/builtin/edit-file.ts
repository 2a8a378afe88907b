/**
 * The edit_file built-in: exact string replacement in one file. It reads the file itself,
 * so it needs no prior read_file, and refuses ambiguous edits rather than guessing.
 */
import { promises as fs } from 'node:fs';
import { WeftError } from '../../core/errors.js';
import type { Tool, ToolContext, ToolResult } from '../tool.js';
import { textResult } from '../tool.js';
import { atomicWriteFile } from './atomic-write.js';
import { looksBinary } from './binary-sniff.js';
import { displayPath, fileNotFound, resolveInWorkspace, statOrUndefined } from './workspace-path.js';

function countOccurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

// split/join and slicing, not String.replace, which would expand `$&`, `$1` in new_string.
function replaceText(content: string, oldText: string, newText: string, all: boolean): string {
  if (all) return content.split(oldText).join(newText);
  const at = content.indexOf(oldText);
  return content.slice(0, at) + newText + content.slice(at + oldText.length);
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const filePath = args.file_path as string;
  let oldText = args.old_string as string;
  let newText = args.new_string as string;
  const replaceAll = (args.replace_all as boolean | undefined) ?? false;
  if (oldText === '') {
    throw new WeftError('TOOL_INVALID_ARGS', 'old_string must not be empty. Use write_file to create a file or replace its whole content.');
  }
  if (oldText === newText) {
    throw new WeftError('TOOL_INVALID_ARGS', 'old_string and new_string are identical, so the edit would change nothing.');
  }
  const absolute = await resolveInWorkspace(context.workspaceRoot, filePath, context.realRoots, context.sandbox?.rules.denyRead);
  const shown = displayPath(context.workspaceRoot, absolute);
  const stats = await statOrUndefined(absolute);
  if (!stats) throw fileNotFound(shown, 'edit_file changes existing files; use write_file to create a new one.');
  if (stats.isDirectory()) throw new WeftError('TOOL_FAILED', `Cannot edit '${shown}': it is a directory.`);
  const raw = await fs.readFile(absolute);
  if (looksBinary(raw)) throw new WeftError('TOOL_FAILED', `Cannot edit '${shown}': it is a binary file.`);
  const content = raw.toString('utf8');
  context.readFiles.markRead(absolute);

  let count = countOccurrences(content, oldText);
  // Models write "\n"; a CRLF file needs "\r\n" for the same text to match.
  if (count === 0 && content.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r')) {
    const crlfOld = oldText.replace(/\n/g, '\r\n');
    const crlfCount = countOccurrences(content, crlfOld);
    if (crlfCount > 0) {
      oldText = crlfOld;
      newText = newText.replace(/\r?\n/g, '\r\n');
      count = crlfCount;
    }
  }
  if (count === 0) {
    throw new WeftError(
      'EDIT_NO_MATCH',
      `old_string was not found in '${shown}'. Read the file again and copy the exact text, including whitespace and indentation.`,
      { data: { path: shown } },
    );
  }
  if (count > 1 && !replaceAll) {
    throw new WeftError(
      'EDIT_AMBIGUOUS',
      `old_string occurs ${count} times in '${shown}'. Include more surrounding context to make it unique, or set replace_all: true to replace every occurrence.`,
      { data: { path: shown, occurrences: count } },
    );
  }
  await atomicWriteFile(absolute, replaceText(content, oldText, newText, replaceAll));
  const replaced = replaceAll ? count : 1;
  return textResult(`Edited '${shown}': replaced ${replaced} occurrence${replaced === 1 ? '' : 's'}.`);
}

export const editFileTool: Tool = {
  name: 'edit_file',
  source: 'builtin',
  description:
    'Replace exact text in a file in the workspace. `old_string` must match the file exactly (including whitespace) and, ' +
    'unless `replace_all` is true, occur exactly once; include enough surrounding lines to make it unique. ' +
    'The write is atomic. Does not create files (use write_file).',
  annotations: { title: 'Edit file', readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  inputSchema: {
    type: 'object',
    properties: {
      file_path: { type: 'string', minLength: 1, description: 'Path of the file, relative to the workspace root or absolute inside it.' },
      old_string: { type: 'string', minLength: 1, description: 'The exact text to replace.' },
      new_string: { type: 'string', description: 'The text to put in its place; must differ from old_string.' },
      replace_all: { type: 'boolean', description: 'Replace every occurrence instead of requiring exactly one. Defaults to false.' },
    },
    required: ['file_path', 'old_string', 'new_string'],
    additionalProperties: false,
  },
  execute,
};
