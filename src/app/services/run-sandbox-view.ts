/**
 * Whether a run is sandboxed and with which rules, for `weft run`, `weft inspect`,
 * `weft_run_get`, the HTTP run view and the dashboard: read from the run's workflow, its
 * project's settings and its own `sandbox`, resolved against the folder its stages work in
 * (its worktree or clone on this host, else its cwd), as its runner resolves them.
 */
import { join } from 'node:path';
import { loadSettings } from '../../core/settings/settings.js';
import { describeSandboxRules, type SandboxRules } from '../../core/sandbox/index.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { loadWorkflow } from '../../runs/workflow/index.js';
import { runSandboxRules } from '../runner/run-sandbox.js';

export interface RunSandboxView {
  sandboxed: boolean;
  rules: SandboxRules | null;
  /** One line: `none (…)` or `os — writes: …`. */
  summary: string;
}

export interface SandboxViewHost {
  storageDir: string;
  /** Where this host keeps run workspaces (`WeftApp.workspaceHost.root`). */
  workspaceRoot: string;
  /** `HOME` is where `~` in the rules points; default: this process's. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The folder a run's stages work in on this host: `<workspace root>/<run id>/<subdir>` for a worktree or clone, else its cwd. */
export function runWorkDir(run: Pick<RunRecord, 'id' | 'cwd' | 'workspace'>, workspaceRoot: string): string {
  const workspace = run.workspace;
  if (workspace === undefined) return run.cwd;
  return join(workspaceRoot, run.id, ...(workspace.subdir === '' ? [] : workspace.subdir.split('/')));
}

/** @example (await runSandboxView({ storageDir, workspaceRoot }, run)).summary // 'os — writes: /home/me/.weft/workspaces/01J…, … and a private /tmp; …' */
export async function runSandboxView(host: SandboxViewHost, run: RunRecord): Promise<RunSandboxView> {
  try {
    const workflow = await loadWorkflow(run.workflowPath);
    const settings = () => loadSettings({ storageDir: host.storageDir, workspaceRoot: run.cwd });
    const rules = await runSandboxRules(
      { storageDir: host.storageDir, settings, ...(host.env === undefined ? {} : { env: host.env }) },
      run,
      workflow,
      runWorkDir(run, host.workspaceRoot),
    );
    return { sandboxed: rules !== undefined, rules: rules ?? null, summary: describeSandboxRules(rules) };
  } catch (error) {
    return {
      sandboxed: false,
      rules: null,
      summary: `unknown (${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)})`,
    };
  }
}
