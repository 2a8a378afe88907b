/**
 * The MCP hub handlers of one run: `sampling/createMessage` answered by the run's model
 * (the run's own, else the workflow's `[run] model`, else `[llm] model`) behind the run's
 * approval rules, an `ask` becoming a confirmation question; `elicitation/create` becoming
 * a question on the stage whose tool call the server serves, which waits (`blocked`) for the answer.
 */
import type { LlmSettings } from '../../core/settings/settings.js';
import type { Logger } from '../../core/logger.js';
import { createModelClient } from '../../agent/providers/create-model-client.js';
import type { ModelClient } from '../../agent/model-client.js';
import type { ElicitationHandler, McpHubHandlers } from '../../mcp/hub/index.js';
import type { RunBridge } from '../../runs/engine/stage-context.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import type { Workflow } from '../../runs/workflow/index.js';
import type { ApprovalMode, ApprovalPolicy } from '../../tools/approval-policy.js';
import { elicitationQuestion } from './elicitation-question.js';
import { samplingHandler } from './sampling-handler.js';

export interface RunBridgeParams {
  run: RunRecord;
  workflow: Workflow;
  bridge: RunBridge;
  policy: ApprovalPolicy;
  approvalMode: ApprovalMode;
  llm: LlmSettings;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
}

/** Elicitation in a run: one question per request; `decline` / `cancel` answers end it so. */
export function runElicitationHandler(bridge: RunBridge): ElicitationHandler {
  return async ({ server, params, signal, origin }) => {
    // weft offers form elicitation only; a URL request from a server that ignores that is declined.
    if (params.mode === 'url') return { action: 'decline' };
    const { question, toResult } = elicitationQuestion(server, params);
    return toResult(await bridge.ask(question, signal, origin));
  };
}

/**
 * @example
 * const hub = new McpHub({ …, handlers: runHubHandlers({ run, workflow, bridge, policy, approvalMode, llm: settings.llm, env, logger }) });
 */
export function runHubHandlers(params: RunBridgeParams): McpHubHandlers {
  const { run, workflow, bridge } = params;
  let client: ModelClient | undefined;
  const model = async () =>
    (client ??= createModelClient(
      [
        { spec: run.model, where: 'the model the run was created with' },
        { spec: workflow.run.model, where: `[run] model in ${workflow.file}` },
      ],
      { llm: params.llm, env: params.env },
    ));
  return {
    sampling: samplingHandler({
      policy: params.policy,
      approvalMode: params.approvalMode,
      confirm: async (prompt, signal, origin) => (await bridge.ask({ kind: 'confirmation', prompt }, signal, origin)) === true,
      model,
      record: (events, origin) => bridge.emit(events, origin),
      logger: params.logger,
    }),
    elicitation: runElicitationHandler(bridge),
  };
}
