/**
 * Structural validation of one server entry from any source (TOML table or `.mcp.json`
 * object): name, known fields, types, transport rules and defaults. Nothing is
 * interpolated here, so the same check serves loading and `weft mcp add` before writing.
 */
import { describeValue } from '../../core/config-text/describe-value.js';
import {
  APPLIES_TO,
  ENTRY_FIELDS,
  ENV_NAME,
  HEADER_NAME,
  JSON_ALIASES,
  JSON_DISABLED,
  PROTOCOL_VALUES,
  SECONDS_ALIASES,
  TYPE_VALUES,
  entryFieldOf,
  type EntryField,
} from './entry-fields.js';
import { EntryFieldReader, type RawField } from './field-readers.js';
import { collectKnownKeys } from './known-keys.js';
import { readOAuthField } from './oauth-field.js';
import {
  example,
  fieldProblem,
  hasErrors,
  isPlainObject,
  renderValue,
  serverProblem,
  type FileContext,
  type McpConfigProblem,
} from './problems.js';
import { MCP_DEFAULTS, MCP_SERVER_NAME, type McpServerConfig, type McpTransportType } from './server-config.js';

export interface CommandPart {
  value: string;
  /** Which field the part was written in, for interpolation warnings. */
  field: string;
}

/** A valid entry with defaults applied, not yet interpolated: the resolved config's fields, command parts kept apart. */
export type ValidatedEntry = Omit<McpServerConfig, 'command' | 'source'> & {
  command?: CommandPart[];
  /** The key the URL was written under (`url` or `serverUrl`), for messages. */
  urlKey: string;
  headersKey: string;
};

const TYPE_HINT = 'use "stdio", "http" (or "streamable-http"), "sse" or "sandbox"';

/** A name that would be accepted, for the fix hint of an invalid one. */
function suggestName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return cleaned || 'my_server';
}

/** Validates a server name; returns the problem when it is not `^[A-Za-z0-9_-]+$`. */
export function checkServerName(ctx: FileContext, name: string): McpConfigProblem | undefined {
  if (MCP_SERVER_NAME.test(name)) return undefined;
  return serverProblem(ctx, name, 'invalid name', `use only letters, digits, '_' and '-', e.g. '${suggestName(name)}'`);
}

/** The problem for a URL that does not parse as absolute http(s), or `undefined`. */
export function checkUrl(
  ctx: FileContext,
  server: string,
  key: string,
  written: string,
  value: string,
  interpolated: boolean,
): McpConfigProblem | undefined {
  let ok: boolean;
  try {
    const url = new URL(value);
    ok = url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    ok = false;
  }
  if (ok) return undefined;
  const after = interpolated ? ' after interpolation' : '';
  return fieldProblem(
    ctx,
    server,
    key,
    `is not a valid http(s) URL${after}: ${JSON.stringify(written)}`,
    `use an absolute URL such as "https://example.com/mcp"`,
  );
}

/** Maps the keys of an entry to canonical fields, reporting unknown and duplicate keys; `.mcp.json`'s `disabled` is kept apart. */
function collectFields(
  ctx: FileContext,
  name: string,
  raw: Record<string, unknown>,
  problems: McpConfigProblem[],
): { fields: Map<EntryField, RawField>; disabled?: RawField } {
  const json = ctx.format === 'json';
  const { [JSON_DISABLED]: disabledValue, ...rest } = raw;
  const fields = collectKnownKeys(
    ctx,
    name,
    json ? rest : raw,
    {
      fieldOf: (key) => entryFieldOf(key, ctx.format),
      suggestions: json
        ? [...ENTRY_FIELDS, ...Object.keys(SECONDS_ALIASES), ...Object.keys(JSON_ALIASES), JSON_DISABLED]
        : [...ENTRY_FIELDS, ...Object.keys(SECONDS_ALIASES)],
      tomlKeys: ENTRY_FIELDS,
    },
    problems,
  );
  return json && disabledValue !== undefined ? { fields, disabled: { key: JSON_DISABLED, value: disabledValue } } : { fields };
}

function readType(
  ctx: FileContext,
  name: string,
  fields: Map<EntryField, RawField>,
  problems: McpConfigProblem[],
): McpTransportType | undefined {
  const raw = fields.get('type');
  if (!raw) {
    if (!fields.has('url')) return 'stdio';
    const launcher = fields.get('command') ?? fields.get('script');
    if (!launcher) return 'http';
    const url = fields.get('url')!;
    const fix = `remove one of them, or say which transport to use with ${example(ctx.format, 'type', 'stdio')} or ${example(ctx.format, 'type', 'http')}`;
    problems.push(fieldProblem(ctx, name, url.key, `cannot be combined with '${launcher.key}' when 'type' is not set`, fix));
    return undefined;
  }
  if (typeof raw.value === 'string' && Object.hasOwn(TYPE_VALUES, raw.value)) return TYPE_VALUES[raw.value];
  const text =
    typeof raw.value === 'string'
      ? `is ${JSON.stringify(raw.value)}, which is not a transport`
      : `must be a string, not ${describeValue(raw.value, ctx.format)}`;
  problems.push(fieldProblem(ctx, name, raw.key, text, TYPE_HINT));
  return undefined;
}

