/**
 * Settings from `~/.weft/settings.toml` (user) and `.weft/settings.toml` (project): read,
 * checked against the known keys, and merged with the project winning key by key.
 * Approval rules concatenate (user first) because the last matching rule wins; `[llm.aliases]`
 * and `[llm.providers]` merge by name (a project entry replaces the user's entry whole).
 */
import { join } from 'node:path';
import { parseDuration } from '../duration.js';
import { WeftError } from '../errors.js';
import type { LogLevel } from '../logger.js';
import { CLI_NAMES, type CliName } from '../cli-names.js';
import { SETTINGS_SHAPE, checkShape } from './settings-shape.js';
import { mergeSandboxSpecs, readSandboxSpec, type SandboxSpec } from '../sandbox/sandbox-rules.js';
import { readTomlFile, type TomlDocument } from './toml-file.js';
import { checkLimitTables, mergeLimitTables, type LlmLimitSetting } from './llm-limits.js';
import { readConcurrencySetting, type ConcurrencyDefaults } from './run-concurrency-setting.js';

export type { LlmLimitSetting } from './llm-limits.js';
export type { ConcurrencyDefaults, ConcurrencyKeySetting } from './run-concurrency-setting.js';

export interface ApprovalRuleSetting {
  pattern: string;
  action: 'allow' | 'deny' | 'ask';
}

/** A provider entry under `[llm.providers.<name>]`: a base URL or key variable for a known provider, or a new OpenAI-compatible endpoint. */
export interface LlmProviderSetting {
  /** For a name weft does not know: which API it speaks (e.g. `openai-compatible`). */
  api?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
}

/** `[llm.prices."provider:model"]` (patterns like `"ollama:*"` allowed): US dollars per million tokens. */
export interface LlmPriceSetting {
  inputPerMtok: number;
  outputPerMtok: number;
  /** Defaults to the input rate. */
  cacheReadPerMtok?: number;
  /** Defaults to the input rate. */
  cacheWritePerMtok?: number;
  /** Defaults to the output rate. */
  reasoningPerMtok?: number;
}

/** `[llm]`: the default model and how providers are reached. The agent layer interprets it. */
export interface LlmSettings {
  /** Where agent stages run when their node does not say: weft's own loop (the default) or an external CLI. */
  backend?: 'weft' | 'cli';
  /** The CLI agent stages run on when their node does not say. */
  cli?: CliName;
  provider?: string;
  model?: string;
  /** Applies to `provider`. */
  baseUrl?: string;
  /** Applies to `provider`: the variable holding its API key. */
  apiKeyEnv?: string;
  maxRetries?: number;
  stream?: boolean;
  /** Alias name → `provider:model`. */
  aliases: Record<string, string>;
  providers: Record<string, LlmProviderSetting>;
  /** Price overrides by `provider:model` or pattern; merged by key, the project's entry winning. */
  prices?: Record<string, LlmPriceSetting>;
  /** `[llm.limits."pattern"]`: shared pools of model calls by `provider:model` pattern; merged by pattern, the project's table winning whole. */
  limits?: Record<string, LlmLimitSetting>;
}

export { CLI_NAMES, type CliName };

/** `[cli.<name>]`: where to find each external coding CLI (PATH when not set). */
export type CliSettings = Partial<Record<CliName, { path?: string }>>;

/** `[workspace]` (the user's file only for `root`: a project must not move where every run's files go). */
export interface WorkspaceSettings {
  root?: string;
  authorName?: string;
  authorEmail?: string;
}

export interface Settings {
  shellTimeoutMs: number;
  outputLimitBytes: number;
  /** `[tools.web_fetch] allow_hosts`: hosts web_fetch reaches even at non-public addresses. */
  webFetchAllowHosts: string[];
  approvalRules: ApprovalRuleSetting[];
  logLevel: LogLevel;
  llm: LlmSettings;
  cli: CliSettings;
  /** `[store] url`: the shared PostgreSQL store; absent means the SQLite file in the storage dir. */
  storeUrl?: string;
  /** `[runs] retention`: finished runs older than this are deleted when a worker starts; unset keeps them. */
  runRetentionMs: number | undefined;
  /** `[workspace]`: where run worktrees and clones live (absent: `<storage dir>/workspaces`), and who checkpoints are by. */
  workspace: WorkspaceSettings;
  /** `[run.sandbox]`: the user's, then the project's (paths add up, the rest the project's). */
  sandbox: SandboxSpec;
  /** `[run.concurrency]`: keys for runs whose workflow sets none; the project's file's, else the user's (never merged). */
  runConcurrency?: ConcurrencyDefaults;
  /** `[mcp] fast_path`: false turns weft's MCP SDK fast path off (as `WEFT_MCP_FAST_PATH=0` does); absent: on. */
  mcpFastPath?: boolean;
  /** The parsed files, for layers that own a table of their own (`[mcp.servers]`). */
  userDocument: TomlDocument | undefined;
  projectDocument: TomlDocument | undefined;
}

