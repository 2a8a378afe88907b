/**
 * The live runs list of `weft serve` (`GET /api/v1/runs` with `Accept: text/event-stream`)
 * over real HTTP on 127.0.0.1, against a real server process with its own runner: a run
 * created by another process (the CLI) shows up with its status changes in the order they
 * happened; a filtered stream reports a run that leaves the filter; a stream resumed with
 * Last-Event-ID misses none of the changes made while it was away.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { ASK_WORKFLOW, callApi, readStream, startServe, untilStatus, type Serve, type SseMessage } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

interface ListedRun {
  id: string;
  status: string;
  labels: Record<string, string>;
  updated_at: string;
}
type ListMessage = SseMessage<ListedRun>;

let serve: Serve;

beforeAll(async () => {
  serve = await startServe();
  writeFileSync(join(serve.dir, 'ask.toml'), ASK_WORKFLOW);
});

afterAll(async () => {
  await serve?.stop();
});

async function answerQuestion(runId: string): Promise<void> {
  const detail = await callApi<{ pending_questions: { id: string }[] }>(serve, 'GET', `/runs/${runId}`);
  const answered = await callApi(serve, 'POST', `/runs/${runId}/answer`, {
    question_id: detail.body.pending_questions[0]!.id,
    answer: 'yes',
  });
  expect(answered.status).toBe(200);
}

async function createAsk(label: string): Promise<string> {
  const created = await callApi<{ run: ListedRun }>(serve, 'POST', '/runs', {
    workflow: 'ask.toml',
    auto_approve: true,
    labels: { stream: label },
  });
  expect(created.status).toBe(201);
  return created.body.run.id;
}

/** The statuses a run went through, from its own event log. */
async function statusHistory(runId: string): Promise<string[]> {
  const page = await callApi<{ events: { type: string; payload: { to?: string } }[] }>(serve, 'GET', `/runs/${runId}/events?limit=1000`);
  return ['submitted', ...page.body.events.filter((event) => event.type === 'run-status-changed').map((event) => event.payload.to!)];
}

/** Whether `seen` appears in `history` in the same order (notices coalesce, so states may be skipped). */
function inOrder(seen: string[], history: string[]): boolean {
  let at = 0;
  for (const status of seen) {
    at = history.indexOf(status, at);
    if (at < 0) return false;
    at += 1;
  }
  return true;
}

/** Opens a list stream and reads it until `done`; `ready` resolves once the server has answered. */
function openList(path: string, done: (messages: ListMessage[]) => boolean): { ready: Promise<void>; reading: Promise<ListMessage[]> } {
  let opened: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (opened = resolve));
  return { ready, reading: readStream<ListedRun>(serve, path, done, undefined, () => opened()) };
}

/** Whether a run-left came after the run was in the list. */
function leftAfterIn(messages: ListMessage[]): boolean {
  const firstIn = messages.findIndex((message) => message.event === 'run');
  return firstIn >= 0 && firstIn < messages.findLastIndex((message) => message.event === 'run-left');
}

const changesOf = (messages: ListMessage[], runId: string) => messages.filter((message) => message.data.id === runId);

describe('weft serve: the live runs list', () => {
  it('shows a run created by another process, with its status changes in the order they happened, each as the list shows it', async () => {
    const target: { id?: string } = {};
    const { ready, reading } = openList(
      '/runs?label=stream%3Dcli',
      (messages) => target.id !== undefined && changesOf(messages, target.id).some((message) => message.data.status === 'succeeded'),
    );
    await ready;
    const created = await runCli(
      ['--storage-dir', serve.storageDir, '--cwd', serve.dir, 'run', 'ask.toml', '--label', 'stream=cli', '--detach', '--json'],
      { cwd: serve.dir },
    );
    expect(created.code, created.stderr).toBe(0);
    const runId = (target.id = (JSON.parse(created.stdout) as { id: string }).id);
    await untilStatus(serve, runId, 'blocked');
    await answerQuestion(runId);
    const messages = await reading;

    const mine = changesOf(messages, runId);
    // A run changes in the list without changing status too (its stage, its questions).
    const statuses = mine.map((message) => message.data.status).filter((status, index, all) => status !== all[index - 1]);
    const history = await statusHistory(runId);
    expect(inOrder(statuses, history), `${statuses.join(',')} within ${history.join(',')}`).toBe(true);
    // The states the run waited in cannot be coalesced away.
    // (The moves between them may share one store notice under load, so the stream may skip those.)
    expect(inOrder(['blocked', 'succeeded'], statuses), statuses.join(',')).toBe(true);
    expect(
      mine.every(
        (message) =>
          message.event === 'run' && message.data.labels.stream === 'cli' && message.id === String(Date.parse(message.data.updated_at)),
      ),
    ).toBe(true);
    const listed = await callApi<{ runs: ListedRun[] }>(serve, 'GET', '/runs?label=stream%3Dcli');
    expect(mine.at(-1)!.data).toEqual(listed.body.runs[0]);
    // Another label's stream never saw it.
    expect(messages.every((message) => message.data.labels.stream === 'cli')).toBe(true);
  });

  it('reports a run that leaves a status filter as run-left, so a client can drop it', async () => {
    const target: { id?: string } = {};
    const { ready, reading } = openList(
      '/runs?status=blocked&label=stream%3Dfilter',
      (messages) => target.id !== undefined && leftAfterIn(changesOf(messages, target.id)),
    );
    await ready;
    const runId = (target.id = await createAsk('filter'));
    await untilStatus(serve, runId, 'blocked');
    await answerQuestion(runId);
    // Before it blocked, the run changed outside the filter too: reported as run-left, which a client that never had it ignores.
    const mine = changesOf(await reading, runId).filter((message, index, all) =>
      all.slice(0, index + 1).some((each) => each.event === 'run'),
    );
    // Blocked, it changes again when its question is asked; then it leaves.
    const steps = mine
      .map((message) => `${message.event}:${message.data.status === 'blocked'}`)
      .filter((step, index, all) => step !== all[index - 1]);
    expect(steps).toEqual(['run:true', 'run-left:false']);
  });

  it('resumes from Last-Event-ID with every change made while it was away', async () => {
    const first = await createAsk('resume');
    const before = await readStream<ListedRun>(
      serve,
      '/runs?label=stream%3Dresume',
      (messages) => changesOf(messages, first).some((message) => message.data.status === 'blocked'),
      0,
    );
    const lastId = Number(before.at(-1)!.id);
    // While no stream is open: the first run finishes and a second one is created and blocks.
    await answerQuestion(first);
    await untilStatus(serve, first, 'succeeded');
    const second = await createAsk('resume');
    await untilStatus(serve, second, 'blocked');
    const after = await readStream<ListedRun>(
      serve,
      '/runs?label=stream%3Dresume',
      (messages) =>
        changesOf(messages, first).some((message) => message.data.status === 'succeeded') &&
        changesOf(messages, second).some((message) => message.data.status === 'blocked'),
      lastId,
    );
    expect(after.every((message) => message.event === 'run')).toBe(true);
    expect(changesOf(after, first).at(-1)!.data.status).toBe('succeeded');
  });

  it('refuses a Last-Event-ID that is not a time, naming it', async () => {
    const answer = await callApi<{ error: { code: string; message: string } }>(serve, 'GET', '/runs', undefined, {
      accept: 'text/event-stream',
      'last-event-id': 'yesterday',
    });
    expect([answer.status, answer.body.error.code]).toEqual([400, 'INVALID_ARGUMENTS']);
    expect(answer.body.error.message).toContain("Last-Event-ID 'yesterday'");
  });
});
