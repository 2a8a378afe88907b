/**
 * The MCP hub handlers outside runs (`weft tools call`, `weft mcp …`): elicitation as
 * terminal prompts, sampling with the `[llm]` default model. Naming a tool on the command
 * line approves it, and that covers the sampling it triggers too: only a `deny` rule for
 * `mcp__<server>__sampling` stops it, and an explicit `ask` rule asks at the terminal
 * (refused without one). The model packages load only when a server first samples.
 */
import type { Logger } from '../../core/logger.js';
import type { Settings } from '../../core/settings/settings.js';
import type { ModelClient } from '../../agent/model-client.js';
import type { McpHubHandlers } from '../../mcp/hub/index.js';
import { yesNoFromText } from '../../runs/answer-text.js';
import { ApprovalPolicy } from '../../tools/approval-policy.js';
import { samplingHandler } from './sampling-handler.js';
import { terminalElicitationHandler } from './terminal-elicitation.js';
import type { TerminalPrompter } from './terminal-prompter.js';

export interface TerminalBridgeParams {
  terminal: TerminalPrompter;
  settings: Pick<Settings, 'approvalRules' | 'llm'>;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
}

/**
 * @example
 * new McpService({ …, handlers: terminalHubHandlers({ terminal, settings, env, logger }) });
 */
export function terminalHubHandlers(params: TerminalBridgeParams): McpHubHandlers {
  const { terminal } = params;
  let client: Promise<ModelClient> | undefined;
  const model = () =>
    (client ??= import('../../agent/providers/create-model-client.js').then(({ createModelClient }) =>
      createModelClient([], { llm: params.settings.llm, env: params.env }),
    ));
  return {
    elicitation: terminalElicitationHandler(terminal),
    sampling: samplingHandler({
      policy: new ApprovalPolicy(params.settings.approvalRules),
      approvalMode: { interactive: false, autoApprove: true },
      ...(terminal.interactive
        ? { confirm: async (prompt: string, signal: AbortSignal) => yesNoFromText(await terminal.ask(`${prompt} [y/N] `, signal)) === true }
        : {}),
      model,
      logger: params.logger,
    }),
  };
}
