/**
 * `tool` stages: one direct call of a built-in or MCP tool through the run's tool runtime
 * (validation, approval, budget), no model. The structured result, else the text, is the
 * stage output.
 */
import { RUN_EVENT, type ToolCallFinishedPayload, type ToolCallStartedPayload } from '../../model/event-types.js';
import { createFileReadTracker, resultText, type Tool } from '../../../tools/tool.js';
import type { JsonObject, JsonValue } from '../../model/json.js';
import { resolveArgs, type ToolNode } from '../../workflow/index.js';
import { callOriginOf, type NodeExecutor } from '../stage-context.js';

export const executeToolNode: NodeExecutor<ToolNode> = async (stage) => {
  const { node, context } = stage;
  const args = resolveArgs(node.args, context) as JsonObject;
  const toolbox = await stage.services.toolbox();
  const missing = toolbox.registry.get(node.tool) === undefined ? toolbox.whyMissing?.(node.tool) : undefined;
  if (missing !== undefined) return { status: 'failed', error: `tool '${node.tool}' is not available: ${missing}` };
  const started = [{ type: RUN_EVENT.toolCallStarted, payload: { tool: node.tool, arguments: args } satisfies ToolCallStartedPayload }];
  // A built-in that only reads the workspace (and is quick) changes nothing a lost runner leaves behind: its start goes with its end.
  if (readsWorkspaceOnly(toolbox.registry.get(node.tool))) stage.hold(started);
  else await stage.emit(started);
  const outcome = await toolbox.executor.execute(
    { id: stage.stageId, name: node.tool, arguments: args },
    {
      workspaceRoot: stage.workDir,
      readFiles: createFileReadTracker(),
      signal: stage.signal,
      traceContext: stage.traceContext,
      origin: callOriginOf(stage),
    },
  );
  const text = resultText(outcome.result);
  const output: JsonValue = (outcome.result.structuredContent as JsonObject | undefined) ?? text;
  // Nothing happens between the call's end and the stage's: both are recorded in one commit.
  const finalEvents = [
    {
      type: RUN_EVENT.toolCallFinished,
      payload: {
        tool: node.tool,
        isError: outcome.result.isError,
        durationMs: Math.round(outcome.durationMs),
        text: text.slice(0, 64 * 1024),
        artifactPath: outcome.result.artifactPath ?? null,
      } satisfies ToolCallFinishedPayload,
    },
  ];
  if (stage.signal.aborted) return { status: 'cancelled', output, error: 'Cancelled', finalEvents };
  return outcome.result.isError
    ? { status: 'failed', output, error: text.slice(0, 4000), finalEvents }
    : { status: 'succeeded', output, finalEvents };
};

/** weft's own read-only tools that stay on this machine (read_file, grep, glob, list_dir; not web_fetch). */
function readsWorkspaceOnly(tool: Tool | undefined): boolean {
  return tool?.source === 'builtin' && tool.annotations?.readOnlyHint === true && tool.annotations.openWorldHint !== true;
}
