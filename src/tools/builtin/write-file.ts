/**
 * The write_file built-in: creates or replaces a whole file atomically, refusing to
 * overwrite an existing file the session has not read (the read-before-write guardrail).
 */
import { WeftError } from '../../core/errors.js';
import type { Tool, ToolContext, ToolResult } from '../tool.js';
import { textResult } from '../tool.js';
import { atomicWriteFile } from './atomic-write.js';
import { formatBytes } from './binary-sniff.js';
import { displayPath, resolveInWorkspace, statOrUndefined } from './workspace-path.js';

export function fileNotReadError(shown: string): WeftError {
  return new WeftError(
    'FILE_NOT_READ',
    `Cannot write to '${shown}': file exists but has not been read. Use read_file to read the file before writing to it.`,
    { data: { path: shown } },
  );
}

function countLines(content: string): number {
  if (content === '') return 0;
  const breaks = content.split('\n').length - 1;
  return content.endsWith('\n') ? breaks : breaks + 1;
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const filePath = args.file_path as string;
  const content = args.content as string;
  const absolute = await resolveInWorkspace(context.workspaceRoot, filePath, context.realRoots, context.sandbox?.rules.denyRead);
  const shown = displayPath(context.workspaceRoot, absolute);
  const existing = await statOrUndefined(absolute);
  if (existing?.isDirectory()) {
    throw new WeftError('TOOL_FAILED', `Cannot write to '${shown}': it is a directory.`);
  }
  if (existing && !context.readFiles.hasRead(absolute)) throw fileNotReadError(shown);
  await atomicWriteFile(absolute, content);
  context.readFiles.markRead(absolute);
  const lines = countLines(content);
  const size = formatBytes(Buffer.byteLength(content, 'utf8'));
  return textResult(`${existing ? 'Updated' : 'Created'} '${shown}' (${lines} line${lines === 1 ? '' : 's'}, ${size}).`);
}

export const writeFileTool: Tool = {
  name: 'write_file',
  source: 'builtin',
  description:
    'Write a file in the workspace, replacing its whole content; parent folders are created as needed and the write is atomic. ' +
    'An existing file must have been read first (read_file or grep) in this session, otherwise the write is refused. ' +
    'Prefer edit_file for changing part of an existing file.',
  annotations: { title: 'Write file', readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  inputSchema: {
    type: 'object',
    properties: {
      file_path: { type: 'string', minLength: 1, description: 'Path of the file, relative to the workspace root or absolute inside it.' },
      content: { type: 'string', description: 'The complete new content of the file.' },
    },
    required: ['file_path', 'content'],
    additionalProperties: false,
  },
  execute,
};
