/**
 * Settings from `~/.weft/settings.toml` (user) and `.weft/settings.toml` (project): read,
 * checked against the known keys, and merged with the project winning key by key.
 * Approval rules concatenate (user first) because the last matching rule wins.
 */
import { join } from 'node:path';
import { parseDuration } from '../duration.js';
import { WeftError } from '../errors.js';
import type { LogLevel } from '../logger.js';
import { SETTINGS_SHAPE, checkShape } from './settings-shape.js';
import { readTomlFile, type TomlDocument } from './toml-file.js';

export interface ApprovalRuleSetting {
  pattern: string;
  action: 'allow' | 'deny' | 'ask';
}

export interface Settings {
  shellTimeoutMs: number;
  outputLimitBytes: number;
  approvalRules: ApprovalRuleSetting[];
  logLevel: LogLevel;
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
  const problems = checkShape(document.data, SETTINGS_SHAPE, '');
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

export async function loadSettings(params: { storageDir: string; workspaceRoot: string }): Promise<Settings> {
  const [userDocument, projectDocument] = await Promise.all([
    readTomlFile(userSettingsFile(params.storageDir)),
    readTomlFile(projectSettingsFile(params.workspaceRoot)),
  ]);
  check(userDocument);
  check(projectDocument);
  const rules = (document: TomlDocument | undefined) => (section(document, 'approval').rules ?? []) as ApprovalRuleSetting[];
  const shellTimeout = pick<string | number>('tools', 'shell_timeout', userDocument, projectDocument);
  return {
    shellTimeoutMs: shellTimeout === undefined ? SETTINGS_DEFAULTS.shellTimeoutMs : (parseDuration(shellTimeout) as number),
    outputLimitBytes: pick<number>('tools', 'output_limit_bytes', userDocument, projectDocument) ?? SETTINGS_DEFAULTS.outputLimitBytes,
    approvalRules: [...rules(userDocument), ...rules(projectDocument)],
    logLevel: pick<LogLevel>('log', 'level', userDocument, projectDocument) ?? SETTINGS_DEFAULTS.logLevel,
    userDocument,
    projectDocument,
  };
}
