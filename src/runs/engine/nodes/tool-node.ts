/**
 * `tool` stages: one direct call of a built-in or MCP tool through the run's tool runtime
 * (validation, approval, budget), no model. The structured result, else the text, is the
 * stage output.
 */
import { RUN_EVENT, type ToolCallFinishedPayload, type ToolCallStartedPayload } from '../../model/event-types.js';
import { createFileReadTracker, resultText } from '../../../tools/tool.js';
import type { JsonObject, JsonValue } from '../../model/json.js';
import { resolveArgs, type ToolNode } from '../../workflow/index.js';
import type { NodeExecutor } from '../stage-context.js';

export const executeToolNode: NodeExecutor<ToolNode> = async (stage) => {
  const { node, context } = stage;
  const args = resolveArgs(node.args, context) as JsonObject;
  const toolbox = await stage.services.toolbox();
  await stage.emit([{ type: RUN_EVENT.toolCallStarted, payload: { tool: node.tool, arguments: args } satisfies ToolCallStartedPayload }]);
  const outcome = await toolbox.executor.execute(
    { id: stage.stageId, name: node.tool, arguments: args },
    { workspaceRoot: stage.run.cwd, readFiles: createFileReadTracker(), signal: stage.signal, traceContext: stage.traceContext },
  );
  const text = resultText(outcome.result);
  const output: JsonValue = (outcome.result.structuredContent as JsonObject | undefined) ?? text;
  // Nothing happens between the call's end and the stage's: both are recorded in one commit.
  const finalEvents = [
    {
      type: RUN_EVENT.toolCallFinished,
      payload: { tool: node.tool, isError: outcome.result.isError, durationMs: Math.round(outcome.durationMs), text: text.slice(0, 64 * 1024), artifactPath: outcome.result.artifactPath ?? null } satisfies ToolCallFinishedPayload,
    },
  ];
  if (stage.signal.aborted) return { status: 'cancelled', output, error: 'Cancelled', finalEvents };
  return outcome.result.isError ? { status: 'failed', output, error: text.slice(0, 4000), finalEvents } : { status: 'succeeded', output, finalEvents };
};
