/**
 * `weft mcp config` and `weft mcp init`: the entry an MCP client needs to launch
 * `weft mcp start`, and merging it into Claude Code's, Cursor's or Windsurf's config file
 * by editing only the `weft` member's text — every other key, server and the file's own
 * formatting stay byte for byte. Idempotent; the previous file is kept as `<file>.bak`.
 *
 * A user-scope entry runs this installation: the absolute path of the Node that ran the
 * command and of `bin/weft.js` (`npx weft` would resolve whatever `weft` the client's
 * directory or the npm cache offers, and adds npm's start-up time). A project-scope entry
 * is committed and shared, so it holds no path of this machine: `npx --no weft mcp start`.
 */
import { join } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { addServerToMcpJsonText } from '../../mcp/config/edit-mcp-json.js';
import { parseJsonText } from '../../mcp/config/json-text.js';
import { fileContext } from '../../mcp/config/problems.js';
import { readOptionalFile } from '../../mcp/config/write-file.js';
import { writeWithBackup } from './config-backup.js';

export const CLIENT_TARGETS = ['claude', 'cursor', 'windsurf', 'codex'] as const;
export type ClientTarget = (typeof CLIENT_TARGETS)[number];
export type ClientScope = 'user' | 'project';
export const SERVER_NAME = 'weft';

export interface EntryOptions {
  /** Absolute path of the Node executable. */
  node: string;
  /** Absolute path of `bin/weft.js`. */
  bin: string;
  /** Absolute storage dir the server should use; without it, the server's default. */
  storageDir?: string;
  /**
   * For a file shared through the repository (a project's `.mcp.json`): launch the
   * project's own weft through `npx --no weft` instead of this machine's paths.
   */
  portable?: boolean;
}

export interface Places {
  home: string;
  cwd: string;
  /** $CODEX_HOME, where Codex keeps its config (default ~/.codex). */
  codexHome?: string;
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

/** The `mcpServers.weft` entry for a client (Codex's `[mcp_servers.weft]` has no `env` table). */
export function buildClientEntry(target: ClientTarget, options: EntryOptions): Record<string, unknown> {
  const args = [...(options.storageDir === undefined ? [] : ['--storage-dir', options.storageDir]), 'mcp', 'start'];
  // `npx --no weft` runs the weft in the project's node_modules (never a download of whatever package is called weft), so the entry holds no path of this machine.
  const launch = options.portable
    ? { command: 'npx', args: ['--no', 'weft', ...args] }
    : { command: options.node, args: [options.bin, ...args] };
  switch (target) {
    case 'claude':
      return { type: 'stdio', ...launch, env: {} };
    case 'cursor':
    case 'windsurf':
      return { ...launch, env: {} };
    case 'codex':
      return launch;
    default: {
      const unknown: never = target;
      throw new Error(`unknown client ${String(unknown)}`);
    }
  }
}

/** Codex's config file: `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`. */
export function codexConfigFile(home: string, codexHome: string | undefined): string {
  return join(codexHome && codexHome !== '' ? codexHome : join(home, '.codex'), 'config.toml');
}

/** The file `weft mcp init <target> --scope <scope>` edits. */
export function clientConfigFile(target: ClientTarget, scope: ClientScope, places: Places): string {
  switch (target) {
    case 'claude':
      return scope === 'user' ? join(places.home, '.claude.json') : join(places.cwd, '.mcp.json');
    case 'cursor':
      return scope === 'user' ? join(places.home, '.cursor', 'mcp.json') : join(places.cwd, '.cursor', 'mcp.json');
    case 'windsurf':
      if (scope === 'project')
        throw new WeftError('USAGE', 'Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json; use --scope user.');
      return join(places.home, '.codeium', 'windsurf', 'mcp_config.json');
    case 'codex':
      if (scope === 'project')
        throw new WeftError('USAGE', `Codex reads MCP servers from ${codexConfigFile(places.home, places.codexHome)}; use --scope user.`);
      return codexConfigFile(places.home, places.codexHome);
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
  const backup = await writeWithBackup(file, before, text);
  return { file, status: before === undefined ? 'created' : replaced ? 'updated' : 'added', ...(backup ? { backup } : {}) };
}
