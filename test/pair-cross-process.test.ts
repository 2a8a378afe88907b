/**
 * Pairing across processes: the run executes in this process (engine, agent runner, fake
 * model server) over a SQLite store, while `weft pair` (piped, not a terminal) and an MCP
 * client of `weft mcp start` pair with it from child processes that open the same store.
 */
import { spawn } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FINAL_ANSWER, startHeldRun, type HeldRun } from './fixtures/model-server/pair-kit.js';
import { runCli, WEFT_BIN } from './helpers/run-cli.js';
import { call, connectStdio } from './helpers/mcp-server-kit.js';

// Child processes on a possibly busy machine.
vi.setConfig({ testTimeout: 90_000 });

let held: HeldRun | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
  await held?.close();
  held = undefined;
});

async function startHeld(): Promise<HeldRun & { storageDir: string }> {
  held = await startHeldRun({ sqlite: true });
  return held as HeldRun & { storageDir: string };
}

describe('weft pair (piped input)', () => {
  it('sends each input line to the stage, prints the transcript, and ends the session at end of input', async () => {
    const { runId, storageDir, kit } = await startHeld();
    const cli = (args: string[], input?: string) =>
      runCli(['--storage-dir', storageDir, ...args], { cwd: kit.dir, ...(input === undefined ? {} : { input }) });

    const status = await cli(['pair', runId, '--status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      run: { id: runId, status: 'running' },
      stages: [{ stageId: 'work@1', kind: 'agent', turns: 1 }],
      session: null,
    });

    // An unknown or malformed stage is a usage error (exit 2) that names the running agent stage.
    const unknown = await cli(['pair', runId, '--stage', 'nope@1'], 'never sent\n');
    expect(unknown).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `weft: Run ${runId} has no stage nope@1. Agent stages running: work@1.\n`,
    });
    expect((await cli(['pair', runId, '--stage', 'bad stage'], '')).code).toBe(2);

    const paired = await cli(['pair', runId], 'Mention the new retry flag.\n\n');
    expect(paired.code, paired.stderr).toBe(0);
    const sessionId = /session (\w{26})/.exec(paired.stderr)?.[1];
    expect(paired.stderr).toBe(
      `Pairing with work@1 of run ${runId} (session ${sessionId}); each input line is sent as a message, end of input ends the session.\nPair session ended.\n`,
    );
    expect(paired.stdout.split('\n')).toEqual([
      '· run queued',
      '· run starting',
      '· run running',
      '· stage work@1 started (agent)',
      '· agent on anthropic:test-model with 1 tools (max 20 turns)',
      '◆ turn 1: (no text) → calls wait_for_release',
      '  ⚙ call wait_for_release {}',
      expect.stringMatching(new RegExp(`^● pair session ${sessionId} started by cli \\(.+\\) on work@1$`)),
      '✉ message to work@1: Mention the new retry flag.',
      `● pair session ${sessionId} ended`,
      '',
    ]);

    const again = await cli(['pair', runId, '--status', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ session: null });
    held!.release();
    expect(await held!.finished()).toMatchObject({ status: 'succeeded' });
    expect(held!.secondTurnUserTexts().at(-1)).toBe('Mention the new retry flag.');

    // After the stage there is nothing to pair with: refused (exit 1).
    const late = await cli(['pair', runId], '');
    expect(late).toMatchObject({ code: 1, stderr: `weft: Run ${runId} is succeeded; it has no agent stage left to pair with.\n` });
  });
});

describe('weft pair ending', () => {
  it('ends its session when terminated while its input is still open, and --end ends one left open', async () => {
    const { runId, storageDir, kit } = await startHeld();
    const child = spawn(process.execPath, [WEFT_BIN, '--storage-dir', storageDir, 'pair', runId], {
      cwd: kit.dir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('Pairing with work@1')) resolve();
      });
      child.once('exit', () => reject(new Error(`weft pair exited early: ${stderr}`)));
    });
    expect((await kit.service.pairing.status(runId)).session).toMatchObject({ stageId: 'work@1' });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain('Pair session ended.');
    expect((await kit.service.pairing.status(runId)).session).toBeNull();

    const left = await kit.service.pairing.start(runId, { by: 'a process that died' });
    const cli = (args: string[]) => runCli(['--storage-dir', storageDir, ...args], { cwd: kit.dir });
    expect(await cli(['pair', runId, '--end'])).toMatchObject({
      code: 0,
      stdout: `Ended pair session ${left.session.sessionId} on work@1.\n`,
    });
    expect(await cli(['pair', runId, '--end'])).toMatchObject({ code: 1, stderr: `weft: Run ${runId} has no open pair session.\n` });
  });
});

