/**
 * `weft serve`'s HTTP API over real HTTP on 127.0.0.1, against a real server process with
 * its own runner and real runs: the token and the session cookie, Host checks, creating,
 * approving and following runs, the live event stream resuming after a disconnect,
 * answering a question (twice: 409), bad input that changes nothing, the OpenAPI document,
 * and the MCP server mounted at /mcp.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { ASK_WORKFLOW, callApi, readEvents, startServe, untilStatus, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const STEPS = `
[workflow]
name = "steps"
[run]
labels = { team = "docs" }
[nodes.first]
kind = "command"
run = 'echo "first line of one"; echo second'
next = "second"
[nodes.second]
kind = "command"
run = 'echo two'
next = "third"
[nodes.third]
kind = "command"
run = 'echo three'
`;

interface RunSummary {
  id: string;
  status: string;
  labels: Record<string, string>;
  pending_question_ids: string[];
}
interface RunDetail {
  run: RunSummary;
  stages: { node: string; status: string; output_preview: string | null; duration_ms: number | null }[];
  pending_questions: { id: string; kind: string; prompt: string }[];
  tokens: { input: number; output: number; total: number; cached_input: number | null; reasoning: number | null };
}
interface ErrorBody {
  error: { code: string; message: string; hint: string };
}

let serve: Serve;

/**
 * A POST through node:http, which reads the answer even when the server answers before
 * the body is sent and closes the connection (fetch reports only the broken write).
 */
function rawPost(url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${serve.token}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(body);
  });
}

async function createRun(body: Record<string, unknown>): Promise<RunSummary> {
  const created = await callApi<{ run: RunSummary }>(serve, 'POST', '/runs', body);
  expect(created.status).toBe(201);
  return created.body.run;
}

async function runCount(): Promise<number> {
  return (await callApi<{ runs: unknown[] }>(serve, 'GET', '/runs?archived=any&limit=500')).body.runs.length;
}

beforeAll(async () => {
  serve = await startServe();
  writeFileSync(join(serve.dir, 'steps.toml'), STEPS);
  writeFileSync(join(serve.dir, 'ask.toml'), ASK_WORKFLOW);
});

afterAll(async () => {
  await serve?.stop();
});

