/**
 * Each run's sandbox: `[run.sandbox]` from the settings (user, then project), then the
 * workflow's, then the run's own (`--sandbox`, `sandbox` on create), resolved against the run's workspace and weft's storage dir, and prepared
 * by the `os` provider (bubblewrap) when the mode is "os". A run whose sandbox cannot be
 * made fails before its first stage (see `RunSandboxFactory`).
 */
import {
  bubblewrapProvider,
  mergeSandboxSpecs,
  resolveSandboxRules,
  type SandboxProvider,
  type SandboxRules,
} from '../../core/sandbox/index.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import type { RunSandboxFactory } from '../../runs/engine/stage-context.js';
import type { Workflow } from '../../runs/workflow/index.js';
import type { RunSettings } from './run-settings.js';

interface SandboxParams {
  storageDir: string;
  settings: RunSettings;
  /** The runner's environment: `HOME` is where `~` in the rules points (the credential folders). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The rules a run gets, or undefined when it is not sandboxed; `workDir`: where its stages work (its worktree or clone, else its cwd). */
export async function runSandboxRules(
  params: SandboxParams,
  run: RunRecord,
  workflow: Pick<Workflow, 'run'>,
  workDir: string,
): Promise<SandboxRules | undefined> {
  const settings = await params.settings(run);
  const spec = mergeSandboxSpecs(settings.sandbox, workflow.run.sandbox, run.sandbox);
  const home = params.env?.HOME;
  return resolveSandboxRules(spec, {
    workspace: workDir,
    storageDir: params.storageDir,
    ...(home === undefined || home === '' ? {} : { home }),
  });
}

export function runSandboxFactory(params: SandboxParams & { provider?: SandboxProvider }): RunSandboxFactory {
  const provider = params.provider ?? bubblewrapProvider(params.env);
  return async (run, workflow, onViolation, workDir) => {
    const rules = await runSandboxRules(params, run, workflow, workDir);
    return rules === undefined ? undefined : provider.prepare(rules, { onViolation });
  };
}
