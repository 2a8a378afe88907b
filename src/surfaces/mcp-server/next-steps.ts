/**
 * The next steps a tool result names for a run, so the model sees in the structured
 * result what a person would read in the summary: who must act and with which call.
 */
import { RUN_EVENT } from '../../runs/model/event-types.js';
import type { QuestionRecord } from '../../runs/model/question.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { isTerminal } from '../../runs/model/run-status.js';

/** Why a run cannot go on without someone, or undefined when it can (or has ended). */
export function attentionOf(run: RunRecord): 'approval' | 'question' | 'start' | undefined {
  if (run.status === 'pending') return 'approval';
  if (run.status === 'blocked' && run.counts.questionsPending > 0) return 'question';
  if (run.status === 'submitted' || run.status === 'paused') return 'start';
  return undefined;
}

/** One step per thing the run waits for; `questions` are its pending questions (when read). */
export function runNextSteps(run: RunRecord, questions: readonly QuestionRecord[] = []): string[] {
  switch (attentionOf(run)) {
    case 'approval':
      return [`Approve run ${run.id} with weft_run_interact {"run_id":"${run.id}","action":"approve"} (or "deny" with a reason).`];
    case 'question': {
      const asked = questions.filter((question) => question.status === 'pending');
      if (asked.length === 0)
        return [
          `Read the questions of run ${run.id} with weft_run_interact action "get_questions", then answer them with action "answer".`,
        ];
      return asked.map(
        (question) =>
          `Answer question ${question.id} of run ${run.id} ("${question.prompt.slice(0, 80)}") with weft_run_interact {"run_id":"${run.id}","action":"answer","question_id":"${question.id}","answer":…}${question.options ? ` — one of ${question.options.map((option) => JSON.stringify(option)).join(', ')}` : ''}.`,
      );
    }
    case 'start':
      return [`Start run ${run.id} with weft_run_interact {"run_id":"${run.id}","action":"start"}.`];
    default:
      break;
  }
  if (run.status === 'failed')
    return [
      `See why run ${run.id} failed with weft_run_events {"run_id":"${run.id}","types":${JSON.stringify([RUN_EVENT.stageFinished, RUN_EVENT.runStatusChanged])}}; run it again from where it stopped with weft_run_interact action "retry".`,
    ];
  if (!isTerminal(run.status)) return [`Wait for run ${run.id} with weft_run_gather {"run_ids":["${run.id}"]}.`];
  return [];
}
