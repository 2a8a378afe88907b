/**
 * `weft doctor`: checks what a first run needs — Node, the storage dir and its store, every
 * MCP server (with the fix for each failure), the model configuration, the coding CLIs agent
 * stages can run on (`doctor-cli-backends.ts`), and whether Claude Code, Cursor and Codex have
 * a `weft` entry. Each check is a value; none throws.
 */
import { readFile } from 'node:fs/promises';
import { bubblewrapRequirements } from '../../core/sandbox/index.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../../core/errors.js';
import type { WeftApp } from '../weft-app.js';
import { cliBackendChecks } from './doctor-cli-backends.js';

export type CheckLevel = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  name: string;
  level: CheckLevel;
  detail: string;
  /** What to do about a warning or failure; null when ok. */
  fix: string | null;
}

const MIN_NODE_MAJOR = 20;

/** Working copies under the workspace root whose run is gone (a crash, or a store emptied by hand); a worker start removes them. */
async function workspacesCheck(app: WeftApp): Promise<DoctorCheck> {
  try {
    const { root, stale } = await (await app.workspaces()).stale();
    if (stale.length === 0) return { name: 'workspaces', level: 'ok', detail: `${root} (no stale worktrees)`, fix: null };
    const listed = stale
      .slice(0, 5)
      .map((entry) => `${entry.path} (${entry.kind})`)
      .join(', ');
    return {
      name: 'workspaces',
      level: 'warn',
      detail: `${stale.length} stale worktree${stale.length === 1 ? '' : 's'} whose run is gone: ${listed}${stale.length > 5 ? ', …' : ''}`,
      fix: "start a worker ('weft worker --until-idle') to remove them, or delete the folders",
    };
  } catch (error) {
    return {
      name: 'workspaces',
      level: 'warn',
      detail: `${app.workspaceHost.root}: ${errorMessage(error)}`,
      fix: 'check that the workspace root (WEFT_WORKSPACE_ROOT, [workspace] root) is readable',
    };
  }
}

export async function runDoctor(app: WeftApp, env: Record<string, string | undefined>): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  checks.push(
    major >= MIN_NODE_MAJOR
      ? { name: 'node', level: 'ok', detail: `Node ${process.versions.node}`, fix: null }
      : { name: 'node', level: 'fail', detail: `Node ${process.versions.node}`, fix: `install Node ${MIN_NODE_MAJOR} or newer` },
  );
  try {
    const runs = await app.runs();
    const page = await runs.search({ archived: 'any', limit: 1 });
    checks.push({
      name: 'store',
      level: 'ok',
      detail: `${app.storageDir} (${page.runs.length === 0 ? 'no runs yet' : 'readable'})`,
      fix: null,
    });
  } catch (error) {
    checks.push({
      name: 'store',
      level: 'fail',
      detail: `${app.storageDir}: ${errorMessage(error)}`,
      fix: 'check that the storage dir is writable, or pass --storage-dir / set WEFT_HOME',
    });
  }
  try {
    for (const row of await (await app.mcp()).list()) {
      const name = `mcp ${row.name}`;
      if (row.status === 'ready') checks.push({ name, level: 'ok', detail: `ready, ${row.tools} tools (${row.source})`, fix: null });
      else if (row.status === 'disabled') checks.push({ name, level: 'ok', detail: `disabled (${row.source})`, fix: null });
      else
        checks.push({
          name,
          level: 'fail',
          detail: `${row.status}: ${(row.error ?? 'unknown error').split('\n', 1)[0]}`,
          fix: `run 'weft mcp test ${row.name}' for details; fix or disable the entry in ${row.source}`,
        });
    }
  } catch (error) {
    checks.push({
      name: 'mcp',
      level: 'fail',
      detail: errorMessage(error),
      fix: "fix the server configuration named above, then run 'weft mcp list'",
    });
  }
  checks.push(await workspacesCheck(app));
  checks.push(sandboxCheck(app, env));
  checks.push(modelCheck(app, env));
  checks.push(...(await cliBackendChecks(app.workspaceRoot, app.settings, env)));
  checks.push(...(await clientEntries(app.workspaceRoot, env)));
  return checks;
}

/** The os sandbox's tools: a failure only when settings ask for `[run.sandbox] mode = "os"`, else a warning. */
function sandboxCheck(app: WeftApp, env: Record<string, string | undefined>): DoctorCheck {
  const needs = bubblewrapRequirements(env);
  const wanted = app.settings.sandbox.mode === 'os';
  const notes = needs.notes.length > 0 ? `; ${needs.notes.join('; ')}` : '';
  if (needs.ok)
    return {
      name: 'sandbox',
      level: needs.notes.length > 0 ? 'warn' : 'ok',
      detail: `bubblewrap, socat and setpriv found (mode = "${app.settings.sandbox.mode ?? 'none'}" in settings)${notes}`,
      fix: null,
    };
  return {
    name: 'sandbox',
    level: wanted ? 'fail' : 'warn',
    detail: `${needs.missing.join(', ')} missing: [run.sandbox] mode = "os" runs are refused${notes}`,
    fix: needs.install === undefined ? 'the os sandbox needs Linux' : `${needs.install} (as root)`,
  };
}

function modelCheck(app: WeftApp, env: Record<string, string | undefined>): DoctorCheck {
  const { provider, model, apiKeyEnv } = app.settings.llm;
  if (!provider || !model)
    return {
      name: 'model',
      level: 'warn',
      detail: 'no default model ([llm] provider and model)',
      fix: 'set [llm] provider and model in settings.toml, or give each agent stage a model',
    };
  if (apiKeyEnv && !env[apiKeyEnv])
    return {
      name: 'model',
      level: 'fail',
      detail: `${provider}:${model}, but ${apiKeyEnv} is not set`,
      fix: `export ${apiKeyEnv}=… before running agent stages`,
    };
  return { name: 'model', level: 'ok', detail: `${provider}:${model}`, fix: null };
}

async function clientEntries(workspaceRoot: string, env: Record<string, string | undefined>): Promise<DoctorCheck[]> {
  const home = homedir();
  const read = (file: string) => readFile(file, 'utf8').catch(() => '');
  const claudeUser = await read(join(home, '.claude.json'));
  const claudeProject = await read(join(workspaceRoot, '.mcp.json'));
  const cursor = `${await read(join(home, '.cursor', 'mcp.json'))}${await read(join(workspaceRoot, '.cursor', 'mcp.json'))}`;
  const codexFile = join(env.CODEX_HOME ?? join(home, '.codex'), 'config.toml');
  const codex = await read(codexFile);
  const entry = (client: string, found: boolean, fix: string): DoctorCheck =>
    found
      ? { name: client, level: 'ok', detail: 'has a weft entry', fix: null }
      : { name: client, level: 'warn', detail: 'no weft entry', fix };
  return [
    entry(
      'claude-code',
      /"weft"\s*:/.test(claudeUser) || /"weft"\s*:/.test(claudeProject),
      "run 'weft mcp init claude' to use weft from Claude Code",
    ),
    entry('cursor', /"weft"\s*:/.test(cursor), "run 'weft mcp init cursor' to use weft from Cursor"),
    entry(
      'codex',
      /^\[mcp_servers\.weft\]/m.test(codex),
      `add [mcp_servers.weft] with command = "weft" and args = ["mcp", "start"] to ${codexFile}`,
    ),
  ];
}
