/**
 * The run lifecycle of spec §4.2 as data: the status union, the terminal set and the one
 * transition table every status change is checked against.
 */
import { WeftError } from '../../core/errors.js';

/** Where a run is in its life: `succeeded`, `failed` and `cancelled` are final. */
export type RunStatus =
  'submitted' | 'pending' | 'queued' | 'starting' | 'running' | 'blocked' | 'paused' | 'succeeded' | 'failed' | 'cancelled';

export type TerminalRunStatus = 'succeeded' | 'failed' | 'cancelled';

export const RUN_STATUSES: readonly RunStatus[] = [
  'submitted',
  'pending',
  'queued',
  'starting',
  'running',
  'blocked',
  'paused',
  'succeeded',
  'failed',
  'cancelled',
];

/**
 * Allowed next states. `pending` has no `failed`: denying approval ends the run as
 * `cancelled` with the denial as its reason. `failed` and `cancelled` go back to `queued`
 * for a retry (a new attempt); `succeeded` is final.
 */
export const RUN_TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  submitted: ['pending', 'queued', 'cancelled'],
  pending: ['queued', 'cancelled'],
  queued: ['starting', 'cancelled'],
  starting: ['running', 'failed', 'cancelled'],
  running: ['blocked', 'paused', 'succeeded', 'failed', 'cancelled'],
  blocked: ['running', 'paused', 'succeeded', 'failed', 'cancelled'],
  paused: ['running', 'blocked', 'succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: ['queued'],
  cancelled: ['queued'],
};

export function isRunStatus(value: unknown): value is RunStatus {
  return typeof value === 'string' && (RUN_STATUSES as readonly string[]).includes(value);
}

/** @example isTerminal('failed') // → true */
export function isTerminal(status: RunStatus): status is TerminalRunStatus {
  switch (status) {
    case 'succeeded':
    case 'failed':
    case 'cancelled':
      return true;
    case 'submitted':
    case 'pending':
    case 'queued':
    case 'starting':
    case 'running':
    case 'blocked':
    case 'paused':
      return false;
    default: {
      const unknown: never = status;
      throw new Error(`unknown run status ${String(unknown)}`);
    }
  }
}

export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return RUN_TRANSITIONS[from].includes(to);
}

/**
 * Throws `RUN_INVALID_TRANSITION` naming the current state and what it may become.
 *
 * @example assertTransition('succeeded', 'running', id)
 * // → Run 01J… is succeeded and cannot become running; succeeded is final (no state follows it).
 */
export function assertTransition(from: RunStatus, to: RunStatus, runId?: string): void {
  if (canTransition(from, to)) return;
  const subject = runId ? `Run ${runId}` : 'The run';
  const allowed = RUN_TRANSITIONS[from];
  const next = allowed.length === 0 ? `${from} is final (no state follows it).` : `from ${from} it can become: ${allowed.join(', ')}.`;
  throw new WeftError('RUN_INVALID_TRANSITION', `${subject} is ${from} and cannot become ${to}; ${next}`, {
    data: { runId, from, to, allowed: [...allowed] },
  });
}
