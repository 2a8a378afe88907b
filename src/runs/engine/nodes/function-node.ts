/**
 * `function` stages: a workflow module's own code, run inside the runner process. Its
 * return value becomes the stage output (recorded in the run's events like any stage's, so
 * a resumed run does not call it again); a throw fails the stage; the signal aborts on
 * cancellation and at the timeout.
 */
import { formatDuration } from '../../../core/duration.js';
import { errorMessage } from '../../../core/errors.js';
import type { JsonValue } from '../../model/json.js';
import type { FunctionNode } from '../../workflow/index.js';
import type { NodeExecutor } from '../stage-context.js';

const DEFAULT_TIMEOUT_MS = 60 * 60 * 1000;

/** The value as JSON (what events hold): `undefined` is null, anything JSON cannot hold is an error. */
function asJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

export const executeFunctionNode: NodeExecutor<FunctionNode> = async (stage) => {
  const { node, context, run } = stage;
  const timeoutMs = node.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([stage.signal, timeout]);
  const stopped = new Promise<'stopped'>((resolve) => signal.addEventListener('abort', () => resolve('stopped'), { once: true }));
  try {
    // A function that ignores its signal cannot hold the stage past a cancel or the timeout.
    const value = await Promise.race([
      Promise.resolve(
        node.run({
          inputs: context.inputs,
          stages: context.stages,
          run: { id: run.id, ...(run.goal ? { goal: run.goal } : {}) },
          attempt: stage.attempt,
          signal,
        }),
      ),
      stopped,
    ]);
    if (stage.signal.aborted) return { status: 'cancelled', error: 'Cancelled' };
    if (timeout.aborted) return { status: 'failed', error: `Function timed out after ${formatDuration(timeoutMs)}` };
    return { status: 'succeeded', output: asJson(value) };
  } catch (error) {
    if (stage.signal.aborted) return { status: 'cancelled', error: 'Cancelled' };
    return { status: 'failed', error: errorMessage(error) };
  }
};
