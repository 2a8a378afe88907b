/**
 * `weft mcp init codex`: the `[mcp_servers.weft]` table in Codex's `config.toml`
 * ($CODEX_HOME, else ~/.codex). Only that table (and its sub-tables) is rewritten; every
 * other byte of the file stays. Idempotent; the previous file is kept as `<file>.bak`.
 */
import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'smol-toml';
import { WeftError, errorMessage } from '../../core/errors.js';
import { removeTables } from '../../core/config-text/toml-text.js';
import { readOptionalFile } from '../../mcp/config/write-file.js';
import { SERVER_NAME, type InitResult } from './mcp-client-setup.js';
import { writeWithBackup } from './config-backup.js';

function parseConfig(file: string, text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new WeftError(
      'CONFIG_INVALID',
      `${file} is not valid TOML (${errorMessage(error).split('\n')[0]}); fix it and run 'weft mcp init codex' again. Nothing was written.`,
    );
  }
}

/** A parsed table as plain data (smol-toml tables have a null prototype). */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null)) as unknown;

function weftEntry(data: Record<string, unknown>): unknown {
  const servers = data.mcp_servers;
  return servers !== null && typeof servers === 'object' ? (servers as Record<string, unknown>)[SERVER_NAME] : undefined;
}

/** The `[mcp_servers.weft]` table as Codex's config.toml holds it (what `weft mcp config --client codex` prints). */
export function codexConfigBlock(entry: Record<string, unknown>): string {
  return stringify({ mcp_servers: { [SERVER_NAME]: entry } }).trim();
}

export async function initCodexConfig(file: string, entry: Record<string, unknown>): Promise<InitResult> {
  const before = await readOptionalFile(file);
  const existing = before === undefined ? undefined : weftEntry(parseConfig(file, before));
  if (existing !== undefined && isDeepStrictEqual(plain(existing), plain(entry))) return { file, status: 'unchanged' };
  const kept = before === undefined ? '' : removeTables(before, ['mcp_servers', SERVER_NAME]).text;
  const block = codexConfigBlock(entry);
  const text = kept.trim() === '' ? `${block}\n` : `${kept.replace(/\n*$/, '\n')}\n${block}\n`;
  // An inline or dotted-key weft entry cannot be replaced by removing its table: refuse instead of writing two.
  if (!isDeepStrictEqual(plain(weftEntry(parseConfig(file, text))), plain(entry))) {
    throw new WeftError(
      'CONFIG_INVALID',
      `${file} defines mcp_servers.weft in a form weft cannot edit safely (inline or with dotted keys); write it as a [mcp_servers.weft] table or remove it, then run 'weft mcp init codex' again. Nothing was written.`,
    );
  }
  const backup = await writeWithBackup(file, before, text);
  return { file, status: before === undefined ? 'created' : existing === undefined ? 'added' : 'updated', ...(backup ? { backup } : {}) };
}