export const SETTINGS_DEFAULTS = {
  shellTimeoutMs: 120_000,
  outputLimitBytes: 100 * 1024,
  logLevel: 'warn' as LogLevel,
};

export function userSettingsFile(storageDir: string): string {
  return join(storageDir, 'settings.toml');
}

export function projectSettingsFile(workspaceRoot: string): string {
  return join(workspaceRoot, '.weft', 'settings.toml');
}

function check(document: TomlDocument | undefined): void {
  if (!document) return;
  // `[run.concurrency]` may be an array of tables, which the shape cannot say: it is read on its own.
  const run = section(document, 'run');
  const { concurrency, ...rest } = run;
  const data = concurrency === undefined ? document.data : { ...document.data, run: rest };
  const problems = checkShape(data, SETTINGS_SHAPE, '');
  if (problems.length === 0) problems.push(...checkLimitTables(section(document, 'llm').limits));
  problems.push(...readConcurrencySetting(concurrency).problems);
  if (problems.length > 0) {
    throw new WeftError('SETTINGS_INVALID', `${document.file}: ${problems.join('; ')}.`, { data: { file: document.file, problems } });
  }
}

function section(document: TomlDocument | undefined, name: string): Record<string, unknown> {
  const value = document?.data[name];
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

function pick<T>(name: string, key: string, user: TomlDocument | undefined, project: TomlDocument | undefined): T | undefined {
  return (section(project, name)[key] ?? section(user, name)[key]) as T | undefined;
}

function readLlm(user: TomlDocument | undefined, project: TomlDocument | undefined): LlmSettings {
  const llm = (document: TomlDocument | undefined) => section(document, 'llm');
  const table = (document: TomlDocument | undefined, key: string) => (llm(document)[key] ?? {}) as Record<string, unknown>;
  const providers: Record<string, LlmProviderSetting> = {};
  for (const [name, entry] of Object.entries({ ...table(user, 'providers'), ...table(project, 'providers') })) {
    const fields = entry as Record<string, string | undefined>;
    providers[name] = {
      ...(fields.api === undefined ? {} : { api: fields.api }),
      ...(fields.base_url === undefined ? {} : { baseUrl: fields.base_url }),
      ...(fields.api_key_env === undefined ? {} : { apiKeyEnv: fields.api_key_env }),
    };
  }
  const prices: Record<string, LlmPriceSetting> = {};
  for (const [key, entry] of Object.entries({ ...table(user, 'prices'), ...table(project, 'prices') })) {
    const fields = entry as Record<string, number | undefined>;
    prices[key] = {
      inputPerMtok: fields.input_per_mtok ?? 0,
      outputPerMtok: fields.output_per_mtok ?? 0,
      ...(fields.cache_read_per_mtok === undefined ? {} : { cacheReadPerMtok: fields.cache_read_per_mtok }),
      ...(fields.cache_write_per_mtok === undefined ? {} : { cacheWritePerMtok: fields.cache_write_per_mtok }),
      ...(fields.reasoning_per_mtok === undefined ? {} : { reasoningPerMtok: fields.reasoning_per_mtok }),
    };
  }
  const value = <T>(key: string) => pick<T>('llm', key, user, project);
  const optional = <K extends string, T>(name: K, item: T | undefined) => (item === undefined ? {} : ({ [name]: item } as Record<K, T>));
  return {
    ...optional('backend', value<'weft' | 'cli'>('backend')),
    ...optional('cli', value<CliName>('cli')),
    ...optional('provider', value<string>('provider')),
    ...optional('model', value<string>('model')),
    ...optional('baseUrl', value<string>('base_url')),
    ...optional('apiKeyEnv', value<string>('api_key_env')),
    ...optional('maxRetries', value<number>('max_retries')),
    ...optional('stream', value<boolean>('stream')),
    aliases: { ...(table(user, 'aliases') as Record<string, string>), ...(table(project, 'aliases') as Record<string, string>) },
    providers,
    prices,
    ...optionalLimits(mergeLimitTables(llm(user).limits, llm(project).limits)),
  };
}

export async function loadSettings(params: { storageDir: string; workspaceRoot: string }): Promise<Settings> {
  const [userDocument, projectDocument] = await Promise.all([
    readTomlFile(userSettingsFile(params.storageDir)),
    readTomlFile(projectSettingsFile(params.workspaceRoot)),
  ]);
  check(userDocument);
  check(projectDocument);
  const rules = (document: TomlDocument | undefined) => (section(document, 'approval').rules ?? []) as ApprovalRuleSetting[];
  const shellTimeout = pick<string | number>('tools', 'shell_timeout', userDocument, projectDocument);
  const retention = pick<string | number>('runs', 'retention', userDocument, projectDocument);
  return {
    shellTimeoutMs: shellTimeout === undefined ? SETTINGS_DEFAULTS.shellTimeoutMs : (parseDuration(shellTimeout) as number),
    outputLimitBytes: pick<number>('tools', 'output_limit_bytes', userDocument, projectDocument) ?? SETTINGS_DEFAULTS.outputLimitBytes,
    webFetchAllowHosts: (pick<{ allow_hosts?: string[] }>('tools', 'web_fetch', userDocument, projectDocument)?.allow_hosts ?? []).slice(),
    approvalRules: [...rules(userDocument), ...rules(projectDocument)],
    logLevel: pick<LogLevel>('log', 'level', userDocument, projectDocument) ?? SETTINGS_DEFAULTS.logLevel,
    llm: readLlm(userDocument, projectDocument),
    cli: readCli(userDocument, projectDocument),
    ...optionalStoreUrl(pick<string>('store', 'url', userDocument, projectDocument)),
    runRetentionMs: retention === undefined ? undefined : (parseDuration(retention) as number),
    workspace: readWorkspace(userDocument, projectDocument),
    sandbox: mergeSandboxSpecs(readSandbox(userDocument), readSandbox(projectDocument)),
    ...optionalConcurrency(projectDocument, userDocument),
    ...optionalFlag('mcpFastPath', pick<boolean>('mcp', 'fast_path', userDocument, projectDocument)),
    userDocument,
    projectDocument,
  };
}

function readWorkspace(user: TomlDocument | undefined, project: TomlDocument | undefined): WorkspaceSettings {
  const root = section(user, 'workspace').root as string | undefined;
  const authorName = pick<string>('workspace', 'author_name', user, project);
  const authorEmail = pick<string>('workspace', 'author_email', user, project);
  return {
    ...(root === undefined ? {} : { root }),
    ...(authorName === undefined ? {} : { authorName }),
    ...(authorEmail === undefined ? {} : { authorEmail }),
  };
}

/** `[cli.<name>] path`, the project's entry over the user's. */
function readCli(user: TomlDocument | undefined, project: TomlDocument | undefined): CliSettings {
  const cli: CliSettings = {};
  for (const name of CLI_NAMES) {
    const path = (pick<Record<string, unknown>>('cli', name, user, project) ?? {}).path;
    if (typeof path === 'string') cli[name] = { path };
  }
  return cli;
}

function readSandbox(document: TomlDocument | undefined): SandboxSpec | undefined {
  const value = section(document, 'run').sandbox;
  if (document === undefined || value === undefined) return undefined;
  const { spec, problems } = readSandboxSpec(value, '[run.sandbox]');
  if (problems.length > 0)
    throw new WeftError('SETTINGS_INVALID', `${document.file}: ${problems.join('; ')}.`, { data: { file: document.file, problems } });
  return spec;
}

function optionalFlag<K extends string>(key: K, value: boolean | undefined): { [P in K]?: boolean } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: boolean };
}

/** The project's `[run.concurrency]` when it has one, else the user's. */
function optionalConcurrency(project: TomlDocument | undefined, user: TomlDocument | undefined): { runConcurrency?: ConcurrencyDefaults } {
  for (const document of [project, user]) {
    const keys = document === undefined ? undefined : readConcurrencySetting(section(document, 'run').concurrency).keys;
    if (document !== undefined && keys !== undefined) return { runConcurrency: { keys, file: document.file } };
  }
  return {};
}

function optionalLimits(limits: Record<string, LlmLimitSetting>): { limits?: Record<string, LlmLimitSetting> } {
  return Object.keys(limits).length === 0 ? {} : { limits };
}

function optionalStoreUrl(url: string | undefined): { storeUrl?: string } {
  return url === undefined ? {} : { storeUrl: url };
}