/** Drops fields that do not apply to the transport: an error in TOML, a warning (ignored) in JSON. */
function checkApplicability(
  ctx: FileContext,
  name: string,
  type: McpTransportType,
  fields: Map<EntryField, RawField>,
  problems: McpConfigProblem[],
): void {
  for (const [field, raw] of [...fields]) {
    const transports = APPLIES_TO[field];
    if (!transports || transports.includes(type)) continue;
    const setType = example(ctx.format, 'type', transports[0]);
    if (ctx.format === 'json') {
      problems.push(
        fieldProblem(ctx, name, raw.key, `does not apply to type "${type}" and was ignored`, `remove it, or set ${setType}`, 'warning'),
      );
      fields.delete(field);
    } else {
      problems.push(fieldProblem(ctx, name, raw.key, `does not apply to type "${type}"`, `remove it, or set ${setType}`));
    }
  }
}

function readCommand(reader: EntryFieldReader): CommandPart[] | undefined {
  const raw = reader.fields.get('command');
  if (!raw) return undefined;
  let parts: CommandPart[] | undefined;
  if (typeof raw.value === 'string') parts = [{ value: raw.value, field: raw.key }];
  else if (Array.isArray(raw.value)) {
    const items = reader.stringArray('command');
    if (!items) return undefined;
    parts = items.map((value) => ({ value, field: raw.key }));
  } else {
    reader.wrongType('command', 'a string or an array of strings', raw.value);
    return undefined;
  }
  if (parts.length === 0 || parts[0]!.value.trim() === '') {
    reader.error(
      raw.key,
      'is empty',
      `name the executable, e.g. ${example(reader.ctx.format, raw.key, reader.ctx.format === 'json' ? 'npx' : ['npx', '-y', 'some-mcp-server'])}`,
    );
    return undefined;
  }
  return parts;
}

function readProcess(reader: EntryFieldReader, type: McpTransportType): Pick<ValidatedEntry, 'command' | 'script'> {
  if (type !== 'stdio' && type !== 'sandbox') return {};
  const { ctx } = reader;
  const command = readCommand(reader);
  const args = reader.stringArray('args');
  const script = reader.string('script');
  if (command && args) command.push(...args.map((value) => ({ value, field: reader.key('args') })));
  if (reader.has('command') && reader.has('script')) {
    reader.error(reader.key('script'), `cannot be used together with '${reader.key('command')}'`, 'keep only one of them');
  } else if (reader.has('script') && reader.has('args')) {
    reader.error(reader.key('args'), `applies only with 'command'`, 'remove it, or pass the arguments inside the script');
  } else if (!reader.has('command') && !reader.has('script')) {
    const fix = ctx.format === 'json' ? `add "command": "…" (with "args": […]) or "script": "…"` : `add command = ["…"] or script = "…"`;
    reader.error('command', `is required for type "${type}"`, fix);
  }
  if (script !== undefined && script.trim() === '')
    reader.error(reader.key('script'), 'is empty', `e.g. ${example(ctx.format, 'script', './start-server.sh')}`);
  return { command, script };
}

function readEndpoint(reader: EntryFieldReader, type: McpTransportType): Pick<ValidatedEntry, 'url' | 'headers' | 'bearerTokenEnvVar'> {
  if (type !== 'http' && type !== 'sse') return { headers: {} };
  const { ctx, server } = reader;
  const url = reader.string('url');
  if (!reader.has('url')) reader.error('url', `is required for type "${type}"`, `add ${example(ctx.format, 'url', 'https://…')}`);
  if (url !== undefined && !url.includes('${')) {
    const problem = checkUrl(ctx, server, reader.key('url'), url, url, false);
    if (problem) reader.problems.push(problem);
  }
  const headers = reader.stringMap('headers') ?? {};
  for (const header of Object.keys(headers)) {
    if (!HEADER_NAME.test(header))
      reader.error(
        reader.key('headers'),
        `has an invalid header name ${JSON.stringify(header)}`,
        'header names are letters, digits and - without spaces or colons',
      );
  }
  const bearer = reader.string('bearer_token_env_var');
  if (bearer !== undefined && !ENV_NAME.test(bearer)) {
    reader.error(
      reader.key('bearer_token_env_var'),
      `is not a variable name: ${JSON.stringify(bearer)}`,
      'name the environment variable that holds the token, e.g. "GITHUB_TOKEN"',
    );
  }
  return { url, headers, bearerTokenEnvVar: bearer };
}

