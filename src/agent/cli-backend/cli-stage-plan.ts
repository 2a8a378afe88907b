/**
 * Whether an agent stage runs on a CLI, and which: the node's `backend`/`cli` (a `cli`
 * alone means the CLI backend), else `[llm] backend`/`cli` in settings. Also the model
 * the CLI gets (the node's, the run's, the workflow's, or `[llm] model` when `[llm]`
 * itself selects the CLI backend), without a provider prefix (`anthropic:`), which the
 * CLIs do not take.
 */
import type { LlmSettings } from '../../core/settings/settings.js';
import type { StageRun } from '../../runs/engine/stage-context.js';
import type { AgentNode, CliName } from '../../runs/workflow/index.js';
import { renderTemplate } from '../../runs/workflow/index.js';
import { firstMessage } from '../agent-prompt.js';
import type { CliStagePlan } from './cli-stage-runner.js';
import { RUN_TOOL_NAMES, RUN_TOOLS_SERVER_NAME } from './run-tools-server.js';

/** Provider prefixes a model may carry in weft (`anthropic:claude-sonnet-4-5`). */
const PROVIDER_PREFIX = /^(anthropic|openai|google|gemini|claude|codex):(?!\/\/)/;

/** The CLI the stage runs on; undefined when it runs on weft's own loop. */
export function stageCli(node: AgentNode, llm: LlmSettings): CliName | 'unset' | undefined {
  const backend = node.backend ?? (node.cli !== undefined ? 'cli' : (llm.backend ?? 'weft'));
  if (backend !== 'cli') return undefined;
  return node.cli ?? llm.cli ?? 'unset';
}

function cliSystemPrompt(stage: StageRun & { node: AgentNode }): string {
  const { node, workflow, context } = stage;
  const own = node.system === undefined ? '' : `${renderTemplate(node.system, context)}\n\n`;
  return (
    `${own}You are running the stage '${node.name}' of the weft workflow '${workflow.name}'. ` +
    `When you cannot go on without a person's decision, ask them with the ${RUN_TOOL_NAMES.ask} tool of the '${RUN_TOOLS_SERVER_NAME}' MCP server; report progress on long tasks with its ${RUN_TOOL_NAMES.progress} tool. ` +
    'End with your final answer; if the task asks for JSON, reply with the JSON only.'
  );
}

export function cliStagePlan(stage: StageRun & { node: AgentNode }, cli: CliName, llm: LlmSettings, maxTurns: number): CliStagePlan {
  const { node, run, workflow } = stage;
  const spec = node.model ?? run.model ?? workflow.run.model ?? (llm.backend === 'cli' ? llm.model : undefined);
  return {
    cli,
    model: spec?.replace(PROVIDER_PREFIX, ''),
    prompt: firstMessage({ run, node, context: stage.context }),
    systemPrompt: cliSystemPrompt(stage),
    maxTurns,
  };
}
