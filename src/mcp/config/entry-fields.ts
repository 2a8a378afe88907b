/**
 * The catalogue of server entry fields: their canonical (TOML) names, the aliases the
 * `.mcp.json` family of files uses, which transports each applies to, and the example
 * values that config error messages show.
 */
import type { McpTransportType } from './server-config.js';
import type { ConfigFormat } from '../../core/config-text/describe-value.js';

export const ENTRY_FIELDS = [
  'type',
  'command',
  'args',
  'script',
  'cwd',
  'env',
  'env_vars',
  'url',
  'headers',
  'bearer_token_env_var',
  'oauth',
  'port',
  'protocol',
  'startup_timeout',
  'tool_timeout',
  'max_tool_timeout',
  'enabled',
  'required',
  'enabled_tools',
  'disabled_tools',
  'sampling',
] as const;

export type EntryField = (typeof ENTRY_FIELDS)[number];

/** Names other MCP clients use in `.mcp.json`-style files, mapped to weft's. */
export const JSON_ALIASES: Readonly<Record<string, EntryField>> = {
  serverUrl: 'url',
  enabledTools: 'enabled_tools',
  disabledTools: 'disabled_tools',
};

/**
 * Codex's timeout keys, a number of seconds, accepted in every file format: a user who
 * copies a Codex `[mcp_servers.x]` table keeps its timeouts.
 */
export const SECONDS_ALIASES: Readonly<Record<string, EntryField>> = {
  startup_timeout_sec: 'startup_timeout',
  tool_timeout_sec: 'tool_timeout',
};

/** The entry field a key names in a file of this format (weft's name or an alias), or undefined. */
export function entryFieldOf(key: string, format: ConfigFormat): EntryField | undefined {
  if (isEntryField(key)) return key;
  if (Object.hasOwn(SECONDS_ALIASES, key)) return SECONDS_ALIASES[key];
  return format === 'json' && Object.hasOwn(JSON_ALIASES, key) ? JSON_ALIASES[key] : undefined;
}

/** Cline/Windsurf/Roo's `"disabled": true` — the inverse of `enabled`. */
export const JSON_DISABLED = 'disabled';

/** Transports a field applies to; fields not listed apply to all. */
export const APPLIES_TO: Partial<Record<EntryField, readonly McpTransportType[]>> = {
  command: ['stdio', 'sandbox'],
  args: ['stdio', 'sandbox'],
  script: ['stdio', 'sandbox'],
  cwd: ['stdio'],
  env: ['stdio', 'sandbox'],
  env_vars: ['stdio'],
  url: ['http', 'sse'],
  headers: ['http', 'sse'],
  bearer_token_env_var: ['http', 'sse'],
  oauth: ['http', 'sse'],
  port: ['sandbox'],
  protocol: ['sandbox'],
};

/** Accepted spellings of `type`. */
export const TYPE_VALUES: Readonly<Record<string, McpTransportType>> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamable_http: 'http',
  streamableHttp: 'http',
  sse: 'sse',
  sandbox: 'sandbox',
};

/** Accepted spellings of `protocol` (sandbox). */
export const PROTOCOL_VALUES: Readonly<Record<string, 'streamable_http' | 'sse'>> = {
  streamable_http: 'streamable_http',
  'streamable-http': 'streamable_http',
  http: 'streamable_http',
  sse: 'sse',
};

const EXAMPLES: Record<EntryField, unknown> = {
  type: 'stdio',
  command: ['npx', '-y', 'some-mcp-server'],
  args: ['-y', 'some-mcp-server'],
  script: './start-server.sh',
  cwd: 'tools/server',
  env: { API_KEY: '${API_KEY}' },
  env_vars: ['GITHUB_TOKEN'],
  url: 'https://example.com/mcp',
  headers: { Authorization: 'Bearer ${TOKEN}' },
  bearer_token_env_var: 'GITHUB_TOKEN',
  oauth: { client_id: 'weft-cli', client_secret_env: 'MY_SERVER_CLIENT_SECRET' },
  port: 3000,
  protocol: 'streamable_http',
  startup_timeout: '10s',
  tool_timeout: '60s',
  max_tool_timeout: '10m',
  enabled: false,
  required: true,
  enabled_tools: ['search', 'fetch'],
  disabled_tools: ['delete_repo'],
  sampling: true,
};

/** The example value for a field, in the shape that file format uses. */
export function exampleValue(field: EntryField, format: ConfigFormat): unknown {
  if (field === 'command' && format === 'json') return 'npx';
  return EXAMPLES[field];
}

export function isEntryField(key: string): key is EntryField {
  return (ENTRY_FIELDS as readonly string[]).includes(key);
}

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
