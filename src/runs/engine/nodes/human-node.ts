/**
 * `human` stages: ask a question and wait for the answer. The run is `blocked` while the
 * question is open; a resumed stage re-attaches to the question it had already asked.
 */
import { RUN_EVENT } from '../../model/event-types.js';
import { renderTemplate, type HumanNode } from '../../workflow/index.js';
import type { NodeExecutor } from '../stage-context.js';

export const executeHumanNode: NodeExecutor<HumanNode> = async (stage) => {
  const { node, context } = stage;
  if (stage.resume.answer !== undefined) return { status: 'succeeded', output: stage.resume.answer, answer: stage.resume.answer };
  let questionId = stage.resume.questionId;
  if (questionId === undefined) {
    questionId = stage.services.newId();
    await stage.emit([
      {
        type: RUN_EVENT.questionAsked,
        payload: {
          questionId,
          kind: node.type,
          prompt: renderTemplate(node.question, context),
          ...(node.options ? { options: node.options } : {}),
        },
      },
    ]);
  }
  const id = questionId;
  const answer = await stage.whileBlocked(() => stage.control.answer(id, stage.signal));
  return { status: 'succeeded', output: answer, answer };
};
