/**
 * `weft doctor`'s checks of the coding CLIs agent stages can run on (`backend = "cli"`):
 * one per CLI weft has an adapter for. Each says where the binary is (settings path, PATH
 * or the npm package), its version, and whether the environment holds what the CLI needs
 * to reach its model (named, never printed). A CLI that the workspace's workflows or the
 * settings use fails the check when something is missing; any other is optional.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { cliAdapters } from '../../agent/cli-backend/cli-adapters.js';
import type { CliAdapter, CliName } from '../../agent/cli-backend/cli-adapter.js';
import { findCliBinary } from '../../agent/cli-backend/cli-binary.js';
import { stageCli } from '../../agent/cli-backend/cli-stage-plan.js';
import { withoutWeftSecrets } from '../../core/child-environment.js';
import { errorMessage } from '../../core/errors.js';
import type { Settings } from '../../core/settings/settings.js';
import { loadWorkspaceWorkflows } from './workflow-catalog.js';
import type { DoctorCheck } from './doctor.js';

const run = promisify(execFile);
const VERSION_TIMEOUT_MS = 30_000;

/** Who uses each CLI: workflow files (relative paths) and the settings. */
async function cliUsers(workspaceRoot: string, settings: Settings): Promise<Map<CliName, string[]>> {
  const users = new Map<CliName, string[]>();
  const add = (cli: CliName, user: string) => users.set(cli, [...new Set([...(users.get(cli) ?? []), user])]);
  if (settings.llm.backend === 'cli' && settings.llm.cli !== undefined) add(settings.llm.cli, '[llm] backend = "cli"');
  for (const { path, workflow } of await loadWorkspaceWorkflows(workspaceRoot)) {
    for (const node of Object.values(workflow.nodes)) {
      if (node.kind !== 'agent') continue;
      const cli = stageCli(node, settings.llm);
      if (cli !== undefined && cli !== 'unset') add(cli, path);
    }
  }
  return users;
}

/** `<binary> --version`'s first line, run with a throwaway home so no config of the user's is written. */
async function cliVersion(binary: string, env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'weft-doctor-cli-'));
  try {
    const isolated = {
      HOME: home,
      CLAUDE_CONFIG_DIR: home,
      CODEX_HOME: home,
      GEMINI_CLI_HOME: home,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      NO_COLOR: '1',
    };
    const { stdout } = await run(binary, ['--version'], {
      env: { ...withoutWeftSecrets(env), ...isolated },
      timeout: VERSION_TIMEOUT_MS,
      cwd: home,
    });
    return stdout.trim().split('\n', 1)[0] ?? '';
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function whereFound(adapter: CliAdapter, path: string, configured: string | undefined): string {
  if (configured !== undefined) return `[cli.${adapter.cli}] path`;
  return path === adapter.bundledBinary?.() ? `npm package ${adapter.npmPackage}` : 'PATH';
}

async function cliCheck(
  adapter: CliAdapter,
  settings: Settings,
  workspaceRoot: string,
  env: Readonly<Record<string, string | undefined>>,
  usedBy: string[] | undefined,
): Promise<DoctorCheck> {
  const name = `cli ${adapter.cli}`;
  const use = usedBy === undefined ? 'optional: no workflow or setting uses it' : `used by ${usedBy.join(', ')}`;
  const problem = (detail: string, fix: string): DoctorCheck =>
    usedBy === undefined
      ? { name, level: 'ok', detail: `${detail} (${use})`, fix: null }
      : { name, level: 'fail', detail: `${detail} (${use})`, fix };
  const configured = settings.cli[adapter.cli]?.path;
  const binary = findCliBinary(adapter, configured, env, workspaceRoot);
  if (!binary.found) {
    if (configured !== undefined)
      return problem(
        `${adapter.displayName} not found at ${resolve(workspaceRoot, configured)} ([cli.${adapter.cli}] path)`,
        `fix [cli.${adapter.cli}] path in settings, or remove it to look on PATH`,
      );
    return problem(
      `${adapter.displayName} ('${adapter.executable}') not found on PATH nor as the npm package ${adapter.npmPackage}`,
      `npm install -g ${adapter.npmPackage}, or set [cli.${adapter.cli}] path = "/path/to/${adapter.executable}" in .weft/settings.toml`,
    );
  }
  let version: string;
  try {
    version = await cliVersion(binary.path, env);
  } catch (error) {
    return problem(
      `${adapter.displayName} at ${binary.path} did not start ('--version': ${errorMessage(error).split('\n', 1)[0]})`,
      `reinstall ${adapter.npmPackage}, or fix [cli.${adapter.cli}] path in settings`,
    );
  }
  const { keys, endpoint } = adapter.modelEnvironment;
  const key = keys.find((variable) => (env[variable] ?? '') !== '');
  const found = `${adapter.displayName} ${version} at ${binary.path} (${whereFound(adapter, binary.path, configured)})`;
  const endpointNote = `${endpoint} ${env[endpoint] ? 'set' : "not set: the provider's own endpoint"}`;
  if (key === undefined)
    return problem(`${found}; needs ${keys.join(' or ')}, not set`, `export ${keys[0]}=… before running ${adapter.displayName} stages`);
  return { name, level: 'ok', detail: `${found}; ${key} set, ${endpointNote} (${use})`, fix: null };
}

/**
 * @example
 * await cliBackendChecks(app.workspaceRoot, app.settings, process.env);
 * // [{ name: 'cli claude', level: 'ok', detail: 'Claude Code 2.1.197 (Claude Code) at … (npm package …); ANTHROPIC_API_KEY set, …' }, …]
 */
export async function cliBackendChecks(
  workspaceRoot: string,
  settings: Settings,
  env: Readonly<Record<string, string | undefined>>,
): Promise<DoctorCheck[]> {
  let users: Map<CliName, string[]>;
  try {
    users = await cliUsers(workspaceRoot, settings);
  } catch {
    // An unreadable workspace is the store's and workflows' problem; every CLI is then optional.
    users = new Map();
  }
  const adapters = Object.values(cliAdapters).filter((adapter) => adapter !== undefined);
  return Promise.all(adapters.map((adapter) => cliCheck(adapter, settings, workspaceRoot, env, users.get(adapter.cli))));
}
