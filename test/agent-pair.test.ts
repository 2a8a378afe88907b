/**
 * Pairing with a real agent stage (the engine, the agent runner and the fake model
 * server): a message sent in a pair session while a tool call holds the stage reaches
 * the model on its next turn, the transcript shows it, and the session ends with the
 * stage.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FINAL_ANSWER, startHeldRun, type HeldRun } from './fixtures/model-server/pair-kit.js';

let held: HeldRun | undefined;

afterEach(async () => {
  await held?.close();
  held = undefined;
});

describe('pairing with a running agent stage', () => {
  it('delivers a pair message sent during a long tool call on the next turn, and ends the session with the stage', async () => {
    held = await startHeldRun();
    const { runId, kit } = held;
    const pairing = kit.service.pairing;

    const status = await pairing.status(runId);
    expect(status.stages).toEqual([{ stageId: 'work@1', node: 'work', kind: 'agent', turns: 1, startedAt: expect.any(Number) }]);
    expect(status.session).toBeNull();

    const { session } = await pairing.start(runId, { by: 'test' });
    expect(session.stageId).toBe('work@1');
    const sent = await pairing.message(runId, 'Mention the new retry flag.', session.sessionId);
    expect(sent.session?.sessionId).toBe(session.sessionId);
    held.release();

    const run = await held.finished();
    expect(run.status).toBe('succeeded');
    expect(run.pairSession).toBeUndefined();
    expect(held.server.requests).toHaveLength(2);
    expect(held.secondTurnUserTexts()).toEqual(['Write the release notes.', 'Mention the new retry flag.']);

    const { entries } = await pairing.transcript(runId, { stageId: 'work@1' });
    const shown = entries.filter((entry) => entry.stageId === 'work@1').map((entry) => entry.text);
    expect(shown).toEqual([
      'stage work@1 started (agent)',
      'agent on anthropic:test-model with 1 tools (max 20 turns)',
      'turn 1: (no text) → calls wait_for_release',
      'call wait_for_release {}',
      `pair session ${session.sessionId} started by test on work@1`,
      'message to work@1: Mention the new retry flag.',
      expect.stringMatching(/^result of wait_for_release \([\d.]+m?s\): released$/),
      `agent read message #${sent.seq} on turn 2: Mention the new retry flag.`,
      `turn 2: ${FINAL_ANSWER}`,
      `pair session ${session.sessionId} ended: the stage finished`,
      'stage work@1 succeeded',
    ]);

    expect(await pairing.status(runId)).toMatchObject({ stages: [], session: null });
    expect(await pairing.end(runId, session.sessionId)).toMatchObject({ reason: 'stage-finished', alreadyEnded: true });
  });

  it('refuses a second session while one is open, and a message to a session that was ended', async () => {
    held = await startHeldRun();
    const { runId, kit } = held;
    const pairing = kit.service.pairing;
    const first = await pairing.start(runId, { stageId: 'work@1', by: 'ana' });
    await expect(pairing.start(runId, { by: 'ben' })).rejects.toMatchObject({ code: 'PAIR_SESSION_OPEN' });
    await pairing.end(runId, first.session.sessionId);
    await expect(pairing.message(runId, 'hello?', first.session.sessionId)).rejects.toMatchObject({ code: 'NO_PAIR_SESSION' });
    const second = await pairing.start(runId, { by: 'ben' });
    expect(second.session.by).toBe('ben');
    held.release();
    await held.finished();
  });
});
