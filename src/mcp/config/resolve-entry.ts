/**
 * Turns a validated entry into the `McpServerConfig` the connection manager uses:
 * interpolates `command`/`args`/`cwd`/`env`/`url`/`headers` values, resolves `cwd`, and
 * warns once per field about variables that are unset.
 */
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../core/logger.js';
import { registerSecret } from '../../core/redact.js';
import { interpolate, type InterpolationScope } from './interpolate.js';
import { fieldProblem, type FileContext, type McpConfigProblem } from './problems.js';
import type { McpConfigSource, McpOAuthGrant, McpServerConfig } from './server-config.js';
import { checkUrl, type ValidatedEntry } from './validate-entry.js';

export interface ResolveScope extends InterpolationScope {
  logger: Logger;
}

/** Interpolates values, collecting unset variables per field (one warning per field later). */
class FieldInterpolator {
  readonly unset = new Map<string, string[]>();

  constructor(private readonly scope: InterpolationScope) {}

  value(field: string, text: string): { value: string; changed: boolean } {
    const result = interpolate(text, this.scope);
    if (result.unset.length > 0) {
      const list = this.unset.get(field) ?? [];
      for (const name of result.unset) if (!list.includes(name)) list.push(name);
      this.unset.set(field, list);
    }
    return result;
  }

  map(key: string, values: Record<string, string>, onChanged?: (value: string) => void): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, text] of Object.entries(values)) {
      const result = this.value(`${key}.${name}`, text);
      if (result.changed) onChanged?.(result.value);
      out[name] = result.value;
    }
    return out;
  }
}

function unsetWarning(ctx: FileContext, server: string, field: string, names: string[]): McpConfigProblem {
  const first = names[0]!;
  const what = names.length === 1 ? `unset variable ${first}` : `unset variables ${names.join(', ')}`;
  return fieldProblem(
    ctx,
    server,
    field,
    `uses ${what} (replaced by an empty string)`,
    `set ${names.join(', ')}, or write \${${first}:-default}`,
    'warning',
  );
}

function resolveCwd(text: string, workspaceRoot: string, homeDir: string): string {
  let expanded = text;
  if (expanded === '~') expanded = homeDir;
  else if (expanded.startsWith('~/')) expanded = path.join(homeDir, expanded.slice(2));
  return path.resolve(workspaceRoot, expanded);
}

/**
 * Resolves one winning entry. Warnings about unset variables are logged and returned,
 * except for disabled entries (they are not started, so their variables do not matter).
 */
export function resolveServerEntry(
  ctx: FileContext,
  source: McpConfigSource,
  entry: ValidatedEntry,
  scope: ResolveScope,
): { config?: McpServerConfig; problems: McpConfigProblem[] } {
  const problems: McpConfigProblem[] = [];
  const values = new FieldInterpolator(scope);
  const command = entry.command?.map((part) => values.value(part.field, part.value).value);
  const cwd =
    entry.type === 'stdio'
      ? resolveCwd(entry.cwd === undefined ? '' : values.value('cwd', entry.cwd).value, scope.workspaceRoot, scope.homeDir || os.homedir())
      : undefined;
  const env = values.map('env', entry.env);
  const headers = values.map(entry.headersKey, entry.headers, (value) => registerSecret(value, `${entry.name}-header`));
  let url: string | undefined;
  if (entry.url !== undefined) {
    url = values.value(entry.urlKey, entry.url).value;
    if (entry.url.includes('${')) {
      const problem = checkUrl(ctx, entry.name, entry.urlKey, entry.url, url, true);
      if (problem) problems.push(problem);
    }
  }

  if (entry.enabled) {
    for (const [field, names] of values.unset) {
      const warning = unsetWarning(ctx, entry.name, field, names);
      scope.logger.warn(warning.message, { server: entry.name, field });
      problems.push(warning);
    }
    const bearer = entry.bearerTokenEnvVar;
    if (bearer !== undefined && !scope.env[bearer]) {
      const warning = fieldProblem(
        ctx,
        entry.name,
        'bearer_token_env_var',
        `names ${bearer}, which is not set`,
        `set ${bearer}, or requests are sent without an Authorization header`,
        'warning',
      );
      scope.logger.warn(warning.message, { server: entry.name, field: 'bearer_token_env_var' });
      problems.push(warning);
    }
    const oauth = entry.oauth;
    const secretFields: [string, string | undefined, string][] = [
      ['oauth.client_secret_env', oauth?.clientSecretEnv, 'the client secret'],
      ['oauth.idp_client_secret_env', oauth?.idpClientSecretEnv, "weft's client secret at the IdP"],
      ['oauth.id_token_env', oauth?.idTokenEnv, 'the ID token of your sign-in to the IdP'],
    ];
    for (const [field, variable, holds] of secretFields) {
      if (variable === undefined || scope.env[variable]) continue;
      const warning = fieldProblem(
        ctx,
        entry.name,
        field,
        `names ${variable}, which is not set`,
        unsetSecretFix(variable, holds, entry.name, oauth?.grant),
        'warning',
      );
      scope.logger.warn(warning.message, { server: entry.name, field });
      problems.push(warning);
    }
  }
  if (problems.some((problem) => problem.severity === 'error')) return { problems };

  const config: McpServerConfig = {
    name: entry.name,
    type: entry.type,
    env,
    envVars: entry.envVars,
    headers,
    protocol: entry.protocol,
    startupTimeoutMs: entry.startupTimeoutMs,
    toolTimeoutMs: entry.toolTimeoutMs,
    maxToolTimeoutMs: entry.maxToolTimeoutMs,
    enabled: entry.enabled,
    required: entry.required,
    disabledTools: entry.disabledTools,
    sampling: entry.sampling,
    source,
  };
  if (command) config.command = command;
  if (entry.script !== undefined) config.script = entry.script;
  if (cwd !== undefined) config.cwd = cwd;
  if (url !== undefined) config.url = url;
  if (entry.bearerTokenEnvVar !== undefined) config.bearerTokenEnvVar = entry.bearerTokenEnvVar;
  if (entry.oauth !== undefined) config.oauth = entry.oauth;
  if (entry.port !== undefined) config.port = entry.port;
  if (entry.enabledTools !== undefined) config.enabledTools = entry.enabledTools;
  return { config, problems };
}

/** Without its secret a machine client cannot get a token, and `weft mcp login` refuses to start. */
function unsetSecretFix(variable: string, holds: string, server: string, grant: McpOAuthGrant | undefined): string {
  if (grant !== undefined) return `set ${variable} to ${holds}, or '${server}' cannot get a token and will not start`;
  return `set ${variable} before 'weft mcp login ${server}', or the login is refused (it needs the secret)`;
}
