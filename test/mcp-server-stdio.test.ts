/**
 * `weft mcp start` over stdio, driven by the official SDK v2 client against the built
 * binary: every tool (resources, subscriptions, prompts and bad input are in
 * mcp-server-stdio-resources.test.ts). Runs are executed by the runners the server starts,
 * in separate processes.
 */
import type { Client } from '@modelcontextprotocol/client';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  connectStdio,
  createRun,
  endAllRuns,
  getRun,
  makeWorkspace,
  waitForStatus,
  type RunView,
  type Workspace,
} from './helpers/mcp-server-kit.js';

const TOOLS = [
  'weft_run_create',
  'weft_run_search',
  'weft_run_get',
  'weft_run_interact',
  'weft_run_gather',
  'weft_run_pair',
  'weft_run_events',
];

describe('weft mcp start over stdio', () => {
  let ws: Workspace;
  let client: Client;

  beforeAll(async () => {
    ws = makeWorkspace();
    client = await connectStdio(ws);
  });

  afterAll(async () => {
    if (client) {
      await endAllRuns(client);
      await client.close();
    }
    ws?.remove();
  }, 90_000);

  it('lists seven tools whose schemas describe every parameter, with output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
      expect(tool.outputSchema, tool.name).toBeDefined();
      const properties = tool.inputSchema.properties as Record<string, { description?: string }>;
      for (const [name, schema] of Object.entries(properties)) expect(schema.description, `${tool.name}.${name}`).toBeTruthy();
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    }
    const interact = tools.find((tool) => tool.name === 'weft_run_interact')!;
    expect(interact.inputSchema.required).toEqual(['run_id', 'action']);
    expect((interact.inputSchema.properties as Record<string, { enum?: string[] }>).action!.enum).toEqual([
      'start',
      'approve',
      'deny',
      'message',
      'signal',
      'interrupt',
      'cancel',
      'retry',
      'rewind',
      'fork',
      'archive',
      'unarchive',
      'link_parent',
      'unlink_parent',
      'get_questions',
      'answer',
    ]);
    const create = tools.find((tool) => tool.name === 'weft_run_create')!;
    expect(create.inputSchema).toMatchObject({ required: ['runs'], properties: { runs: { minItems: 1, maxItems: 50 } } });
    expect(tools.find((tool) => tool.name === 'weft_run_get')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('creates two runs in one call (labels, goal_file, a parent) and finds them by label and by parent', async () => {
    const parent = await createRun(client, { workflow: 'quick.toml', start: false, labels: { batch: 'b1' } });
    expect(parent).toMatchObject({ status: 'submitted', goal: 'Say hello', labels: { kind: 'quick', batch: 'b1' } });
    const created = await call(client, 'weft_run_create', {
      runs: [
        'quick.toml',
        { workflow: 'quick.toml', goal_file: 'plans/goal.md', parent_id: parent.id, labels: { batch: 'b1', side: 'child' }, start: false },
      ],
    });
    expect(created.isError, created.text).toBe(false);
    expect(created.text).toMatch(/^Created 2 runs: \S+ \(pending approval\), \S+ \(not started\)\./);
    expect(created.data).toMatchObject({ created: 2, failed: 0 });
    const [first, second] = (created.data.results as { ok: boolean; run: RunView }[]).map((result) => result.run);
    expect(first).toMatchObject({ status: 'pending', workflow: 'quick', parent_id: null });
    expect(second).toMatchObject({
      status: 'submitted',
      goal: 'Ship the release notes\n\nwith details',
      parent_id: parent.id,
      labels: { kind: 'quick', batch: 'b1', side: 'child' },
    });

    const byLabel = await call(client, 'weft_run_search', { labels: { batch: 'b1' } });
    expect((byLabel.data.runs as RunView[]).map((run) => run.id).sort()).toEqual([parent.id, second!.id].sort());
    const children = await call(client, 'weft_run_search', { parent_id: parent.id });
    expect(children.data.runs).toEqual([
      expect.objectContaining({ id: second!.id, goal_preview: 'Ship the release notes', parent_id: parent.id }),
    ]);
    const paged = await call(client, 'weft_run_search', { workflow: 'quick', limit: 2 });
    expect(paged.data.runs).toHaveLength(2);
    const rest = await call(client, 'weft_run_search', { workflow: 'quick', limit: 2, cursor: paged.data.next_cursor });
    expect((rest.data.runs as RunView[]).map((run) => run.id)).not.toContain((paged.data.runs as RunView[])[0]!.id);
    const got = await call(client, 'weft_run_get', { run_id: second!.id });
    expect(got.text).toBe(`Run ${second!.id} (quick) is submitted.`);
    expect(got.data).toEqual({
      run: expect.objectContaining({ id: second!.id, counts: expect.objectContaining({ events: 1 }) }),
      pending_questions: [],
      sandbox: { sandboxed: false, rules: null, summary: 'none (processes run with your full permissions)' },
      results: {
        final_output_head: null,
        final_output_truncated: false,
        final_stage_id: null,
        stages: [],
        stages_omitted: 0,
        tokens: { input: 0, output: 0, total: 0, cached_input: null, cache_write: null, reasoning: null },
        cost: null,
      },
      next_steps: [`Start run ${second!.id} with weft_run_interact {"run_id":"${second!.id}","action":"start"}.`],
    });
    // Claude Code hands the model only structuredContent: the next page is there, and in the text.
    expect(paged.data.more).toEqual({ cursor: paged.data.next_cursor });
    expect(paged.data.next_steps).toEqual([
      `Get the next page with weft_run_search and the same filters plus {"cursor":"${String(paged.data.next_cursor)}"}.`,
    ]);
  });

  it('gathers a run as soon as it ends, sending progress notifications meanwhile', async () => {
    const run = await createRun(client, { workflow: 'quick.toml', auto_approve: true });
    expect(run.status).toBe('queued');
    const progress: string[] = [];
    const started = Date.now();
    const gathered = await call(client, 'weft_run_gather', { run_ids: [run.id], timeout_seconds: 120 }, (update) =>
      progress.push(update.message ?? ''),
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(gathered.data).toMatchObject({
      timed_out: false,
      all_succeeded: true,
      ended: 1,
      runs: [{ id: run.id, status: 'succeeded', terminal: true }],
    });
    expect(gathered.text).toBe(`All 1 runs ended: ${run.id} succeeded.`);
    // What it said comes with it: no third call.
    expect(gathered.data.results).toEqual([
      {
        run_id: run.id,
        final_output_head: 'hello from quick',
        final_output_truncated: false,
        final_stage_id: 'hello@1',
        stages: [
          {
            stage_id: 'hello@1',
            node: 'hello',
            kind: 'command',
            attempt: 1,
            status: 'succeeded',
            duration_ms: expect.any(Number),
            output_head: 'hello from quick',
            output_truncated: false,
            error: null,
            finished_seq: expect.any(Number),
            tokens: null,
            cost: null,
          },
        ],
        stages_omitted: 0,
        tokens: { input: 0, output: 0, total: 0, cached_input: null, cache_write: null, reasoning: null },
        cost: null,
      },
    ]);
    expect(gathered.data.next_steps).toEqual([]);
    // Progress arrives while waiting; under load the last one can land after the result, which the client then drops.
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatch(/^[01]\/1 runs ended/);
  }, 90_000);

  it('gather returns as soon as a run needs a person: an approval, then a question (id, kind, options), which it answers', async () => {
    const pending = await createRun(client, 'quick.toml');
    const approval = await call(client, 'weft_run_gather', { run_ids: [pending.id], timeout_seconds: 600 });
    expect(approval.data).toMatchObject({ timed_out: false, needs_attention: [{ run_id: pending.id, needs: 'approval', questions: [] }] });
    expect(approval.data.next_steps).toEqual([
      `Approve run ${pending.id} with weft_run_interact {"run_id":"${pending.id}","action":"approve"} (or "deny" with a reason).`,
    ]);
    expect(approval.text).toBe(`1 run needs attention (${pending.id}: approval); 0/1 runs ended; waiting for ${pending.id} pending.`);
    // Clients that read only text get the same: the summary, the next steps, the structured result.
    const raw = await client.callTool({ name: 'weft_run_gather', arguments: { run_ids: [pending.id], timeout_seconds: 0 } });
    expect(raw.content.map((block) => (block.type === 'text' ? block.text : ''))).toEqual([
      approval.text,
      `Next: ${(approval.data.next_steps as string[]).join(' ')}`,
      JSON.stringify(raw.structuredContent),
    ]);
    await call(client, 'weft_run_interact', { run_id: pending.id, action: 'deny' });

    const run = await createRun(client, { workflow: 'ask.toml', auto_approve: true });
    // A long timeout: gather must come back because of the question, not the clock.
    const waiting = await call(client, 'weft_run_gather', { run_ids: [run.id], timeout_seconds: 600 });
    expect(waiting.data).toMatchObject({ timed_out: false, all_succeeded: false, ended: 0, runs: [{ id: run.id, status: 'blocked' }] });
    const [needed] = waiting.data.needs_attention as {
      run_id: string;
      needs: string;
      questions: { id: string; kind: string; options: string[] }[];
    }[];
    expect(needed).toMatchObject({
      run_id: run.id,
      needs: 'question',
      questions: [{ kind: 'choice', options: ['ship', 'hold'], prompt: 'Ship it?', status: 'pending' }],
    });
    const asked = needed!.questions[0]!.id;
    expect(waiting.data.next_steps).toEqual([
      `Answer question ${asked} of run ${run.id} ("Ship it?") with weft_run_interact {"run_id":"${run.id}","action":"answer","question_id":"${asked}","answer":…} — one of "ship", "hold".`,
    ]);
    const blocked = await getRun(client, run.id);

    const questions = await call(client, 'weft_run_interact', { run_id: run.id, action: 'get_questions' });
    const [question] = questions.data.questions as { id: string; prompt: string; kind: string; options: string[]; answer_hint: string }[];
    expect(question).toMatchObject({ prompt: 'Ship it?', kind: 'choice', options: ['ship', 'hold'], answer_hint: 'one of "ship", "hold"' });
    expect(blocked.pending_question_ids).toEqual([question!.id]);
    const wrong = await call(client, 'weft_run_interact', { run_id: run.id, action: 'answer', question_id: question!.id, answer: 'maybe' });
    expect(wrong).toMatchObject({ isError: true, code: 'RUN_INVALID_PARAMS' });
    const answered = await call(client, 'weft_run_interact', {
      run_id: run.id,
      action: 'answer',
      question_id: question!.id,
      answer: 'ship',
    });
    expect(answered.isError, answered.text).toBe(false);
    expect(answered.data.question).toMatchObject({ id: question!.id, status: 'answered', answer: 'ship' });
    const done = await call(client, 'weft_run_gather', { run_ids: [run.id], timeout_seconds: 60 });
    expect(done.data).toMatchObject({ timed_out: false, runs: [{ status: 'succeeded' }] });
  }, 90_000);

  it('steers runs through every interact action', async () => {
    const act = (run_id: string, action: string, extra: Record<string, unknown> = {}) =>
      call(client, 'weft_run_interact', { run_id, action, ...extra });

    const submitted = await createRun(client, { workflow: 'quick.toml', start: false });
    expect((await act(submitted.id, 'start')).data.run).toMatchObject({ status: 'pending' });
    const denied = await act(submitted.id, 'deny', { reason: 'not today' });
    expect(denied.data.run).toMatchObject({ status: 'cancelled', reason: 'denied: not today', terminal: true });

    const pending = await createRun(client, 'quick.toml');
    const approved = await act(pending.id, 'approve');
    expect(approved.text).toMatch(/^Approved run/);
    expect(['queued', 'starting', 'running', 'succeeded']).toContain((approved.data.run as RunView).status);

    const asking = await createRun(client, { workflow: 'ask.toml', auto_approve: true });
    await waitForStatus(client, asking.id, ['blocked']);
    expect((await act(asking.id, 'message', { text: 'take your time' })).isError).toBe(false);
    const interrupted = await act(asking.id, 'interrupt');
    expect(interrupted.isError, interrupted.text).toBe(false);
    await waitForStatus(client, asking.id, ['paused']);
    expect((await act(asking.id, 'start')).isError).toBe(false);
    await waitForStatus(client, asking.id, ['blocked']);
    expect((await act(asking.id, 'cancel', { reason: 'changed my mind' })).isError).toBe(false);
    const cancelled = await waitForStatus(client, asking.id, ['cancelled']);
    expect(cancelled.terminal).toBe(true);

    const failing = await createRun(client, { workflow: 'fail.toml', auto_approve: true });
    const failed = await call(client, 'weft_run_gather', { run_ids: [failing.id], timeout_seconds: 60 });
    expect(failed.data.results).toMatchObject([
      {
        final_output_head: null,
        stages: [{ stage_id: 'boom@1', status: 'failed', output_head: 'about to fail', error: expect.stringContaining('3') }],
      },
    ]);
    expect(failed.data.next_steps).toEqual([expect.stringContaining(`See why run ${failing.id} failed with weft_run_events`)]);
    expect(await getRun(client, failing.id)).toMatchObject({ status: 'failed', attempt: 1 });
    const retried = await act(failing.id, 'retry');
    expect(retried.data.run).toMatchObject({ attempt: 2 });
    // A runner that is already up may claim (or even finish) the retry before the result is read.
    expect(['queued', 'starting', 'running', 'failed']).toContain((retried.data.run as RunView).status);
    await call(client, 'weft_run_gather', { run_ids: [failing.id], timeout_seconds: 60 });

    expect((await act(failing.id, 'archive')).data.run).toMatchObject({ archived: true });
    const hidden = await call(client, 'weft_run_search', { ids: [failing.id] });
    expect(hidden.data.runs).toEqual([]);
    expect((await call(client, 'weft_run_search', { ids: [failing.id], archived: true })).data.runs).toHaveLength(1);
    expect((await act(failing.id, 'unarchive')).data.run).toMatchObject({ archived: false });

    expect((await act(failing.id, 'link_parent', { parent_id: submitted.id })).data.run).toMatchObject({ parent_id: submitted.id });
    expect((await call(client, 'weft_run_search', { parent_id: submitted.id })).data.runs).toEqual([
      expect.objectContaining({ id: failing.id }),
    ]);
    expect(await act(submitted.id, 'link_parent', { parent_id: failing.id })).toMatchObject({ isError: true, code: 'RUN_PARENT_CYCLE' });
    expect((await act(failing.id, 'unlink_parent')).data.run).toMatchObject({ parent_id: null });

    const late = await act(submitted.id, 'approve');
    expect(late).toMatchObject({ isError: true, code: 'RUN_INVALID_TRANSITION' });
    expect(late.text).toMatch(/^RUN_INVALID_TRANSITION: Run \S+ is cancelled .* Read the run's current status with weft_run_get/);
  }, 120_000);

  it('reads events: pages both ways, filters types, shows one in full, searches, truncates', async () => {
    writeFileSync(join(ws.dir, 'chatty.toml'), `[nodes.talk]\nkind = "command"\nrun = "printf 'needle-%0.s' $(seq 1 400)"\n`);
    const run = await createRun(client, { workflow: 'chatty.toml', auto_approve: true });
    await call(client, 'weft_run_gather', { run_ids: [run.id], timeout_seconds: 60 });
    const got = await call(client, 'weft_run_get', { run_id: run.id });
    const total = (got.data.run as RunView).counts as { events: number };
    const [talk] = (got.data.results as { stages: { output_head: string; output_truncated: boolean; finished_seq: number }[] }).stages;
    expect(talk!.output_head).toBe(`${'needle-'.repeat(400).slice(0, 2000)}…`);
    expect(talk!.output_truncated).toBe(true);
    expect(got.data.next_steps).toEqual([
      `Read the whole output of talk@1 with weft_run_events {"run_id":"${run.id}","action":"details","seq":${talk!.finished_seq}}.`,
    ]);
    const whole = await call(client, 'weft_run_events', { run_id: run.id, action: 'details', seq: talk!.finished_seq });
    expect((whole.data.events as { payload: { output: string } }[])[0]!.payload.output).toBe('needle-'.repeat(400));

    const first = await call(client, 'weft_run_events', { run_id: run.id, limit: 2 });
    expect(first.data).toMatchObject({
      action: 'list',
      total_events: total.events,
      next_after_seq: 2,
      next_before_seq: null,
      more: { after_seq: 2 },
    });
    expect(first.data.next_steps).toEqual([
      `Read on with weft_run_events {"run_id":"${run.id}","action":"list","direction":"asc","after_seq":2}.`,
    ]);
    expect((first.data.events as { seq: number; type: string }[]).map((event) => [event.seq, event.type])).toEqual([
      [1, 'run-created'],
      [2, 'run-status-changed'],
    ]);
    const second = await call(client, 'weft_run_events', { run_id: run.id, limit: 2, after_seq: 2 });
    expect((second.data.events as { seq: number }[]).map((event) => event.seq)).toEqual([3, 4]);
    const newest = await call(client, 'weft_run_events', { run_id: run.id, direction: 'desc', limit: 1 });
    expect(newest.data).toMatchObject({
      next_before_seq: total.events,
      next_after_seq: null,
      more: { before_seq: total.events },
      events: [{ seq: total.events, type: 'run-status-changed' }],
    });
    const stages = await call(client, 'weft_run_events', { run_id: run.id, types: ['stage-started', 'stage-finished'] });
    expect((stages.data.events as { type: string }[]).map((event) => event.type)).toEqual(['stage-started', 'stage-finished']);

    const found = await call(client, 'weft_run_events', {
      run_id: run.id,
      action: 'search',
      query: 'NEEDLE-needle',
      max_content_length: 50,
    });
    const hits = found.data.events as { seq: number; truncated: boolean; payload: Record<string, unknown> }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.truncated)).toBe(true);
    expect(JSON.stringify(hits[0]!.payload)).toMatch(/needle-needle.*…\[\d+ more characters\]/);
    const details = await call(client, 'weft_run_events', { run_id: run.id, action: 'details', seq: hits[0]!.seq });
    expect(details.data.events).toEqual([expect.objectContaining({ seq: hits[0]!.seq, truncated: false })]);
    const none = await call(client, 'weft_run_events', { run_id: run.id, action: 'details', seq: 9999 });
    expect(none).toMatchObject({ isError: true, code: 'INVALID_ARGUMENTS' });
    expect(none.text).toContain(`its events are 1–${total.events}`);
  }, 90_000);

  it('pair: without an agent stage, message reaches the whole run and start says no agent stage is running', async () => {
    const run = await createRun(client, { workflow: 'ask.toml', auto_approve: true });
    await waitForStatus(client, run.id, ['blocked']);
    const message = await call(client, 'weft_run_pair', { run_id: run.id, action: 'message', text: 'hello agent' });
    expect(message).toMatchObject({ isError: false, data: { action: 'message', delivered: true, session: null } });
    expect(await call(client, 'weft_run_pair', { run_id: run.id, action: 'status' })).toMatchObject({
      isError: false,
      data: { stages: [], session: null },
    });
    const start = await call(client, 'weft_run_pair', { run_id: run.id, action: 'start', stage_id: 'ask@1' });
    expect(start).toMatchObject({ isError: true, code: 'NO_ACTIVE_AGENT_STAGE' });
    expect(start.text).toContain(`Stage ask@1 of run ${run.id} is a human stage; only agent stages read messages.`);
    expect(await call(client, 'weft_run_pair', { run_id: run.id, action: 'end' })).toMatchObject({
      isError: true,
      code: 'NO_PAIR_SESSION',
    });
    const transcript = await call(client, 'weft_run_pair', { run_id: run.id, action: 'transcript' });
    expect((transcript.data.entries as { text: string }[]).map((entry) => entry.text)).toContain('message: hello agent');
    const events = await call(client, 'weft_run_events', { run_id: run.id, action: 'search', query: 'hello agent' });
    expect(events.data.events).toEqual([expect.objectContaining({ type: 'message-sent', payload: { text: 'hello agent' } })]);
    await call(client, 'weft_run_interact', { run_id: run.id, action: 'cancel' });
  }, 90_000);
});
