import { describe, expect, it } from 'vitest';
import type { RunState } from '../../model/run-record.js';
import { onlyCountAndTimeChanged, RunStateCache } from './state-cache.js';

const state: RunState = {
  status: 'running',
  archived: false,
  attempt: 1,
  updatedAt: 10,
  counts: { events: 4, stages: 1, toolCalls: 0, questionsPending: 1 },
  pendingQuestionIds: ['q1'],
};

describe('onlyCountAndTimeChanged', () => {
  it('is true when the event count, the time and copies of the same pending ids are all that differ', () => {
    expect(
      onlyCountAndTimeChanged(state, { ...state, updatedAt: 11, counts: { ...state.counts, events: 5 }, pendingQuestionIds: ['q1'] }),
    ).toBe(true);
  });

  it('is false for any other change, a field added or removed included', () => {
    expect(onlyCountAndTimeChanged(state, { ...state, counts: { ...state.counts, toolCalls: 1 } })).toBe(false);
    expect(onlyCountAndTimeChanged(state, { ...state, pendingQuestionIds: [] })).toBe(false);
    expect(onlyCountAndTimeChanged(state, { ...state, pendingQuestionIds: ['q2'] })).toBe(false);
    expect(onlyCountAndTimeChanged(state, { ...state, status: 'paused' })).toBe(false);
    expect(onlyCountAndTimeChanged(state, { ...state, currentStageId: 'a@1' })).toBe(false);
    const { pendingQuestionIds: _ids, ...withoutIds } = state;
    expect(onlyCountAndTimeChanged(state, withoutIds as RunState)).toBe(false);
  });

  it('reads a rebuilt nested field as changed even when its content is equal (one row write too many, never one too few)', () => {
    const session = { sessionId: '01JBQ0000000000000000000AA', stageId: 'a@1', by: 'me', startedAt: 5, startedSeq: 3 };
    const paired: RunState = { ...state, pairSession: session };
    expect(onlyCountAndTimeChanged(paired, { ...paired, pairSession: { ...session } })).toBe(false);
    expect(onlyCountAndTimeChanged(paired, { ...paired, updatedAt: 12 })).toBe(true);
  });
});

describe('RunStateCache', () => {
  it('forgets everything when the data version moves (another connection committed), not when it stays', () => {
    const cache = new RunStateCache();
    cache.checkVersion(1);
    cache.set('run', state);
    cache.checkVersion(1);
    expect(cache.get('run')).toBe(state);
    cache.checkVersion(2);
    expect(cache.get('run')).toBeUndefined();
  });

  it('keeps the most recently written runs up to its capacity', () => {
    const cache = new RunStateCache(2);
    cache.set('a', state);
    cache.set('b', state);
    cache.set('a', state);
    cache.set('c', state);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([state, undefined, state]);
  });
});
