/**
 * `weft mcp config` and `weft mcp init`: the entry an MCP client needs to launch
 * `weft mcp start`, and merging it into Claude Code's, Cursor's or Windsurf's config file
 * by editing only the `weft` member's text — every other key, server and the file's own
 * formatting stay byte for byte. Idempotent; the previous file is kept as `<file>.bak`.
 *
 * The entry runs this installation: the absolute path of the Node that ran the command
 * and of `bin/weft.js`. `npx weft` would resolve whatever `weft` the client's directory
 * or the npm cache offers (another version, or a download) and adds npm's start-up time.
 */
import { chmod, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { addServerToMcpJsonText } from '../../mcp/config/edit-mcp-json.js';
import { parseJsonText } from '../../mcp/config/json-text.js';
import { fileContext } from '../../mcp/config/problems.js';
import { readOptionalFile, writeFileAtomic } from '../../mcp/config/write-file.js';

export const CLIENT_TARGETS = ['claude', 'cursor', 'windsurf'] as const;
export type ClientTarget = (typeof CLIENT_TARGETS)[number];
export type ClientScope = 'user' | 'project';
export const SERVER_NAME = 'weft';

export interface EntryOptions {
  /** Absolute path of the Node executable. */
  node: string;
  /** Absolute path of `bin/weft.js`. */
  bin: string;
  /** Absolute storage dir the server should use. */
  storageDir: string;
}

export interface Places {
  home: string;
  cwd: string;
}

export interface InitResult {
  file: string;
  status: 'created' | 'added' | 'updated' | 'unchanged';
  /** The copy of the previous file, when there was one and it changed. */
  backup?: string;
}

export function isClientTarget(value: string): value is ClientTarget {
  return (CLIENT_TARGETS as readonly string[]).includes(value);
}

/** The `mcpServers.weft` entry for a client (all three take the same stdio shape). */
export function buildClientEntry(target: ClientTarget, options: EntryOptions): Record<string, unknown> {
  const launch = { command: options.node, args: [options.bin, '--storage-dir', options.storageDir, 'mcp', 'start'] };
  switch (target) {
    case 'claude':
      return { type: 'stdio', ...launch, env: {} };
    case 'cursor':
    case 'windsurf':
      return { ...launch, env: {} };
    default: {
      const unknown: never = target;
      throw new Error(`unknown client ${String(unknown)}`);
    }
  }
}

/** The file `weft mcp init <target> --scope <scope>` edits. */
export function clientConfigFile(target: ClientTarget, scope: ClientScope, places: Places): string {
  switch (target) {
    case 'claude':
      return scope === 'user' ? join(places.home, '.claude.json') : join(places.cwd, '.mcp.json');
    case 'cursor':
      return scope === 'user' ? join(places.home, '.cursor', 'mcp.json') : join(places.cwd, '.cursor', 'mcp.json');
    case 'windsurf':
      if (scope === 'project') throw new WeftError('USAGE', 'Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json; use --scope user.');
      return join(places.home, '.codeium', 'windsurf', 'mcp_config.json');
    default: {
      const unknown: never = target;
      throw new Error(`unknown client ${String(unknown)}`);
    }
  }
}

/** JSON with object keys sorted, so two equal entries compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function currentEntry(text: string): unknown {
  const parsed = parseJsonText(text);
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object') return undefined;
  const servers = (parsed.value as Record<string, unknown>).mcpServers;
  return servers !== null && typeof servers === 'object' ? (servers as Record<string, unknown>)[SERVER_NAME] : undefined;
}

/**
 * Adds (or updates) the `weft` server in `file`; does nothing when it is already there as
 * given. Invalid JSON is refused and nothing is written.
 *
 * @example await initClientConfig('/home/me/.cursor/mcp.json', buildClientEntry('cursor', entryOptions), '/home/me')
 */
export async function initClientConfig(file: string, entry: Record<string, unknown>, home: string): Promise<InitResult> {
  const before = await readOptionalFile(file);
  if (before !== undefined && canonical(currentEntry(before)) === canonical(entry)) return { file, status: 'unchanged' };
  const ctx = fileContext(file, 'json', undefined, home);
  const { text, replaced } = addServerToMcpJsonText(before, ctx, SERVER_NAME, entry, { replace: true });
  let backup: string | undefined;
  if (before !== undefined) {
    backup = `${file}.bak`;
    const mode = (await stat(file)).mode & 0o777;
    await writeFile(backup, before, { mode });
    await chmod(backup, mode);
  }
  // Client configs can hold other servers' secrets: a new file is private to the user.
  await writeFileAtomic(file, text, 0o600);
  return { file, status: before === undefined ? 'created' : replaced ? 'updated' : 'added', ...(backup ? { backup } : {}) };
}
