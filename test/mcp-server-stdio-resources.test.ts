/**
 * `weft mcp start` over stdio, the rest of it (see mcp-server-stdio.test.ts): resources and
 * subscriptions (2025-era and 2026-era), the prompts, refused input, and runs that outlive
 * the server. Driven by the official SDK v2 client against the built binary.
 */
import type { Client } from '@modelcontextprotocol/client';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkListenSubscriptions, MODERN_CLIENT_OPTIONS } from './helpers/mcp-listen.js';
import {
  call,
  connectStdio,
  createRun,
  endAllRuns,
  makeWorkspace,
  waitForStatus,
  type RunView,
  type Workspace,
} from './helpers/mcp-server-kit.js';

describe('weft mcp start over stdio: resources, prompts and refusals', () => {
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

  it('serves resources and notifies a subscriber when its run changes', async () => {
    const run = await createRun(client, 'quick.toml');
    const listed = await client.listResources();
    expect(listed.resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining(['weft://runs', `weft://runs/${run.id}`]));
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'weft://runs/{run_id}',
      'weft://runs/{run_id}/events',
    ]);

    const read = async (uri: string) => {
      const result = await client.readResource({ uri });
      const content = result.contents[0] as { text: string; mimeType: string };
      expect(content.mimeType).toBe('application/json');
      return JSON.parse(content.text) as Record<string, unknown>;
    };
    expect(((await read('weft://runs')).runs as RunView[]).some((item) => item.id === run.id)).toBe(true);
    expect(await read(`weft://runs/${run.id}`)).toMatchObject({ run: { id: run.id, status: 'pending' }, pending_questions: [] });
    expect(await read(`weft://runs/${run.id}/events`)).toMatchObject({ run_id: run.id, total_events: 2, events: [{ seq: 1 }, { seq: 2 }] });

    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler('notifications/resources/updated', (notification) => resolve(notification.params.uri)),
    );
    await client.subscribeResource({ uri: `weft://runs/${run.id}` });
    await call(client, 'weft_run_interact', { run_id: run.id, action: 'approve' });
    expect(await updated).toBe(`weft://runs/${run.id}`);
    await client.unsubscribeResource({ uri: `weft://runs/${run.id}` });

    // URL normalisation turns it into weft://runs/etc/passwd, which no template matches.
    await expect(client.readResource({ uri: 'weft://runs/../../etc/passwd' })).rejects.toThrow(/Resource not found/);
    await expect(client.readResource({ uri: 'weft://runs/..%2F..%2Fetc%2Fpasswd' })).rejects.toThrow(/INVALID_ID/);
    await expect(client.readResource({ uri: 'weft://runs/01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC' })).rejects.toThrow(/RUN_NOT_FOUND/);
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/Resource not found/);
    await expect(client.subscribeResource({ uri: 'weft://runs/..%2F..%2Fsecrets' })).rejects.toThrow(/INVALID_ID/);
    await call(client, 'weft_run_gather', { run_ids: [run.id], timeout_seconds: 60 });
  }, 90_000);

  it("streams runs' changes to a 2026-era client's subscriptions/listen, and refuses bad URIs", async () => {
    const modern = await connectStdio(ws, {}, MODERN_CLIENT_OPTIONS);
    try {
      await checkListenSubscriptions(modern, ws);
    } finally {
      await modern.close();
    }
  }, 90_000);

  it('offers two prompts for the slash-command menu', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => [prompt.name, prompt.arguments?.map((arg) => [arg.name, arg.required])])).toEqual([
      [
        'weft_start_workflow',
        [
          ['workflow', true],
          ['goal', false],
        ],
      ],
      ['weft_review_run', [['run_id', true]]],
    ]);
    const start = await client.getPrompt({ name: 'weft_start_workflow', arguments: { workflow: 'quick.toml', goal: 'Say hi' } });
    const startText = (start.messages[0]!.content as { text: string }).text;
    expect(startText).toContain('Call weft_run_create with {"runs": [{"workflow":"quick.toml","goal":"Say hi"}]}');
    const run = await createRun(client, { workflow: 'quick.toml', start: false });
    const review = await client.getPrompt({ name: 'weft_review_run', arguments: { run_id: run.id } });
    expect((review.messages[0]!.content as { text: string }).text).toContain(`Review weft run ${run.id} (quick, submitted)`);
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'weft_start_workflow' },
      argument: { name: 'workflow', value: 'q' },
    });
    expect(completion.completion.values).toEqual(['quick.toml']);
    // Run ids complete from the recent runs, whatever the case typed; the resource template's do too.
    const typed = run.id.toLowerCase();
    const fromPrompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'weft_review_run' },
      argument: { name: 'run_id', value: typed },
    });
    const fromResource = await client.complete({
      ref: { type: 'ref/resource', uri: 'weft://runs/{run_id}' },
      argument: { name: 'run_id', value: typed },
    });
    expect([fromPrompt.completion.values, fromResource.completion.values]).toEqual([[run.id], [run.id]]);
    await expect(client.getPrompt({ name: 'weft_review_run', arguments: { run_id: 'nope/../x' } })).rejects.toThrow(/INVALID_ID/);
  });

  it("refuses a goal_file or workflow that leads out of the run's directory, without quoting what is behind it", async () => {
    symlinkSync('/proc/self/environ', join(ws.dir, 'environ.md'));
    symlinkSync('/etc', join(ws.dir, 'etc-link'));
    symlinkSync('/etc/passwd', join(ws.dir, 'passwd.toml'));
    const attempts: Record<string, unknown>[] = [
      { workflow: 'quick.toml', goal_file: 'environ.md' },
      { workflow: 'quick.toml', goal_file: 'etc-link/passwd' },
      { workflow: 'passwd.toml' },
      { workflow: 'etc-link/passwd' },
      { workflow: '/etc/passwd' },
    ];
    for (const attempt of attempts) {
      const result = await call(client, 'weft_run_create', { runs: [{ ...attempt, start: false }] });
      expect(result, JSON.stringify(attempt)).toMatchObject({ isError: true, code: 'RUN_INVALID_PARAMS' });
      expect(result.text).toMatch(/is outside the run's directory/);
      expect(result.text).not.toMatch(/root:|PATH=|HOME=/);
    }
  });

  it('refuses bad input with a stable code and a message that says what to do', async () => {
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      [
        'weft_run_interact',
        { run_id: '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC', action: 'explode' },
        'INVALID_ARGUMENTS',
        /action: Invalid option: expected one of "start"\|"approve"/,
      ],
      [
        'weft_run_create',
        { runs: [{ workflow: 'quick.toml', goal: 'x', goal_file: 'plans/goal.md' }] },
        'INVALID_ARGUMENTS',
        /give either goal or goal_file, not both/,
      ],
      [
        'weft_run_create',
        { runs: [{ workflow: 'quick.toml', goal_file: '../outside.md' }] },
        'RUN_INVALID_PARAMS',
        /goal file '..\/outside.md' is outside the run's directory/,
      ],
      [
        'weft_run_create',
        { runs: Array.from({ length: 51 }, () => 'quick.toml') },
        'INVALID_ARGUMENTS',
        /runs: Too big: expected array to have <=50 items/,
      ],
      [
        'weft_run_create',
        { runs: [{ workflow: 'quick.toml', goalFile: 'x' }] },
        'INVALID_ARGUMENTS',
        /runs\.0: Unrecognized key: "goalFile"/,
      ],
      [
        'weft_run_create',
        { runs: [{ workflow: 'quick.toml', dry_run: 'yes' }, 7] },
        'INVALID_ARGUMENTS',
        /runs\.0\.dry_run: Invalid input: expected boolean, received string; runs\.1: Invalid input: expected string or object/,
      ],
      ['weft_run_create', { runs: ['missing.toml'] }, 'FILE_NOT_FOUND', /missing\.toml/],
      ['weft_run_get', { run_id: '../../etc/passwd' }, 'INVALID_ID', /Invalid run id '..\/..\/etc\/passwd': expected a 26-character ULID/],
      ['weft_run_get', { run_id: '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC' }, 'RUN_NOT_FOUND', /Find runs with weft_run_search/],
      ['weft_run_events', { run_id: '..%2F..', action: 'list' }, 'INVALID_ID', /ULID/],
      ['weft_run_search', { created_after: 'yesterday' }, 'INVALID_ARGUMENTS', /created_after 'yesterday' is not a date/],
      ['weft_run_search', { cursor: 'bogus' }, 'RUN_INVALID_PARAMS', /Invalid cursor/],
      [
        'weft_run_interact',
        { run_id: '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC', action: 'answer' },
        'INVALID_ARGUMENTS',
        /action 'answer' needs 'question_id'/,
      ],
      ['weft_run_gather', { run_ids: [] }, 'INVALID_ARGUMENTS', /run_ids: Too small/],
    ];
    for (const [tool, args, code, message] of cases) {
      const result = await call(client, tool, args);
      expect(result, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toMatchObject({ isError: true, code });
      expect(result.text).toMatch(new RegExp(`^${code}: `));
      expect(result.text).toMatch(message);
    }
    const partial = await call(client, 'weft_run_create', { runs: [{ workflow: 'quick.toml', start: false }, 'missing.toml'] });
    expect(partial.isError).toBe(false);
    expect(partial.data).toMatchObject({
      created: 1,
      failed: 1,
      results: [
        { index: 0, ok: true },
        { index: 1, ok: false, run: null, error: { code: 'FILE_NOT_FOUND' } },
      ],
    });
    expect(partial.text).toMatch(/^Created 1 of 2 runs .*1 failed: \[1\] FILE_NOT_FOUND/);
  });
});

describe('runs created through MCP outlive the server', () => {
  it('keeps running after the client disconnects and the server exits', async () => {
    const ws = makeWorkspace();
    // The stage can only end once the test writes `release`, after the first client is gone.
    writeFileSync(
      join(ws.dir, 'steady.toml'),
      '[nodes.work]\nkind = "command"\nrun = "echo started >> ran.log; while [ ! -f release ]; do sleep 0.05; done; echo finished"\n',
    );
    try {
      const first = await connectStdio(ws);
      const run = await createRun(first, { workflow: 'steady.toml', auto_approve: true });
      await waitForStatus(first, run.id, ['running']);
      await first.close();
      writeFileSync(join(ws.dir, 'release'), '');
      const second = await connectStdio(ws);
      const gathered = await call(second, 'weft_run_gather', { run_ids: [run.id], timeout_seconds: 60 });
      expect(gathered.data).toMatchObject({ timed_out: false, runs: [{ id: run.id, status: 'succeeded' }] });
      await second.close();
      // It ran once, through the disconnect: not started again by anyone.
      expect(readFileSync(join(ws.dir, 'ran.log'), 'utf8')).toBe('started\n');
    } finally {
      ws.remove();
    }
  }, 90_000);
});
