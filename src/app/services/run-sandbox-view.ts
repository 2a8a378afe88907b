/**
 * Whether a run is sandboxed and with which rules, for `weft run`, `weft inspect` and the
 * dashboard: read from the run's workflow and its project's settings, as its runner reads them.
 */
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

/** @example (await runSandboxView(storageDir, run)).summary // 'os — writes: /src/app and a private /tmp; …' */
export async function runSandboxView(storageDir: string, run: RunRecord): Promise<RunSandboxView> {
  try {
    const workflow = await loadWorkflow(run.workflowPath);
    const rules = await runSandboxRules({ storageDir, settings: () => loadSettings({ storageDir, workspaceRoot: run.cwd }) }, run, workflow);
    return { sandboxed: rules !== undefined, rules: rules ?? null, summary: describeSandboxRules(rules) };
  } catch (error) {
    return { sandboxed: false, rules: null, summary: `unknown (${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)})` };
  }
}
