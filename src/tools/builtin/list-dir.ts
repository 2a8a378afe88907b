/**
 * The list_dir built-in: one directory's entries with type and size, directories first,
 * so the model can orient itself without running shell commands.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { WeftError } from '../../core/errors.js';
import type { Tool, ToolContext, ToolResult } from '../tool.js';
import { textResult } from '../tool.js';
import { formatBytes } from './binary-sniff.js';
import { displayPath, fileNotFound, resolveInWorkspace, statOrUndefined } from './workspace-path.js';

export const MAX_LIST_ENTRIES = 1000;

type EntryType = 'dir' | 'file' | 'symlink' | 'other';

interface Entry {
  name: string;
  type: EntryType;
  size: number;
  target?: string;
}

async function describe(dir: string, name: string): Promise<Entry | undefined> {
  const full = path.join(dir, name);
  let stats;
  try {
    // lstat: a symlink is reported as itself, never followed out of the workspace.
    stats = await fs.lstat(full);
  } catch {
    return undefined; // removed between readdir and lstat
  }
  if (stats.isSymbolicLink()) return { name, type: 'symlink', size: stats.size, target: await fs.readlink(full) };
  if (stats.isDirectory()) return { name, type: 'dir', size: stats.size };
  if (stats.isFile()) return { name, type: 'file', size: stats.size };
  return { name, type: 'other', size: stats.size };
}

function formatEntry(entry: Entry): string {
  switch (entry.type) {
    case 'dir':
      return `dir      ${entry.name}/`;
    case 'file':
      return `file     ${entry.name} (${formatBytes(entry.size)})`;
    case 'symlink':
      return `symlink  ${entry.name} -> ${entry.target ?? '?'}`;
    default:
      return `other    ${entry.name}`;
  }
}

const byName = (a: Entry, b: Entry): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const dirPath = (args.path as string | undefined) ?? '.';
  const absolute = await resolveInWorkspace(context.workspaceRoot, dirPath, context.realRoots, context.sandbox?.rules.denyRead);
  const shown = displayPath(context.workspaceRoot, absolute);
  const stats = await statOrUndefined(absolute);
  if (!stats) throw fileNotFound(shown, 'Use list_dir on a parent folder to see what exists.');
  if (!stats.isDirectory()) {
    throw new WeftError('TOOL_FAILED', `'${shown}' is a file, not a directory. Use read_file to read it.`);
  }
  const names = await fs.readdir(absolute);
  const described = await Promise.all(names.map((name) => describe(absolute, name)));
  const entries = described.filter((e): e is Entry => e !== undefined);
  const dirs = entries.filter((e) => e.type === 'dir').sort(byName);
  const rest = entries.filter((e) => e.type !== 'dir').sort(byName);
  const sorted = [...dirs, ...rest];
  if (sorted.length === 0) return textResult(`Directory '${shown}' is empty.`);
  const shownEntries = sorted.slice(0, MAX_LIST_ENTRIES);
  const header = `Directory '${shown}' (${sorted.length} entr${sorted.length === 1 ? 'y' : 'ies'}):`;
  const lines = [header, ...shownEntries.map(formatEntry)];
  if (sorted.length > shownEntries.length) {
    lines.push(`... ${sorted.length - shownEntries.length} more entries not shown; use glob to narrow the listing.`);
  }
  return textResult(lines.join('\n'), {
    structuredContent: { path: shown, entries: shownEntries.map(({ name, type, size }) => ({ name, type, size })) },
  });
}

export const listDirTool: Tool = {
  name: 'list_dir',
  source: 'builtin',
  description:
    'List the entries of a directory in the workspace with their type (dir, file, symlink) and size, directories first, sorted by name. ' +
    'Not recursive; use glob to find files by pattern.',
  annotations: { title: 'List directory', readOnlyHint: true, idempotentHint: true },
  inputSchema: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'Directory to list, relative to the workspace root or absolute inside it. Defaults to the workspace root.',
      },
    },
    required: [],
    additionalProperties: false,
  },
  execute,
};
