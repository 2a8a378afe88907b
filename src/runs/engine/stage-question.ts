/**
 * Questions a run's tools ask while a stage calls them (MCP elicitation, sampling
 * approval): the question goes on that stage, the run is `blocked` until someone answers
 * (CLI, MCP, HTTP), and the answer comes back to the caller. Answers are checked against
 * the question (kind, schema, alternatives) when they are given, so what arrives fits.
 */
import { RUN_EVENT } from '../model/event-types.js';
import { WeftError } from '../../core/errors.js';
import type { JsonValue } from '../model/json.js';
import { type NewRunEvent, type RunEvent } from '../model/run-event.js';
import type { RunControl } from './run-control.js';
import type { StageQuestion } from './stage-context.js';

export interface StageQuestionDeps {
  append(events: NewRunEvent[]): Promise<RunEvent[]>;
  control: RunControl;
  newId: () => string;
  whileBlocked<T>(work: () => Promise<T>): Promise<T>;
  /** The stage the question belongs to; undefined when no stage is running. */
  stageId: string | undefined;
}

/**
 * Asks `question` on the stage and resolves with the answer; `extra` joins the event's
 * payload (a tool approval names the tool).
 *
 * @example
 * const answer = await askStageQuestion({ kind: 'yes_no', prompt: 'Deploy now?' }, signal, deps); // → true
 */
export async function askStageQuestion(
  question: StageQuestion,
  signal: AbortSignal,
  deps: StageQuestionDeps,
  extra: Record<string, JsonValue> = {},
): Promise<JsonValue> {
  if (deps.stageId === undefined) throw new WeftError('INTERNAL', 'A question can only be asked while a stage runs.');
  const questionId = deps.newId();
  await deps.append([
    {
      type: RUN_EVENT.questionAsked,
      stageId: deps.stageId,
      payload: {
        ...extra,
        questionId,
        kind: question.kind,
        prompt: question.prompt,
        ...(question.options === undefined ? {} : { options: question.options }),
        ...(question.schema === undefined ? {} : { schema: question.schema }),
        ...(question.alternatives === undefined ? {} : { alternatives: question.alternatives }),
      },
    },
  ]);
  return deps.whileBlocked(() => deps.control.answer(questionId, signal));
}
