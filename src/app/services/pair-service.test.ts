// Pairing over an in-memory store, with the engine's and the agent's events written by hand.
import { beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import type { NewRunEvent } from '../../runs/model/run-event.js';
import { PairService } from './pair-service.js';
import { RunService } from './run-service.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';

let store: MemoryRunStore;
let pairing: PairService;
let runId: string;
let ids: string[];

const SESSION_IDS = ['01JD3Q7Y8ZK3V4W5X6Y7Z8A9S1', '01JD3Q7Y8ZK3V4W5X6Y7Z8A9S2', '01JD3Q7Y8ZK3V4W5X6Y7Z8A9S3'];

beforeEach(async () => {
  store = new MemoryRunStore();
  ids = [...SESSION_IDS];
  const runs = new RunService({ store, clock: Date.now, wakeRunners: () => {} });
  // Wired as RunService.pairing is, with session ids the test can predict.
  pairing = new PairService({ store, getRun: (id) => runs.get(id), newId: () => ids.shift()! });
  const run = await store.createRun({ workflow: 'w', workflowPath: '/w/w.toml', cwd: '/w', initialStatus: 'queued' });
  runId = run.id;
  await append({ type: 'run-status-changed', payload: { to: 'starting' } }, { type: 'run-status-changed', payload: { to: 'running' } });
});

function append(...events: NewRunEvent[]) {
  return store.appendEvents(runId, events);
}

const stageStarted = (stageId: string, kind: string): NewRunEvent => ({
  type: 'stage-started',
  stageId,
  payload: { node: stageId.split('@')[0]!, kind, attempt: 1, from: null, consumed: 1 },
});
const stageFinished = (stageId: string, status = 'succeeded'): NewRunEvent => ({
  type: 'stage-finished',
  stageId,
  payload: { node: stageId.split('@')[0]!, status },
});
const turn = (stageId: string, n: number, text: string): NewRunEvent => ({
  type: 'model-turn-finished',
  stageId,
  payload: { turn: n, text, toolCalls: [] },
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (WeftError.is(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('pair status and start', () => {
  it('refuses to start when no agent stage runs, saying what runs instead', async () => {
    await append(stageStarted('build@1', 'command'));
    expect(await pairing.status(runId)).toMatchObject({ stages: [], session: null });
    expect(await refusal(pairing.start(runId, { by: 'test' }))).toEqual({
      code: 'NO_ACTIVE_AGENT_STAGE',
      message: `Run ${runId} has no agent stage running (it is running; running now: build@1 (command)). Pair while an agent stage runs; the pair status lists them.`,
    });
    expect(await refusal(pairing.start(runId, { stageId: 'build@1', by: 'test' }))).toMatchObject({
      code: 'NO_ACTIVE_AGENT_STAGE',
      message: expect.stringContaining('is a command stage; only agent stages read messages'),
    });
  });

  it('refuses an agent stage on a CLI that cannot take messages while it works, and pairs with one on Claude Code', async () => {
    const cliStarted = (stageId: string, cli: string, provider: string): NewRunEvent => ({
      type: 'agent-started',
      stageId,
      payload: { kind: 'agent', provider, model: 'm', tools: [], droppedTools: [], maxTurns: 5, maxTokens: null, cli, session: 's' },
    });
    await append(stageStarted('review@1', 'agent'), cliStarted('review@1', 'gemini', 'Gemini CLI'));
    expect(await refusal(pairing.start(runId, { by: 'test' }))).toEqual({
      code: 'NO_ACTIVE_AGENT_STAGE',
      message: `Stage review@1 of run ${runId} runs on Gemini CLI, which cannot take a message while it works; weft pair works with agent stages on weft's own loop or on Claude Code.`,
    });
    await append(stageFinished('review@1'), stageStarted('code@1', 'agent'), cliStarted('code@1', 'claude', 'Claude Code'));
    expect((await pairing.start(runId, { by: 'test' })).session.stageId).toBe('code@1');
  });

  it('lists the running agent stages with their turns and opens a session on the only one', async () => {
    await append(stageStarted('plan@1', 'agent'), turn('plan@1', 1, 'thinking'), turn('plan@1', 2, 'still thinking'));
    const status = await pairing.status(runId);
    expect(status.stages).toEqual([{ stageId: 'plan@1', node: 'plan', kind: 'agent', turns: 2, startedAt: expect.any(Number) }]);

    const { session, run } = await pairing.start(runId, { by: 'cli (ana)' });
    expect(session).toEqual({
      sessionId: SESSION_IDS[0],
      stageId: 'plan@1',
      by: 'cli (ana)',
      startedAt: expect.any(Number),
      startedSeq: 8,
    });
    expect(run.pairSession).toEqual(session);
    expect((await pairing.status(runId)).session).toEqual(session);
    expect(await refusal(pairing.start(runId, { by: 'someone else' }))).toMatchObject({
      code: 'PAIR_SESSION_OPEN',
      message: expect.stringContaining(`already has pair session ${SESSION_IDS[0]} on stage plan@1 (started by cli (ana))`),
    });
  });

  it('names the stage problem: unknown, finished, a prompt stage, several to choose from, a malformed id', async () => {
    await append(
      stageStarted('a@1', 'agent'),
      stageFinished('a@1'),
      stageStarted('b@1', 'agent'),
      stageStarted('c@1', 'agent'),
      stageStarted('p@1', 'prompt'),
    );
    const start = (stageId?: string) => refusal(pairing.start(runId, { ...(stageId === undefined ? {} : { stageId }), by: 'test' }));
    expect(await start('zzz@1')).toEqual({
      code: 'STAGE_NOT_FOUND',
      message: `Run ${runId} has no stage zzz@1. Agent stages running: b@1, c@1.`,
    });
    expect(await start('a@1')).toEqual({
      code: 'NO_ACTIVE_AGENT_STAGE',
      message: `Stage a@1 of run ${runId} has finished (succeeded). Agent stages running: b@1, c@1.`,
    });
    expect(await start('p@1')).toMatchObject({
      code: 'NO_ACTIVE_AGENT_STAGE',
      message: expect.stringContaining('is a prompt stage; a prompt stage makes one model call and reads no messages'),
    });
    expect(await start()).toEqual({
      code: 'RUN_INVALID_PARAMS',
      message: `Run ${runId} has 2 agent stages running (b@1, c@1); give the stage id of the one to pair with.`,
    });
    expect(await start('not a stage')).toMatchObject({ code: 'RUN_INVALID_PARAMS' });
    expect((await pairing.start(runId, { stageId: 'c@1', by: 'test' })).session.stageId).toBe('c@1');
  });
});

describe('pair messages', () => {
  it('addresses messages to the session stage, tagged with the session; without a session they go to the whole run', async () => {
    await append(stageStarted('plan@1', 'agent'));
    const broadcast = await pairing.message(runId, 'for everyone');
    expect(broadcast.session).toBeNull();
    const { session } = await pairing.start(runId, { by: 'test' });
    const tagged = await pairing.message(runId, 'for the planner', session.sessionId);
    const untagged = await pairing.message(runId, 'also for the planner');
    const events = await store.listEvents(runId, { types: ['message-sent'] });
    expect(events.map((event) => [event.seq, event.stageId, event.payload])).toEqual([
      [broadcast.seq, undefined, { text: 'for everyone' }],
      [tagged.seq, 'plan@1', { text: 'for the planner', sessionId: session.sessionId }],
      [untagged.seq, 'plan@1', { text: 'also for the planner', sessionId: session.sessionId }],
    ]);
    expect(await refusal(pairing.message(runId, '   '))).toMatchObject({ code: 'RUN_INVALID_PARAMS' });
    expect(await refusal(pairing.message(runId, 'hi', 'not-a-ulid'))).toMatchObject({ code: 'INVALID_ID' });
    expect(await refusal(pairing.message(runId, 'hi', SESSION_IDS[2]))).toEqual({
      code: 'NO_PAIR_SESSION',
      message: `Run ${runId} has no pair session ${SESSION_IDS[2]}. The open session is ${session.sessionId} on plan@1.`,
    });
  });
});

describe('ending a session', () => {
  it('ends on request, and ending again by id reports it instead of failing', async () => {
    await append(stageStarted('plan@1', 'agent'));
    const { session } = await pairing.start(runId, { by: 'test' });
    const ended = await pairing.end(runId);
    expect(ended).toMatchObject({ session, reason: 'ended', alreadyEnded: false });
    expect(ended.run.pairSession).toBeUndefined();
    expect(await pairing.end(runId, session.sessionId)).toMatchObject({ session, reason: 'ended', alreadyEnded: true });
    expect(await refusal(pairing.end(runId))).toEqual({ code: 'NO_PAIR_SESSION', message: `Run ${runId} has no open pair session.` });
    expect((await pairing.start(runId, { by: 'test' })).session.sessionId).toBe(SESSION_IDS[1]);
  });

  it('ends by itself when its stage finishes: status shows none, messages to it are refused, end reports why', async () => {
    await append(stageStarted('plan@1', 'agent'));
    const { session } = await pairing.start(runId, { by: 'test' });
    await append(stageFinished('plan@1'), stageStarted('next@1', 'command'));
    expect(await pairing.status(runId)).toMatchObject({ stages: [], session: null });
    expect(await refusal(pairing.message(runId, 'too late', session.sessionId))).toMatchObject({
      code: 'NO_PAIR_SESSION',
      message: expect.stringContaining(`Pair session ${session.sessionId} of run ${runId} has ended (its stage finished).`),
    });
    expect(await pairing.end(runId, session.sessionId)).toMatchObject({ reason: 'stage-finished', alreadyEnded: true });
  });

  it('never reports a session that started just after its stage finished, and closes it in the log', async () => {
    await append(stageStarted('plan@1', 'agent'), stageFinished('plan@1'));
    // What a start that raced with the stage's end leaves behind.
    await append({ type: 'pair-started', stageId: 'plan@1', payload: { sessionId: SESSION_IDS[2]!, stageId: 'plan@1', by: 'racer' } });
    expect((await store.getRun(runId))?.pairSession?.sessionId).toBe(SESSION_IDS[2]);
    const status = await pairing.status(runId);
    expect(status.session).toBeNull();
    expect(status.run.pairSession).toBeUndefined();
    expect((await store.listEvents(runId, { types: ['pair-ended'] })).map((event) => event.payload)).toEqual([
      { sessionId: SESSION_IDS[2], reason: 'stage-finished' },
    ]);
  });
});

describe('pair transcript', () => {
  it('reads readable entries from a seq on, with the seq to read from next', async () => {
    await append(
      stageStarted('plan@1', 'agent'),
      {
        type: 'model-turn-finished',
        stageId: 'plan@1',
        payload: { turn: 1, text: 'Let me look.', toolCalls: [{ callId: 'c1', tool: 'shell', arguments: { command: 'ls' } }] },
      },
      { type: 'tool-call-started', stageId: 'plan@1', payload: { tool: 'shell', arguments: { command: 'ls' }, callId: 'c1', turn: 1 } },
      {
        type: 'tool-call-finished',
        stageId: 'plan@1',
        payload: { tool: 'shell', callId: 'c1', turn: 1, isError: false, durationMs: 1500, text: `a.txt\n${'x'.repeat(400)}` },
      },
      { type: 'artifact-saved', payload: {} },
    );
    const { session } = await pairing.start(runId, { by: 'test' });
    const sent = await pairing.message(runId, 'Look at b.txt too', session.sessionId);
    await append(
      { type: 'message-delivered', stageId: 'plan@1', payload: { turn: 2, messageSeq: sent.seq, text: 'Look at b.txt too' } },
      turn('plan@1', 2, 'Reading b.txt now.'),
    );

    const all = await pairing.transcript(runId);
    expect(all.entries.map((entry) => [entry.seq, entry.text])).toEqual([
      [2, 'run queued'],
      [3, 'run starting'],
      [4, 'run running'],
      [5, 'stage plan@1 started (agent)'],
      [6, 'turn 1: Let me look. → calls shell'],
      [7, 'call shell {"command":"ls"}'],
      [8, `result of shell (1.5s): a.txt ${'x'.repeat(293)}… [107 more characters]`],
      [10, `pair session ${session.sessionId} started by test on plan@1`],
      [11, 'message to plan@1: Look at b.txt too'],
      [12, 'agent read message #11 on turn 2: Look at b.txt too'],
      [13, 'turn 2: Reading b.txt now.'],
    ]);
    expect(all.nextSeq).toBe(14);
    expect(all.entries[8]).toMatchObject({ type: 'message-sent', stageId: 'plan@1', sessionId: session.sessionId });

    const page = await pairing.transcript(runId, { sinceSeq: 5, limit: 3 });
    expect([page.entries.map((entry) => entry.seq), page.nextSeq]).toEqual([[5, 6, 7], 8]);
    const rest = await pairing.transcript(runId, { sinceSeq: page.nextSeq });
    expect([rest.entries.map((entry) => entry.seq), rest.nextSeq]).toEqual([[8, 10, 11, 12, 13], 14]);
    const none = await pairing.transcript(runId, { sinceSeq: 14 });
    expect([none.entries, none.nextSeq, none.session?.sessionId]).toEqual([[], 14, session.sessionId]);
    expect(await refusal(pairing.transcript(runId, { sinceSeq: 0 }))).toMatchObject({ code: 'RUN_INVALID_PARAMS' });
  });

  it("shows one stage's entries plus the run's own when asked", async () => {
    await append(stageStarted('a@1', 'agent'), turn('a@1', 1, 'from a'), stageStarted('b@1', 'agent'), turn('b@1', 1, 'from b'), {
      type: 'message-sent',
      payload: { text: 'to all' },
    });
    const read = await pairing.transcript(runId, { sinceSeq: 5, stageId: 'b@1' });
    expect(read.entries.map((entry) => entry.text)).toEqual(['stage b@1 started (agent)', 'turn 1: from b', 'message: to all']);
  });
});
