import { describe, expect, it } from 'vitest';
import { eventLine } from './event-lines.js';
import type { RunEvent } from '../../runs/model/run-event.js';

const event = (type: string, payload: RunEvent['payload'], stageId = 'write@1'): RunEvent => ({
  runId: 'r1',
  seq: 5,
  at: 0,
  type,
  stageId,
  payload,
});

describe('eventLine: spend', () => {
  it("shows a stage's cost beside its tokens, saying which part is an estimate", () => {
    const finished = (usage: Record<string, number>) =>
      eventLine(event('stage-finished', { status: 'succeeded', durationMs: 2000, output: null, usage }));
    expect(finished({ inputTokens: 120, outputTokens: 20, totalTokens: 140, estimatedCostUsd: 0.0123 })).toBe(
      '✓ write@1 succeeded in 2s · 120 in / 20 out tokens · $0.0123 estimated',
    );
    expect(finished({ inputTokens: 120, outputTokens: 20, totalTokens: 140, reportedCostUsd: 1.5, estimatedCostUsd: 0.25 })).toBe(
      '✓ write@1 succeeded in 2s · 120 in / 20 out tokens · $1.75 ($1.50 reported + $0.2500 estimated)',
    );
    expect(finished({ inputTokens: 120, outputTokens: 20, totalTokens: 140, unpricedTurns: 2 })).toBe(
      '✓ write@1 succeeded in 2s · 120 in / 20 out tokens · cost unknown (2 turns unpriced)',
    );
  });

  it('tells of budget warnings, stops and raises', () => {
    const measure = { dimension: 'cost', spent: 0.9, limit: 1, fraction: 0.9, limits: { maxCostUsd: 1 } };
    expect(eventLine(event('budget-warning', measure))).toBe('  ⚠ budget: $0.9000 of $1.00 (cost) spent (90 %)');
    expect(eventLine(event('budget-exceeded', { ...measure, spent: 1.35, fraction: 1.35, action: 'pause' }))).toBe(
      '  ⚠ budget exceeded: $1.35 of $1.00 (cost) — the run waits for a raise or a cancel',
    );
    expect(
      eventLine(event('budget-exceeded', { dimension: 'tokens', spent: 2100, limit: 2000, fraction: 1.05, limits: {}, action: 'fail' })),
    ).toBe('  ⚠ budget exceeded: 2100 tokens of 2000 tokens (tokens) — the stage fails');
    expect(eventLine(event('budget-raised', { limits: { maxCostUsd: 2, maxDurationMs: 60_000 }, questionId: 'q' }))).toBe(
      '  budget raised to $2.00, 1m',
    );
    expect(eventLine(event('budget-warning', { ...measure, stage: 'write' }))).toBe(
      "  ⚠ stage 'write' budget: $0.9000 of $1.00 (cost) spent (90 %)",
    );
    expect(eventLine(event('budget-raised', { limits: { maxTokens: 400 }, questionId: 'q', stage: 'write' }))).toBe(
      "  stage 'write' budget raised to 400 tokens",
    );
  });
});