describe('weft_run_pair over MCP', () => {
  it('pairs through every action; the message reaches the model and the session ends with the stage', async () => {
    const { runId, storageDir, kit } = await startHeld();
    client = await connectStdio({ dir: kit.dir, storageDir, remove: () => {} });

    const status = await call(client, 'weft_run_pair', { run_id: runId, action: 'status' });
    expect(status).toMatchObject({
      isError: false,
      data: { action: 'status', session: null, stages: [{ stage_id: 'work@1', node: 'work', kind: 'agent', turns: 1 }] },
    });
    expect(status.text).toBe(`Run ${runId} (running): agent stage work@1 running (1 turns); no pair session is open.`);

    const started = await call(client, 'weft_run_pair', { run_id: runId, action: 'start' });
    expect(started).toMatchObject({
      isError: false,
      data: { session: { stage_id: 'work@1', by: 'mcp client' }, run: { id: runId, status: 'running' } },
    });
    const sessionId = (started.data.session as { session_id: string }).session_id;
    const got = await call(client, 'weft_run_get', { run_id: runId });
    expect(got.data.run).toMatchObject({
      pair_session: { session_id: sessionId, stage_id: 'work@1', by: 'mcp client', started_seq: expect.any(Number) },
    });
    const twice = await call(client, 'weft_run_pair', { run_id: runId, action: 'start', stage_id: 'work@1' });
    expect(twice).toMatchObject({ isError: true, code: 'PAIR_SESSION_OPEN' });

    const sent = await call(client, 'weft_run_pair', {
      run_id: runId,
      action: 'message',
      text: 'Mention the new retry flag.',
      session_id: sessionId,
    });
    expect(sent).toMatchObject({
      isError: false,
      data: { delivered: true, message_seq: expect.any(Number), session: { session_id: sessionId } },
    });
    const messageSeq = sent.data.message_seq as number;
    const read = await call(client, 'weft_run_pair', { run_id: runId, action: 'transcript', since_seq: messageSeq });
    expect(read.data.entries).toEqual([
      {
        seq: messageSeq,
        at: expect.any(String),
        type: 'message-sent',
        stage_id: 'work@1',
        session_id: sessionId,
        text: 'message to work@1: Mention the new retry flag.',
      },
    ]);
    expect(read.data.next_seq).toBe(messageSeq + 1);

    held!.release();
    expect(await held!.finished()).toMatchObject({ status: 'succeeded' });
    expect(held!.secondTurnUserTexts().at(-1)).toBe('Mention the new retry flag.');

    const after = await call(client, 'weft_run_pair', {
      run_id: runId,
      action: 'transcript',
      since_seq: read.data.next_seq,
      stage_id: 'work@1',
    });
    expect((after.data.entries as { text: string }[]).map((entry) => entry.text)).toEqual([
      expect.stringMatching(/^result of wait_for_release/),
      `agent read message #${messageSeq} on turn 2: Mention the new retry flag.`,
      `turn 2: ${FINAL_ANSWER}`,
      `pair session ${sessionId} ended: the stage finished`,
      'stage work@1 succeeded',
      'run succeeded',
    ]);
    expect(await call(client, 'weft_run_pair', { run_id: runId, action: 'status' })).toMatchObject({ data: { session: null, stages: [] } });
    expect((await call(client, 'weft_run_get', { run_id: runId })).data.run).toMatchObject({ pair_session: null });
    const ended = await call(client, 'weft_run_pair', { run_id: runId, action: 'end', session_id: sessionId });
    expect(ended).toMatchObject({
      isError: false,
      data: { ended: { session_id: sessionId, reason: 'stage-finished', already_ended: true } },
    });
    const none = await call(client, 'weft_run_pair', { run_id: runId, action: 'end' });
    expect(none).toMatchObject({ isError: true, code: 'NO_PAIR_SESSION' });
    const noStage = await call(client, 'weft_run_pair', { run_id: runId, action: 'start' });
    expect(noStage).toMatchObject({ isError: true, code: 'NO_ACTIVE_AGENT_STAGE' });
    expect(noStage.text).toContain(`Run ${runId} is succeeded; it has no agent stage left to pair with.`);
  });
});
