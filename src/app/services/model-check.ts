/**
 * `weft workflow validate --check-models`: whether every agent and prompt stage of a
 * workflow has a usable model configuration — a model named (node, `[run] model` or
 * `[llm] model`), a provider weft knows, its key variable set — without calling a model.
 * The same check fails a stage in a dry run (`ModelStageRunner.checkStage`).
 */
import { errorMessage, WeftError } from '../../core/errors.js';
import type { LlmSettings } from '../../core/settings/settings.js';
import { checkModelConfig, modelSources } from '../../agent/index.js';
import type { Workflow } from '../../runs/workflow/index.js';

export interface StageModelCheck {
  node: string;
  kind: 'agent' | 'prompt';
  ok: boolean;
  /** `provider:model`, or null when none could be chosen. */
  model: string | null;
  /** The variable the key is read from; null when the provider takes none or it is missing. */
  keyEnv: string | null;
  /** What to set, when not ok. */
  problem: string | null;
  /** The error code of the problem (`MODEL_CONFIG_INVALID`, `MODEL_KEY_MISSING`). */
  code: string | null;
}

/**
 * @example (await checkWorkflowModels(workflow, settings.llm, process.env)).filter((check) => !check.ok)
 */
export function checkWorkflowModels(
  workflow: Workflow,
  llm: LlmSettings,
  env: Readonly<Record<string, string | undefined>>,
  runModel?: string,
): StageModelCheck[] {
  return Object.values(workflow.nodes).flatMap((node): StageModelCheck[] => {
    if (node.kind !== 'agent' && node.kind !== 'prompt') return [];
    const base = { node: node.name, kind: node.kind };
    try {
      const checked = checkModelConfig(modelSources(node, workflow, runModel === undefined ? undefined : { model: runModel }), {
        llm,
        env,
      });
      return [
        { ...base, ok: true, model: `${checked.provider}:${checked.model}`, keyEnv: checked.keyEnv ?? null, problem: null, code: null },
      ];
    } catch (error) {
      return [
        { ...base, ok: false, model: null, keyEnv: null, problem: errorMessage(error), code: WeftError.is(error) ? error.code : null },
      ];
    }
  });
}
