// The `weft pair` conversation in-process: streams stand in for the terminal, an in-memory store for the run.
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import type { NewRunEvent } from '../../runs/model/run-event.js';
import type { PairService } from '../../app/services/pair-service.js';
import { RunService } from '../../app/services/run-service.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';
import { runPairLoop, type PairLoopOptions } from './pair-loop.js';

let store: MemoryRunStore;
let service: RunService;
let pairing: PairService;
let runId: string;

beforeEach(async () => {
  store = new MemoryRunStore();
  service = new RunService({ store, clock: Date.now, wakeRunners: () => {} });
  pairing = service.pairing;
  runId = (await store.createRun({ workflow: 'w', workflowPath: '/w/w.toml', cwd: '/w', initialStatus: 'queued' })).id;
  await append(
    { type: 'run-status-changed', payload: { to: 'starting' } },
    { type: 'run-status-changed', payload: { to: 'running' } },
    { type: 'stage-started', stageId: 'plan@1', payload: { node: 'plan', kind: 'agent', attempt: 1, from: null, consumed: 1 } },
    { type: 'model-turn-finished', stageId: 'plan@1', payload: { turn: 1, text: 'Looking around.', toolCalls: [] } },
  );
});

function append(...events: NewRunEvent[]) {
  return store.appendEvents(runId, events);
}

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  return () => text;
}

/** Starts the loop on a fake terminal; `sent` resolves with each message's text as it is recorded. */
function startLoop(overrides: Partial<PairLoopOptions> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const printed = collect(output);
  const messages: string[] = [];
  let onSent: (text: string) => void = () => {};
  const observed: PairLoopOptions['pairing'] = {
    start: (...args) => pairing.start(...args),
    end: (...args) => pairing.end(...args),
    transcript: (...args) => pairing.transcript(...args),
    message: async (...args) => {
      const sent = await pairing.message(...args);
      messages.push(args[1]);
      onSent(args[1]);
      return sent;
    },
  };
  const done = runPairLoop({
    pairing: observed,
    runId,
    by: 'test',
    input,
    output,
    notes: output,
    interactive: true,
    json: false,
    changes: () => service.changes(),
    pollMs: 5,
    ...overrides,
  });
  return { input, printed, done, messages, nextSent: () => new Promise<string>((resolve) => (onSent = resolve)) };
}

describe('weft pair on a terminal', () => {
  it('prints the transcript, sends typed lines, and ends by itself when the stage finishes', async () => {
    const loop = startLoop();
    const sent = loop.nextSent();
    loop.input.write('Please add tests.\n');
    expect(await sent).toBe('Please add tests.');
    await append({ type: 'stage-finished', stageId: 'plan@1', payload: { node: 'plan', status: 'succeeded' } });
    const result = await loop.done;
    expect(result).toMatchObject({ stageId: 'plan@1', reason: 'stage-finished', sent: 1 });
    const printed = loop.printed();
    expect(printed).toContain(
      `Pairing with plan@1 of run ${runId} (session ${result.sessionId}). Type a message and press Enter; /end or Ctrl-D ends the session.`,
    );
    expect(printed).toContain('you> ');
    expect(printed).toContain('◆ turn 1: Looking around.');
    expect(printed).toContain('✉ message to plan@1: Please add tests.');
    expect(printed).toContain('· stage plan@1 succeeded');
    expect(printed).toContain('Pair session ended: plan@1 finished.');
    expect((await pairing.status(runId)).session).toBeNull();
  });

  it('ends the session on /end and on Ctrl-D (end of input)', async () => {
    const typed = startLoop();
    typed.input.write('/end\n');
    expect(await typed.done).toMatchObject({ reason: 'ended', sent: 0 });
    expect(typed.printed()).toContain('Pair session ended.');

    const closed = startLoop();
    closed.input.end();
    expect(await closed.done).toMatchObject({ reason: 'ended' });
    const ended = await store.listEvents(runId, { types: ['pair-ended'] });
    expect(ended.map((event) => event.payload.reason)).toEqual(['ended', 'ended']);
  });

  it('refuses to start without an agent stage, before reading any input', async () => {
    await append({ type: 'stage-finished', stageId: 'plan@1', payload: { node: 'plan', status: 'succeeded' } });
    const loop = startLoop({ interactive: false });
    await expect(loop.done).rejects.toMatchObject({ code: 'NO_ACTIVE_AGENT_STAGE' });
    expect(loop.messages).toEqual([]);
  });

  it("shows the agent's answer as it streams; a line landing mid-answer cuts it, and its turn line shows it whole", async () => {
    const terminal = startLoop();
    // Once a typed line is sent the session is open: what the agent does next streams in.
    const sent = terminal.nextSent();
    terminal.input.write('Go on.\n');
    await sent;
    await append(
      { type: 'model-text-streamed', stageId: 'plan@1', payload: { turn: 2, text: 'Adding ' } },
      { type: 'model-text-streamed', stageId: 'plan@1', payload: { turn: 2, text: 'tests.' } },
      { type: 'model-turn-finished', stageId: 'plan@1', payload: { turn: 2, text: 'Adding tests.', toolCalls: [] } },
      { type: 'model-text-streamed', stageId: 'plan@1', payload: { turn: 3, text: 'Half' } },
      { type: 'message-sent', stageId: 'plan@1', payload: { text: 'Faster please.' } },
      { type: 'model-text-streamed', stageId: 'plan@1', payload: { turn: 3, text: 'way' } },
      { type: 'model-turn-finished', stageId: 'plan@1', payload: { turn: 3, text: 'Halfway', toolCalls: [] } },
      { type: 'stage-finished', stageId: 'plan@1', payload: { node: 'plan', status: 'succeeded' } },
    );
    await terminal.done;
    // Each line as the terminal leaves it: what follows the last "clear the line".
    const lines = terminal
      .printed()
      .split('\n')
      .map((line) => line.split('\r\u001b[2K').at(-1));
    expect(lines).toContain('◆ Adding tests.');
    expect(terminal.printed()).not.toContain('turn 2:');
    expect(lines).toEqual(expect.arrayContaining(['◆ Half', '✉ message to plan@1: Faster please.', '◆ turn 3: Halfway']));
    expect(terminal.printed()).not.toContain('way\n✉');
  });
});
