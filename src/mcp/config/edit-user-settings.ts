/**
 * `weft mcp add/remove --scope user` for settings TOML files: appends one
 * `[mcp.servers.<name>]` table or removes exactly that table's lines (and its sub-tables),
 * keeping the rest of the file byte for byte. Every edit is re-parsed and checked before
 * anything is written.
 */
import { isDeepStrictEqual } from 'node:util';
import { parse, stringify, TomlError } from 'smol-toml';
import { fileContext, fileProblem, hasErrors, isPlainObject, problemsError, type FileContext, type McpConfigProblem } from './problems.js';
import { removeTables } from '../../core/config-text/toml-text.js';
import { checkServerName, validateServerEntry } from './validate-entry.js';
import { readOptionalFile, writeFileAtomic } from './write-file.js';

export interface TomlEditOptions {
  replace?: boolean;
  /** The user's home, so messages can show `~/.weft/settings.toml`. */
  homeDir?: string;
}

function parseToml(ctx: FileContext, text: string, action: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
    const where = error instanceof TomlError ? `line ${error.line}, column ${error.column}: ` : '';
    throw problemsError([fileProblem(ctx, `is not valid TOML (${where}${reason})`, `fix it before ${action}; nothing was written`)]);
  }
}

/** A parsed document as plain data (smol-toml tables have a null prototype), for comparisons. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  return value;
}

function sameDocument(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(plain(a), plain(b));
}

function serversOf(data: Record<string, unknown>): Record<string, unknown> | undefined {
  const mcp = data.mcp;
  return isPlainObject(mcp) && isPlainObject(mcp.servers) ? mcp.servers : undefined;
}

/** `data` with `mcp.servers.<name>` set to `value` (or deleted when `undefined`), without mutating it. */
function withServer(data: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  const mcp = isPlainObject(data.mcp) ? data.mcp : {};
  const servers = { ...(isPlainObject(mcp.servers) ? mcp.servers : {}) };
  if (value === undefined) delete servers[name];
  else servers[name] = value;
  return { ...data, mcp: { ...mcp, servers } };
}

function cannotEdit(ctx: FileContext, name: string, action: string): Error {
  return problemsError([
    fileProblem(
      ctx,
      `cannot ${action} server '${name}' safely: mcp.servers is written inline or with dotted keys there`,
      `edit the file by hand, using a [mcp.servers.${name}] table; nothing was written`,
    ),
  ]);
}

/** The new text of a settings TOML file without server `name`; `removed` is false when it was not there. */
export function removeServerFromTomlText(text: string, ctx: FileContext, name: string): { text: string; removed: boolean } {
  const data = parseToml(ctx, text, 'removing a server');
  if (!serversOf(data) || !Object.hasOwn(serversOf(data)!, name)) return { text, removed: false };
  const result = removeTables(text, ['mcp', 'servers', name]);
  let after: Record<string, unknown> | undefined;
  try {
    after = parse(result.text) as Record<string, unknown>;
  } catch {
    after = undefined;
  }
  const expected = withServer(data, name, undefined);
  // An emptied `mcp.servers` may disappear when its only table goes; both spellings are the same config.
  const emptiedOk = after !== undefined && sameDocument(withServer(after, name, undefined), expected);
  if (!result.removed || !emptiedOk) throw cannotEdit(ctx, name, 'remove');
  return { text: result.text, removed: true };
}

/** The new text of a settings TOML file with `[mcp.servers.<name>]` appended (or replaced when `replace`). */
export function addServerToTomlText(
  text: string | undefined,
  ctx: FileContext,
  name: string,
  entry: Record<string, unknown>,
  options: { replace?: boolean } = {},
): { text: string; replaced: boolean; warnings: McpConfigProblem[] } {
  const nameProblem = checkServerName(ctx, name);
  if (nameProblem) throw problemsError([nameProblem]);
  const cleaned = Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined));
  const { problems } = validateServerEntry(ctx, name, cleaned);
  if (hasErrors(problems)) throw problemsError(problems);

  let base = text ?? '';
  const data = parseToml(ctx, base, 'adding a server');
  const exists = serversOf(data) !== undefined && Object.hasOwn(serversOf(data)!, name);
  if (exists && !options.replace) {
    throw problemsError([
      fileProblem(ctx, `server '${name}' already exists`, `choose another name, or remove it first with \`weft mcp remove ${name}\``),
    ]);
  }
  if (exists) base = removeServerFromTomlText(base, ctx, name).text;

  const block = stringify({ mcp: { servers: { [name]: cleaned } } });
  let separator = '';
  if (base !== '' && !base.endsWith('\n')) separator = '\n\n';
  else if (base !== '' && !base.endsWith('\n\n')) separator = '\n';
  const next = base + separator + block;

  let after: Record<string, unknown>;
  try {
    after = parse(next) as Record<string, unknown>;
  } catch {
    throw cannotEdit(ctx, name, 'add');
  }
  const written = serversOf(parse(block) as Record<string, unknown>)![name];
  if (!sameDocument(after, withServer(parse(base) as Record<string, unknown>, name, written))) throw cannotEdit(ctx, name, 'add');
  return { text: next, replaced: exists, warnings: problems };
}

/** Appends `[mcp.servers.<name>]` to a settings TOML file (created when absent, mode 0600). */
export async function addServerToUserSettings(
  file: string,
  name: string,
  entry: Record<string, unknown>,
  options: TomlEditOptions = {},
): Promise<{ file: string; replaced: boolean; warnings: McpConfigProblem[] }> {
  const ctx = fileContext(file, 'toml', undefined, options.homeDir);
  const result = addServerToTomlText(await readOptionalFile(file), ctx, name, entry, options);
  await writeFileAtomic(file, result.text, 0o600);
  return { file, replaced: result.replaced, warnings: result.warnings };
}

/** Removes server `name` (its table and sub-tables) from a settings TOML file. */
export async function removeServerFromUserSettings(
  file: string,
  name: string,
  options: Pick<TomlEditOptions, 'homeDir'> = {},
): Promise<{ file: string; removed: boolean }> {
  const ctx = fileContext(file, 'toml', undefined, options.homeDir);
  const nameProblem = checkServerName(ctx, name);
  if (nameProblem) throw problemsError([nameProblem]);
  const text = await readOptionalFile(file);
  if (text === undefined) return { file, removed: false };
  const result = removeServerFromTomlText(text, ctx, name);
  if (result.removed) await writeFileAtomic(file, result.text, 0o600);
  return { file, removed: result.removed };
}
