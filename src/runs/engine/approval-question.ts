/**
 * Tool approval inside a run: an `ask` rule becomes a confirmation question on the stage
 * that makes the call, and the stage waits (the run is `blocked`) until someone answers.
 */
import type { Tool } from '../../tools/tool.js';
import type { ToolCall } from '../../tools/tool-executor.js';
import { RUN_EVENT, STAGE_ID, type NewRunEvent, type RunEvent } from '../model/run-event.js';
import type { RunControl } from './run-control.js';

export interface ApprovalQuestionDeps {
  append(events: NewRunEvent[]): Promise<RunEvent[]>;
  control: RunControl;
  newId: () => string;
  whileBlocked<T>(work: () => Promise<T>): Promise<T>;
  /** The stage to attach the question to when the call id is not a stage id. */
  fallbackStageId?: string;
}

function describeArguments(args: unknown): string {
  const text = JSON.stringify(args ?? {});
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

export async function askApprovalQuestion(call: ToolCall, tool: Tool, signal: AbortSignal, deps: ApprovalQuestionDeps): Promise<boolean> {
  const questionId = deps.newId();
  const stageId = STAGE_ID.test(call.id) ? call.id : deps.fallbackStageId;
  await deps.append([
    {
      type: RUN_EVENT.questionAsked,
      ...(stageId ? { stageId } : {}),
      payload: { questionId, kind: 'confirmation', prompt: `Allow ${tool.name} with these arguments? ${describeArguments(call.arguments)}`, tool: tool.name },
    },
  ]);
  const answer = await deps.whileBlocked(() => deps.control.answer(questionId, signal));
  return answer === true;
}
