/**
 * Tool approval inside a run: an `ask` rule becomes a confirmation question on the stage
 * that makes the call, and the stage waits (the run is `blocked`) until someone answers.
 */
import type { Tool } from '../../tools/tool.js';
import type { ToolCall } from '../../tools/tool-executor.js';
import { STAGE_ID } from '../model/run-event.js';
import { askStageQuestion, type StageQuestionDeps } from './stage-question.js';

function describeArguments(args: unknown): string {
  const text = JSON.stringify(args ?? {});
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** `deps.stageId` is where the question goes when the call id is not itself a stage id. */
export async function askApprovalQuestion(call: ToolCall, tool: Tool, signal: AbortSignal, deps: StageQuestionDeps): Promise<boolean> {
  const stageId = STAGE_ID.test(call.id) ? call.id : deps.stageId;
  const prompt = `Allow ${tool.name} with these arguments? ${describeArguments(call.arguments)}`;
  return (await askStageQuestion({ kind: 'confirmation', prompt }, signal, { ...deps, stageId }, { tool: tool.name })) === true;
}
