/**
 * Input of `weft mcp add-json <name> '<json>'` (Claude Code's entry shape), checked with the
 * same validation as `.mcp.json`, and its conversion to a settings TOML entry for
 * `--scope user`.
 */
import { APPLIES_TO, ENTRY_FIELDS, JSON_DISABLED, SECONDS_ALIASES, TYPE_VALUES, entryFieldOf } from './entry-fields.js';
import { describeJsonError, parseJsonText } from './json-text.js';
import { fileProblem, isPlainObject, problemsError, type FileContext, type McpConfigProblem } from './problems.js';
import { checkMcpJsonEntry } from './edit-mcp-json.js';

export const ADD_JSON_LABEL = 'mcp add-json';

const ADD_JSON_CONTEXT: FileContext = { file: ADD_JSON_LABEL, display: ADD_JSON_LABEL, format: 'json' };

/**
 * Parses and validates the JSON of `weft mcp add-json`; throws `CONFIG_INVALID` naming the
 * problem (with line/column for syntax errors). Warnings (ignored fields) come back.
 */
export function parseMcpAddJson(name: string, json: string): { entry: Record<string, unknown>; warnings: McpConfigProblem[] } {
  const parsed = parseJsonText(json);
  if (!parsed.ok) {
    throw problemsError([
      fileProblem(
        ADD_JSON_CONTEXT,
        `the server JSON is not valid (${describeJsonError(parsed)})`,
        `pass one object, e.g. '{"command": "npx", "args": ["-y", "some-mcp-server"]}'`,
      ),
    ]);
  }
  if (!isPlainObject(parsed.value)) {
    throw problemsError([
      fileProblem(ADD_JSON_CONTEXT, 'the server JSON must be an object', `e.g. '{"type": "http", "url": "https://example.com/mcp"}'`),
    ]);
  }
  return checkMcpJsonEntry(ADD_JSON_CONTEXT, name, parsed.value);
}

/**
 * The same server as a settings TOML entry: `.mcp.json` aliases become weft's names
 * (`serverUrl` → `url`, `disabled` → `enabled`); fields weft ignores in `.mcp.json`
 * (unknown, or not for this transport) are dropped, since TOML would reject them.
 */
export function mcpJsonEntryToToml(entry: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (value === undefined) continue;
    if (key === JSON_DISABLED && typeof value === 'boolean') out.enabled = !value;
    else if (Object.hasOwn(SECONDS_ALIASES, key)) out[SECONDS_ALIASES[key]!] = typeof value === 'number' ? `${value}s` : value;
    else {
      const field = entryFieldOf(key, 'json');
      if (field) out[field] = value;
    }
  }
  const typeName = typeof out.type === 'string' ? out.type : undefined;
  const type =
    typeName !== undefined && Object.hasOwn(TYPE_VALUES, typeName) ? TYPE_VALUES[typeName]! : out.url !== undefined ? 'http' : 'stdio';
  // Keep the catalogue's order so the written table reads the same way every time.
  const kept = ENTRY_FIELDS.filter((field) => field in out && (APPLIES_TO[field]?.includes(type) ?? true));
  return Object.fromEntries(kept.map((field) => [field, out[field]]));
}