describe('weft serve: authentication and Host checks', () => {
  it('answers 401 JSON without the token or with a wrong one, and 403 for a foreign Host or Origin', async () => {
    const missing = await callApi<ErrorBody>(serve, 'GET', '/runs', undefined, { authorization: '' });
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('UNAUTHORIZED');
    expect(missing.body.error.hint).toContain('POST /api/v1/login');
    expect((await callApi<ErrorBody>(serve, 'GET', '/runs', undefined, { authorization: 'Bearer wrong-token-wrong-token' })).status).toBe(
      401,
    );
    const origin = await callApi<ErrorBody>(serve, 'GET', '/runs', undefined, { origin: 'http://evil.example' });
    expect([origin.status, origin.body.error.code]).toEqual([403, 'FORBIDDEN_HOST']);
    // fetch will not send a forged Host; the raw check is covered by the MCP server's HTTP test through the same validator.
    expect((await callApi(serve, 'GET', '/openapi.json', undefined, { authorization: '' })).status).toBe(200);
  });

  it('trades the token for an HttpOnly SameSite=Strict session cookie that is not the token, and logs out', async () => {
    const wrong = await callApi<ErrorBody>(serve, 'POST', '/login', { token: 'not-the-token-at-all' }, { authorization: '' });
    expect(wrong.status).toBe(401);
    const login = await callApi(serve, 'POST', '/login', { token: serve.token }, { authorization: '' });
    expect(login.status).toBe(204);
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^weft_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain(serve.token);
    const session = cookie.split(';')[0]!;
    expect(await callApi(serve, 'GET', '/session', undefined, { authorization: '', cookie: session })).toMatchObject({
      status: 200,
      body: { authenticated: true },
    });
    expect((await callApi(serve, 'GET', '/session', undefined, { authorization: '' })).status).toBe(401);
    expect((await callApi(serve, 'POST', '/logout', undefined, { authorization: '', cookie: session })).status).toBe(204);
    expect((await callApi(serve, 'GET', '/session', undefined, { authorization: '', cookie: session })).status).toBe(401);
  });

  it('without a token generates one, prints it once, keeps it in a 0600 file and accepts it', async () => {
    const fresh = await startServe({ tokenEnv: false });
    try {
      const file = join(fresh.storageDir, 'mcp-server-token');
      const token = readFileSync(file, 'utf8').trim();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(fresh.output()).toContain(`weft: new bearer token (kept in ${file}, mode 0600):\n${token}\n`);
      expect((await callApi(fresh, 'GET', '/session')).status).toBe(401);
      expect((await callApi(fresh, 'GET', '/session', undefined, { authorization: `Bearer ${token}` })).status).toBe(200);
    } finally {
      await fresh.stop();
    }
  });

  it('refuses --no-auth on a host that is not loopback', async () => {
    const refused = await runCli(['--storage-dir', serve.storageDir, 'serve', '--host', '0.0.0.0', '--port', '0', '--no-auth'], {
      cwd: serve.dir,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--no-auth is only allowed on a loopback host (127.0.0.1, localhost, ::1), not '0.0.0.0'");
  });
});

describe('weft serve: runs', () => {
  it('creates a pending run, approves it, and its runner takes it to succeeded; the run page has every stage', async () => {
    const run = await createRun({ workflow: 'steps.toml', goal: 'check the API' });
    expect(run).toMatchObject({ status: 'pending', labels: { team: 'docs' } });
    const approved = await callApi<{ run: RunSummary }>(serve, 'POST', `/runs/${run.id}/approve`, {});
    expect([approved.status, approved.body.run.status]).toEqual([200, 'queued']);
    await untilStatus(serve, run.id, 'succeeded');
    const detail = await callApi<RunDetail>(serve, 'GET', `/runs/${run.id}`);
    expect(detail.body.run.status).toBe('succeeded');
    expect(detail.body.stages.map((stage) => [stage.node, stage.status, stage.output_preview])).toEqual([
      ['first', 'succeeded', 'first line of one'],
      ['second', 'succeeded', 'two'],
      ['third', 'succeeded', 'three'],
    ]);
    expect(detail.body.stages.every((stage) => typeof stage.duration_ms === 'number')).toBe(true);
    expect(detail.body.tokens).toEqual({ input: 0, output: 0, total: 0, cached_input: null, cache_write: null, reasoning: null });
    const approveAgain = await callApi<ErrorBody>(serve, 'POST', `/runs/${run.id}/approve`, {});
    expect([approveAgain.status, approveAgain.body.error.code]).toEqual([409, 'RUN_INVALID_TRANSITION']);
  });

  it('runs inline TOML, lists runs newest first with filters, text and cursor pages', async () => {
    const inline = await createRun({
      workflow_toml: STEPS.replace('name = "steps"', 'name = "inline-steps"'),
      auto_approve: true,
      labels: { lane: 'fast' },
    });
    await untilStatus(serve, inline.id, 'succeeded');
    const other = await createRun({ workflow: 'steps.toml', goal: 'a needle in the goal', start: false });
    expect(other.status).toBe('submitted');

    const byWorkflow = await callApi<{ runs: { id: string }[] }>(serve, 'GET', '/runs?workflow=inline-steps');
    expect(byWorkflow.body.runs.map((item) => item.id)).toEqual([inline.id]);
    const byLabel = await callApi<{ runs: { id: string }[] }>(serve, 'GET', '/runs?label=lane%3Dfast&status=succeeded,failed');
    expect(byLabel.body.runs.map((item) => item.id)).toEqual([inline.id]);
    const byText = await callApi<{ runs: { id: string }[] }>(serve, 'GET', '/runs?text=NEEDLE');
    expect(byText.body.runs.map((item) => item.id)).toEqual([other.id]);

    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { runs: { id: string; created_at: string }[]; next_cursor: string | null } } = await callApi(
        serve,
        'GET',
        `/runs?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      all.push(...page.body.runs.map((item) => item.id));
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    const listed = (await callApi<{ runs: { id: string }[] }>(serve, 'GET', '/runs')).body.runs.map((item) => item.id);
    expect(all).toEqual(listed);
    expect(listed.indexOf(other.id)).toBeLessThan(listed.indexOf(inline.id));
  });

  it('streams events live and resumes after a disconnect from Last-Event-ID, with nothing lost or repeated', async () => {
    const run = await createRun({ workflow: 'steps.toml', auto_approve: true });
    const before = await readEvents(serve, run.id, (events) => events.length >= 3);
    const lastSeen = Number(before.at(-1)!.id);
    const after = await readEvents(
      serve,
      run.id,
      (events) => events.some((event) => event.event === 'run-status-changed' && event.data.payload.to === 'succeeded'),
      lastSeen,
    );
    const seqs = [...before, ...after].map((event) => Number(event.id));
    expect(seqs).toEqual(seqs.map((_seq, index) => index + 1));
    for (const event of [...before, ...after]) expect([event.event, Number(event.id)]).toEqual([event.data.type, event.data.seq]);

    const page = await callApi<{ events: { seq: number }[]; next_after_seq: number | null }>(
      serve,
      'GET',
      `/runs/${run.id}/events?after_seq=2&limit=3`,
    );
    expect(page.body.events.map((event) => event.seq)).toEqual([3, 4, 5]);
    expect(page.body.next_after_seq).toBe(5);
  });

  it('answers a question once; a second answer is 409 and changes nothing', async () => {
    const run = await createRun({ workflow: 'ask.toml', auto_approve: true });
    await untilStatus(serve, run.id, 'blocked');
    const detail = await callApi<RunDetail>(serve, 'GET', `/runs/${run.id}`);
    const [question] = detail.body.pending_questions;
    expect(question).toMatchObject({ kind: 'yes_no', prompt: 'Ship it?' });
    const answered = await callApi<{ question: { status: string; answer: unknown } }>(serve, 'POST', `/runs/${run.id}/answer`, {
      question_id: question!.id,
      answer: 'yes',
    });
    expect(answered.body.question).toMatchObject({ status: 'answered', answer: true });
    const again = await callApi<ErrorBody>(serve, 'POST', `/runs/${run.id}/answer`, { question_id: question!.id, answer: false });
    expect([again.status, again.body.error.code]).toEqual([409, 'QUESTION_NOT_PENDING']);
    await untilStatus(serve, run.id, 'succeeded');
    const questions = await callApi<{ questions: { answer: unknown }[] }>(serve, 'GET', `/runs/${run.id}/questions?pending=false`);
    expect(questions.body.questions.map((item) => item.answer)).toEqual([true]);
  });

  it('cancels, retries, archives and deletes through the action routes', async () => {
    const run = await createRun({ workflow: 'steps.toml' });
    expect((await callApi<{ run: RunSummary }>(serve, 'POST', `/runs/${run.id}/deny`, { reason: 'not today' })).body.run).toMatchObject({
      status: 'cancelled',
    });
    const busy = await callApi<ErrorBody>(serve, 'DELETE', `/runs/${(await createRun({ workflow: 'steps.toml', start: false })).id}`);
    expect([busy.status, busy.body.error.code]).toEqual([409, 'RUN_INVALID_TRANSITION']);
    expect((await callApi<{ run: { archived: boolean } }>(serve, 'POST', `/runs/${run.id}/archive`, {})).body.run.archived).toBe(true);
    expect((await callApi(serve, 'DELETE', `/runs/${run.id}`)).status).toBe(204);
    expect((await callApi<ErrorBody>(serve, 'GET', `/runs/${run.id}`)).body.error.code).toBe('RUN_NOT_FOUND');
  });
});

describe('weft serve: bad input', () => {
  it('answers malformed JSON, unknown fields, huge bodies, unknown and invalid ids with clear JSON errors and stores nothing', async () => {
    const count = await runCount();
    const cases: [string, string, unknown, number, string, RegExp][] = [
      ['POST', '/runs', '{"workflow": "steps.toml",', 400, 'INVALID_JSON', /not valid JSON/],
      ['POST', '/runs', { workflow: 'steps.toml', colour: 'red' }, 400, 'INVALID_ARGUMENTS', /colour/],
      ['POST', '/runs', { workflow: 'steps.toml', auto_approve: 'yes' }, 400, 'INVALID_ARGUMENTS', /auto_approve/],
      ['POST', '/runs', { workflow: 'missing.toml' }, 404, 'FILE_NOT_FOUND', /missing\.toml/],
      ['POST', '/runs', { workflow_toml: '[workflow]\nname = "x"\n[nodes.a]\nkind = "nope"\n' }, 422, 'WORKFLOW_INVALID', /kind/],
      ['GET', '/runs/01ARZ3NDEKTSV4RRFFQ69G5FAV', undefined, 404, 'RUN_NOT_FOUND', /No run with id 01ARZ3NDEKTSV4RRFFQ69G5FAV/],
      ['GET', '/runs/not-an-id', undefined, 400, 'INVALID_ID', /not-an-id/],
      ['POST', '/runs/01ARZ3NDEKTSV4RRFFQ69G5FAV/approve', {}, 404, 'RUN_NOT_FOUND', /01ARZ3NDEKTSV4RRFFQ69G5FAV/],
      ['GET', '/runs?status=sleeping', undefined, 400, 'INVALID_ARGUMENTS', /status/],
      ['GET', '/runs?created_after=yesterday', undefined, 400, 'INVALID_ARGUMENTS', /created_after 'yesterday' is not a date/],
      ['GET', '/nothing-here', undefined, 404, 'NOT_FOUND', /No such route/],
    ];
    for (const [method, path, body, status, code, message] of cases) {
      const answer = await callApi<ErrorBody>(serve, method, path, body);
      expect([method, path, answer.status, answer.body.error.code], answer.body.error.message).toEqual([method, path, status, code]);
      expect(answer.body.error.message).toMatch(message);
      expect(answer.body.error.hint.length).toBeGreaterThan(10);
    }
    const huge = await rawPost(`${serve.url}/api/v1/runs`, JSON.stringify({ workflow: 'steps.toml', goal: 'x'.repeat(2 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.body)).toMatchObject({
      error: { code: 'TOO_LARGE', message: 'The request body is larger than 1048576 bytes.' },
    });
    expect(await runCount()).toBe(count);
  });
});

describe('weft serve: OpenAPI and MCP', () => {
  it('serves an OpenAPI 3.1 document with the routes and their schemas', async () => {
    const document = await callApi<{
      openapi: string;
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>
      >;
    }>(serve, 'GET', '/openapi.json');
    expect(document.body.openapi).toBe('3.1.0');
    expect(Object.keys(document.body.paths['/api/v1/runs'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.body.paths['/api/v1/runs/{id}/events'] ?? {})).toEqual(['get']);
    expect(
      Object.keys(document.body.paths['/api/v1/runs']?.post?.requestBody?.content['application/json']?.schema.properties ?? {}),
    ).toEqual(expect.arrayContaining(['workflow', 'workflow_toml', 'goal', 'inputs', 'labels', 'auto_approve']));
  });

  it('serves weft_run_get at /mcp with the same token', async () => {
    const run = await createRun({ workflow: 'steps.toml', start: false });
    const client = new Client({ name: 'serve-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${serve.token}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'weft_run_get', arguments: { run_id: run.id } });
      expect((result.structuredContent as { run: { id: string; status: string } }).run).toMatchObject({ id: run.id, status: 'submitted' });
    } finally {
      await client.close();
    }
    const refused = await fetch(`${serve.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
  });

  it('serves the dashboard page at / and the run graph as SVG', async () => {
    const page = await fetch(`${serve.url}/`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const run = await createRun({ workflow: 'steps.toml', start: false });
    const graph = await callApi<string>(serve, 'GET', `/runs/${run.id}/graph`);
    expect(graph.headers.get('content-type')).toBe('image/svg+xml');
    expect(graph.body).toContain('<svg');
    const mermaid = await callApi<string>(serve, 'GET', '/workflows/graph?path=steps.toml&format=mermaid');
    expect(mermaid.body).toContain('first');
    const outside = await callApi<ErrorBody>(serve, 'GET', '/workflows/graph?path=../../etc/passwd');
    expect([outside.status, outside.body.error.code]).toEqual([400, 'PATH_OUTSIDE_WORKSPACE']);
  });
});
