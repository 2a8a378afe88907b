/**
 * `wait` stages: sleep for a duration, or wait until someone sends the named signal to
 * the run (`run-signal-sent`, `weft signal`; one sent before the stage began counts), optionally giving up after a timeout.
 */
import type { WaitNode } from '../../workflow/index.js';
import type { NodeExecutor } from '../stage-context.js';
import { abortableDelay } from './abortable-delay.js';

export const executeWaitNode: NodeExecutor<WaitNode> = async (stage) => {
  const { node } = stage;
  if (node.durationMs !== undefined) {
    const finished = await abortableDelay(node.durationMs, stage.signal);
    return finished ? { status: 'succeeded', output: null } : { status: 'cancelled', error: 'Cancelled' };
  }
  const name = node.event ?? '';
  const timeout = new AbortController();
  const timer = node.timeoutMs === undefined ? undefined : setTimeout(() => timeout.abort(), node.timeoutMs);
  try {
    const payload = await stage.control.signal(name, AbortSignal.any([stage.signal, timeout.signal]));
    return { status: 'succeeded', output: payload };
  } catch {
    if (stage.signal.aborted) return { status: 'cancelled', error: 'Cancelled' };
    return { status: 'failed', error: `No '${name}' signal arrived within ${Math.round((node.timeoutMs ?? 0) / 1000)}s` };
  } finally {
    clearTimeout(timer);
  }
};
