/**
 * Webhook triggers and the schedules API on a real `weft serve`: a signed delivery makes one
 * run with inputs mapped from the body; the same delivery again answers the same run and
 * makes nothing; unsigned, badly signed, oversized, malformed, id-less and unknown-trigger
 * requests get their 4xx (a trigger whose secret the server lacks 503), each with its code and
 * the catalogue's hint, and store nothing; the secret appears nowhere in the store or the
 * server's output. Also `weft schedule add`'s errors for a bad cron, zone or workflow.
 */
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpErrorRow, type HttpErrorCode } from '../src/surfaces/http/error-response.js';
import { runCli } from './helpers/run-cli.js';
import { callApi, startServe, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 60_000 });

const SECRET = 'hook-secret-5f1c0a9e7d3b';
const WORKFLOW = `
[workflow]
name = "pr"

[run]
auto_approve = true

[inputs.number]
type = "integer"
required = true

[inputs.action]
default = "none"

[nodes.say]
kind = "command"
run = "echo {{ inputs.number }}"
`;

let dir: string;
let serve: Serve;

function sign(body: string, secret = SECRET): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

interface Answer {
  status: number;
  body: { run_id?: string; created?: boolean; error?: { code: string; message: string; hint: string } };
}

/** A raw POST: the server may answer 413 and close before the whole body is sent. */
function deliver(name: string, body: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${serve.url}/api/v1/triggers/${name}`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(body);
  });
}

async function triggeredRuns(): Promise<{ id: string }[]> {
  return (await callApi<{ runs: { id: string }[] }>(serve, 'GET', '/runs?label=weft.trigger=gh&archived=any')).body.runs;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-webhooks-'));
  await writeFile(join(dir, 'pr.toml'), WORKFLOW);
  const added = await runCli(
    [
      '--storage-dir',
      join(dir, '.home'),
      '--cwd',
      dir,
      'trigger',
      'add',
      'gh',
      'pr.toml',
      '--secret-env',
      'HOOK_SECRET',
      '--input-map',
      'number=$.pull_request.number',
      '--input-map',
      'action=$.action',
    ],
    { cwd: dir },
  );
  expect(added.stderr).toBe('');
  expect(added.code).toBe(0);
  const unset = await runCli(
    ['--storage-dir', join(dir, '.home'), '--cwd', dir, 'trigger', 'add', 'unset', 'pr.toml', '--secret-env', 'UNSET_HOOK_SECRET'],
    { cwd: dir },
  );
  expect(unset.code).toBe(0);
  // A trigger whose workflow file is removed after it was added.
  await writeFile(join(dir, 'gone.toml'), WORKFLOW);
  const gone = await runCli(
    ['--storage-dir', join(dir, '.home'), '--cwd', dir, 'trigger', 'add', 'gone', 'gone.toml', '--secret-env', 'HOOK_SECRET'],
    { cwd: dir },
  );
  expect(gone.code).toBe(0);
  rmSync(join(dir, 'gone.toml'));
  serve = await startServe({ dir, env: { HOOK_SECRET: SECRET } });
});

afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /api/v1/triggers/{name}', () => {
  const body = JSON.stringify({ action: 'opened', pull_request: { number: 42, title: 'Fix it' } });

  it('a signed delivery makes one run with the mapped inputs; delivered twice, still one run', async () => {
    const first = await deliver('gh', body, { 'x-hub-signature-256': sign(body), 'x-github-delivery': 'd-0001' });
    expect(first).toMatchObject({ status: 201, body: { created: true } });
    const again = await deliver('gh', body, { 'x-hub-signature-256': sign(body), 'x-github-delivery': 'd-0001' });
    expect(again).toEqual({ status: 200, body: { run_id: first.body.run_id, created: false } });
    const runs = await triggeredRuns();
    expect(runs.map((run) => run.id)).toEqual([first.body.run_id]);
    const run = await callApi<{ run: { labels: Record<string, string>; inputs: Record<string, unknown> } }>(
      serve,
      'GET',
      `/runs/${first.body.run_id}`,
    );
    expect(run.body.run.inputs).toEqual({ number: 42, action: 'opened' });
    expect(run.body.run.labels).toMatchObject({ 'weft.trigger': 'gh', 'weft.delivery': 'd-0001' });
    const cli = (...args: string[]) => runCli(['--storage-dir', join(dir, '.home'), '--cwd', dir, ...args], { cwd: dir });
    const [ps, inspect] = await Promise.all([cli('ps', '--all'), cli('inspect', first.body.run_id!)]);
    expect(ps.stdout).toMatch(new RegExp(`${first.body.run_id}.*\\[trigger gh\\]`));
    expect(inspect.stdout).toContain('made by   trigger gh, delivery d-0001');
  });

  it('refuses bad requests with a clear 4xx and stores nothing', async () => {
    const before = (await triggeredRuns()).length;
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    const cases: [string, string, string, Record<string, string>, number, string, RegExp][] = [
      ['unsigned', 'gh', body, { 'x-github-delivery': 'd-u' }, 401, 'SIGNATURE_MISSING', /Unsigned delivery/],
      [
        'badly signed',
        'gh',
        body,
        { 'x-hub-signature-256': sign(body, 'wrong-secret'), 'x-github-delivery': 'd-b' },
        401,
        'SIGNATURE_INVALID',
        /does not match/,
      ],
      [
        'signed for another body',
        'gh',
        body,
        { 'x-hub-signature-256': sign(`${body} `), 'x-github-delivery': 'd-c' },
        401,
        'SIGNATURE_INVALID',
        /does not match/,
      ],
      [
        'not a signature',
        'gh',
        body,
        { 'x-hub-signature-256': 'sha1=abc', 'x-github-delivery': 'd-s' },
        401,
        'SIGNATURE_INVALID',
        /does not match/,
      ],
      [
        'oversized',
        'gh',
        big,
        { 'x-hub-signature-256': sign(big), 'x-github-delivery': 'd-o' },
        413,
        'TOO_LARGE',
        /larger than 1048576 bytes/,
      ],
      [
        'malformed JSON',
        'gh',
        '{"action": ',
        { 'x-hub-signature-256': sign('{"action": '), 'x-github-delivery': 'd-m' },
        400,
        'INVALID_JSON',
        /not valid JSON/,
      ],
      [
        'a JSON array',
        'gh',
        '[1]',
        { 'x-hub-signature-256': sign('[1]'), 'x-github-delivery': 'd-a' },
        400,
        'INVALID_JSON',
        /must be a JSON object/,
      ],
      ['no delivery id', 'gh', body, { 'x-hub-signature-256': sign(body) }, 400, 'DELIVERY_ID_MISSING', /delivery id/],
      [
        'inputs that do not fit',
        'gh',
        '{"pull_request": {"number": "x"}}',
        { 'x-hub-signature-256': sign('{"pull_request": {"number": "x"}}'), 'x-github-delivery': 'd-i' },
        400,
        'RUN_INVALID_PARAMS',
        /number/,
      ],
      [
        'unknown trigger',
        'nope',
        body,
        { 'x-hub-signature-256': sign(body), 'x-github-delivery': 'd-n' },
        404,
        'TRIGGER_NOT_FOUND',
        /No trigger named 'nope'/,
      ],
      [
        "the trigger's workflow file gone",
        'gone',
        body,
        { 'x-hub-signature-256': sign(body), 'x-github-delivery': 'd-g' },
        404,
        'FILE_NOT_FOUND',
        /gone\.toml' does not exist/,
      ],
      [
        "the secret's variable not set on the server",
        'unset',
        body,
        { 'x-hub-signature-256': sign(body), 'x-github-delivery': 'd-x' },
        503,
        'TRIGGER_SECRET_MISSING',
        /UNSET_HOOK_SECRET is not set/,
      ],
    ];
    for (const [what, name, text, headers, status, code, message] of cases) {
      const answer = await deliver(name, text, headers);
      expect({ what, status: answer.status, code: answer.body.error?.code }).toEqual({ what, status, code });
      expect(answer.body.error?.message).toMatch(message);
      expect(answer.body.error?.hint).toBe(httpErrorRow(code as HttpErrorCode).hint);
    }
    expect(await triggeredRuns()).toHaveLength(before);
    // A refused delivery id is not used up: the same id, signed, makes its run.
    const later = await deliver('gh', body, { 'x-hub-signature-256': sign(body), 'x-github-delivery': 'd-u' });
    expect(later).toMatchObject({ status: 201, body: { created: true } });
  });

  it('needs no bearer token, while the rest of the API still does; the secret is nowhere', async () => {
    expect((await callApi(serve, 'GET', '/triggers', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
    const listed = await callApi<{ triggers: { name: string; secret_env: string }[] }>(serve, 'GET', '/triggers');
    expect(listed.body.triggers).toEqual([
      expect.objectContaining({ name: 'gh', secret_env: 'HOOK_SECRET' }),
      expect.objectContaining({ name: 'gone', secret_env: 'HOOK_SECRET' }),
      expect.objectContaining({ name: 'unset', secret_env: 'UNSET_HOOK_SECRET' }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    const database = await readFile(join(dir, '.home', 'weft.db'));
    expect(database.includes(SECRET)).toBe(false);
    expect(serve.output()).not.toContain(SECRET);
  });
});

describe('/api/v1/schedules', () => {
  it('adds, reads, pauses, resumes and removes a schedule; refuses a bad cron and an unknown name', async () => {
    const added = await callApi<{ schedule: { name: string; next_due: string; paused: boolean; source: string } }>(
      serve,
      'POST',
      '/schedules',
      { name: 'nightly', workflow: 'pr.toml', cron: '0 3 * * *', timezone: 'UTC', inputs: { number: 7 } },
    );
    expect(added.status).toBe(201);
    expect(added.body.schedule).toMatchObject({ name: 'nightly', paused: false, source: 'api' });
    expect(added.body.schedule.next_due).toMatch(/T03:00:00.000Z$/);
    expect(
      (await callApi(serve, 'POST', '/schedules', { name: 'nightly', workflow: 'pr.toml', cron: '0 3 * * *', inputs: { number: 7 } }))
        .status,
    ).toBe(409);
    const bad = await callApi<{ error: { code: string; message: string } }>(serve, 'POST', '/schedules', {
      name: 'bad',
      workflow: 'pr.toml',
      cron: '0 25 * * *',
      inputs: { number: 7 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'SCHEDULE_INVALID' });
    const outside = await callApi<{ error: { code: string } }>(serve, 'POST', '/schedules', {
      name: 'out',
      workflow: '../../etc/passwd',
      cron: '0 3 * * *',
    });
    expect(outside.status).toBe(400);
    expect((await callApi<{ schedule: { paused: boolean } }>(serve, 'POST', '/schedules/nightly/pause')).body.schedule.paused).toBe(true);
    expect((await callApi<{ schedule: { paused: boolean } }>(serve, 'POST', '/schedules/nightly/resume')).body.schedule.paused).toBe(false);
    expect(
      (await callApi<{ schedules: { name: string }[] }>(serve, 'GET', '/schedules')).body.schedules.map((schedule) => schedule.name),
    ).toEqual(['nightly']);
    expect((await callApi(serve, 'DELETE', '/schedules/nightly')).status).toBe(204);
    expect((await callApi(serve, 'GET', '/schedules/nightly')).status).toBe(404);
    expect((await callApi(serve, 'GET', '/schedules', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
  });
});

describe('weft schedule add: errors', () => {
  it('names the bad cron, zone, policy and workflow, exits 2 and stores nothing', async () => {
    const home = join(dir, '.cli-home');
    const add = (...args: string[]) => runCli(['--storage-dir', home, '--cwd', dir, 'schedule', 'add', 'x', ...args], { cwd: dir });
    for (const [args, message] of [
      [['pr.toml', '--cron', '61 * * * *', '--input', 'number=1'], /invalid cron expression "61 \* \* \* \*".*minute/],
      [['pr.toml', '--cron', '0 3 * * *', '--timezone', 'Mars/Olympus', '--input', 'number=1'], /unknown time zone 'Mars\/Olympus'/],
      [
        ['pr.toml', '--cron', '0 3 * * *', '--overlap', 'never', '--input', 'number=1'],
        /overlap must be one of skip, queue, cancel-previous/,
      ],
      [['missing.toml', '--cron', '0 3 * * *'], /missing\.toml' does not exist/],
      [['pr.toml', '--cron', '0 3 * * *'], /input 'number' is required/],
    ] as const) {
      const result = await add(...args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(message);
    }
    const list = await runCli(['--storage-dir', home, '--cwd', dir, 'schedule', 'list'], { cwd: dir });
    expect(list.stdout).toContain('No schedules.');
  });
});
