/**
 * Each run's sandbox: `[run.sandbox]` from the settings (user, then project), then the
 * workflow's, resolved against the run's workspace and weft's storage dir, and prepared
 * by the `os` provider (bubblewrap) when the mode is "os". A run whose sandbox cannot be
 * made fails before its first stage (see `RunSandboxFactory`).
 */
import { bubblewrapProvider, describeSandboxRules, mergeSandboxSpecs, resolveSandboxRules, type SandboxProvider, type SandboxRules } from '../core/sandbox/index.js';
import type { RunRecord } from '../runs/model/run-record.js';
import type { RunSandboxFactory } from '../runs/engine/stage-context.js';
import { runWorkspace } from '../runs/engine/stage-workspace.js';
import type { Workflow } from '../runs/workflow/index.js';
import type { RunSettings } from './run-settings.js';

/** The rules a run gets, or undefined when it is not sandboxed. */
export async function runSandboxRules(params: { storageDir: string; settings: RunSettings }, run: RunRecord, workflow: Pick<Workflow, 'run'>): Promise<SandboxRules | undefined> {
  const settings = await params.settings(run);
  const spec = mergeSandboxSpecs(settings.sandbox, workflow.run.sandbox);
  return resolveSandboxRules(spec, { workspace: runWorkspace(run), storageDir: params.storageDir });
}

/** One line saying whether a run is sandboxed and with which rules (`weft run`, `inspect`). */
export async function runSandboxSummary(params: { storageDir: string; settings: RunSettings }, run: RunRecord, workflow: Pick<Workflow, 'run'>): Promise<string> {
  return describeSandboxRules(await runSandboxRules(params, run, workflow));
}

export function runSandboxFactory(params: { storageDir: string; settings: RunSettings; provider?: SandboxProvider }): RunSandboxFactory {
  const provider = params.provider ?? bubblewrapProvider();
  return async (run, workflow, onViolation) => {
    const rules = await runSandboxRules(params, run, workflow);
    return rules === undefined ? undefined : provider.prepare(rules, { onViolation });
  };
}
