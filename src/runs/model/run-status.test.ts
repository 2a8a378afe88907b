// The lifecycle table and the messages of illegal transitions.
import { describe, expect, it } from 'vitest';
import type { WeftError } from '../../core/errors.js';
import { assertTransition, canTransition, isTerminal, RUN_STATUSES, RUN_TRANSITIONS, type RunStatus } from './run-status.js';

describe('run status', () => {
  it('allows exactly the transitions of the lifecycle', () => {
    const allowed = RUN_STATUSES.flatMap((from) => RUN_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`));
    expect(allowed).toEqual([
      'submitted→pending',
      'submitted→queued',
      'submitted→cancelled',
      'pending→queued',
      'pending→cancelled',
      'queued→starting',
      'queued→cancelled',
      'starting→running',
      'starting→failed',
      'starting→cancelled',
      'running→blocked',
      'running→paused',
      'running→succeeded',
      'running→failed',
      'running→cancelled',
      'blocked→running',
      'blocked→paused',
      'blocked→succeeded',
      'blocked→failed',
      'blocked→cancelled',
      'paused→running',
      'paused→blocked',
      'paused→succeeded',
      'paused→failed',
      'paused→cancelled',
      'failed→queued',
      'cancelled→queued',
    ]);
  });

  it('marks succeeded, failed and cancelled terminal', () => {
    expect(RUN_STATUSES.filter(isTerminal)).toEqual(['succeeded', 'failed', 'cancelled']);
  });

  it('names the current state and the allowed next states when a transition is illegal', () => {
    const attempt = (from: RunStatus, to: RunStatus) => {
      try {
        assertTransition(from, to, '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC');
      } catch (error) {
        return error as WeftError;
      }
      throw new Error(`${from}→${to} was allowed`);
    };
    const queued = attempt('queued', 'running');
    expect({ code: queued.code, message: queued.message, data: queued.data }).toEqual({
      code: 'RUN_INVALID_TRANSITION',
      message: 'Run 01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC is queued and cannot become running; from queued it can become: starting, cancelled.',
      data: { runId: '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC', from: 'queued', to: 'running', allowed: ['starting', 'cancelled'] },
    });
    expect(attempt('succeeded', 'queued').message).toBe(
      'Run 01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC is succeeded and cannot become queued; succeeded is final (no state follows it).',
    );
    expect(() => assertTransition('running', 'running')).toThrow('The run is running and cannot become running');
  });

  it('has an entry for every status', () => {
    expect(Object.keys(RUN_TRANSITIONS).sort()).toEqual([...RUN_STATUSES].sort());
  });
});
