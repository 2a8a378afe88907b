/**
 * `agent` and `prompt` stages go to the agent layer's runner. Without one (no model
 * configured) they fail with a clear reason — never silently.
 */
import type { AgentNode, PromptNode } from '../../workflow/index.js';
import type { NodeExecutor } from '../stage-context.js';

export const executeLlmNode: NodeExecutor<AgentNode | PromptNode> = async (stage) => {
  const agent = stage.services.agent;
  if (!agent) {
    return {
      status: 'failed',
      error: `No model configured: ${stage.node.kind} stage '${stage.node.name}' needs an LLM provider. Configure [llm] in .weft/settings.toml (provider, model, api key variable), or replace the node with a command or tool node.`,
    };
  }
  return agent.runStage(stage);
};