function readEnv(reader: EntryFieldReader): Record<string, string> {
  const env = reader.stringMap('env') ?? {};
  for (const key of Object.keys(env)) {
    if (key === '' || key.includes('=') || key.includes('\0')) {
      reader.error(
        reader.key('env'),
        `has an invalid variable name ${JSON.stringify(key)}`,
        `variable names cannot be empty or contain '='`,
      );
    }
  }
  return env;
}

function readSandbox(reader: EntryFieldReader, type: McpTransportType): Pick<ValidatedEntry, 'port' | 'protocol'> {
  const port = reader.port('port');
  if (type === 'sandbox' && !reader.has('port')) {
    reader.error(
      'port',
      'is required for type "sandbox"',
      `add ${example(reader.ctx.format, 'port', 3000)} (the port the server listens on)`,
    );
  }
  const protocolText = reader.string('protocol');
  let protocol: 'streamable_http' | 'sse' = 'streamable_http';
  if (protocolText !== undefined) {
    if (Object.hasOwn(PROTOCOL_VALUES, protocolText)) protocol = PROTOCOL_VALUES[protocolText]!;
    else
      reader.error(reader.key('protocol'), `is ${JSON.stringify(protocolText)}, which is not a protocol`, 'use "streamable_http" or "sse"');
  }
  return { port, protocol };
}

/**
 * Checks one entry. Returns the entry (defaults applied) only when there are no errors;
 * warnings come back either way.
 */
export function validateServerEntry(
  ctx: FileContext,
  name: string,
  raw: unknown,
): { entry?: ValidatedEntry; problems: McpConfigProblem[] } {
  const nameProblem = checkServerName(ctx, name);
  if (nameProblem) return { problems: [nameProblem] };
  const problems: McpConfigProblem[] = [];
  if (!isPlainObject(raw)) {
    const shape = ctx.format === 'json' ? 'an object' : 'a table';
    const sample =
      ctx.format === 'json'
        ? `"${name}": ${renderValue('json', { command: 'npx', args: ['-y', 'some-mcp-server'] })}`
        : `[mcp.servers.${name}] with command = ["npx", "-y", "some-mcp-server"]`;
    problems.push(serverProblem(ctx, name, `the entry must be ${shape}, not ${describeValue(raw, ctx.format)}`, `e.g. ${sample}`));
    return { problems };
  }
  const { fields, disabled } = collectFields(ctx, name, raw, problems);
  const type = readType(ctx, name, fields, problems);
  if (!type) return { problems };
  checkApplicability(ctx, name, type, fields, problems);

  const reader = new EntryFieldReader(ctx, name, fields);
  const proc = readProcess(reader, type);
  const cwd = type === 'stdio' ? reader.string('cwd') : undefined;
  const env = readEnv(reader);
  const envVars = reader.variableNames('env_vars') ?? [];
  const endpoint = readEndpoint(reader, type);
  const oauth = readOAuthField(reader);
  const sandbox = readSandbox(reader, type);
  const startupTimeoutMs = reader.duration('startup_timeout') ?? MCP_DEFAULTS.startupTimeoutMs;
  const toolTimeoutMs = reader.duration('tool_timeout') ?? MCP_DEFAULTS.toolTimeoutMs;
  const maxToolTimeoutMs = reader.duration('max_tool_timeout') ?? toolTimeoutMs * MCP_DEFAULTS.maxToolTimeoutFactor;
  if (reader.has('max_tool_timeout')) reader.checkMaxToolTimeout(toolTimeoutMs, maxToolTimeoutMs);
  let enabled = reader.boolean('enabled') ?? true;
  if (disabled) {
    if (typeof disabled.value !== 'boolean')
      reader.error(disabled.key, `must be true or false, not ${describeValue(disabled.value, 'json')}`, 'e.g. "disabled": true');
    else if (reader.has('enabled')) reader.error(disabled.key, `duplicates '${reader.key('enabled')}'`, 'keep only one of them');
    else enabled = !disabled.value;
  }
  const required = reader.boolean('required') ?? false;
  const sampling = reader.boolean('sampling') ?? false;
  const enabledTools = reader.stringArray('enabled_tools', 'tool names');
  const disabledTools = reader.stringArray('disabled_tools', 'tool names') ?? [];

  problems.push(...reader.problems);
  if (hasErrors(problems)) return { problems };
  const entry: ValidatedEntry = {
    name,
    type,
    ...proc,
    cwd,
    env,
    envVars,
    url: endpoint.url,
    urlKey: reader.key('url'),
    headers: endpoint.headers ?? {},
    headersKey: reader.key('headers'),
    bearerTokenEnvVar: endpoint.bearerTokenEnvVar,
    ...(oauth ? { oauth } : {}),
    ...sandbox,
    startupTimeoutMs,
    toolTimeoutMs,
    maxToolTimeoutMs,
    enabled,
    required,
    enabledTools,
    disabledTools,
    sampling,
  };
  return { entry, problems };
}
