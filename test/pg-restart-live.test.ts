/**
 * Scenario 3, the live surfaces: PostgreSQL stops and starts again while a run is mid-stage
 * and its stage ends during the outage. `weft serve` (its API, its /mcp endpoint and its
 * worker) is not restarted; the dashboard's live runs list (the SSE stream the page reads)
 * and an MCP client subscribed to the run's resource over Streamable HTTP both learn that
 * the run succeeded. This file starts a PostgreSQL of its own, since it stops it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readLines, until } from './fixtures/workflows-e2e/harness.js';
import { startEmbeddedPostgres, type TestPostgres } from './helpers/postgres.js';
import { callApi, readStream, startServe, type Serve } from './helpers/serve-kit.js';

const HOLD = `
[workflow]
name = "hold"

[nodes.hold]
kind = "command"
run = '''
echo started >> hold-starts.txt
while [ ! -f release.marker ]; do sleep 0.05; done
echo ended >> hold-starts.txt
'''
next = "two"

[nodes.two]
kind = "command"
run = 'echo two'
`;

let server: TestPostgres;
let serve: Serve | undefined;
let client: Client | undefined;
beforeAll(async () => {
  server = await startEmbeddedPostgres();
}, 120_000);
afterAll(async () => {
  await client?.close().catch(() => undefined);
  await serve?.stop();
  await server.dispose();
}, 60_000);

async function runStatus(uri: string): Promise<string | undefined> {
  const read = await client!.readResource({ uri });
  const first = read.contents[0];
  return (JSON.parse(first && 'text' in first ? first.text : '{}') as { run?: { status?: string } }).run?.status;
}

it('the live runs list and an MCP resource subscription learn of a run that ended across a PostgreSQL restart', async () => {
  serve = await startServe({ env: { WEFT_DATABASE_URL: await server.createDatabase(), WEFT_LEASE_MS: '10000' } });
  await writeFile(join(serve.dir, 'hold.toml'), HOLD);
  const created = await callApi<{ run: { id: string } }>(serve, 'POST', '/runs', { workflow: 'hold.toml', auto_approve: true });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.run.id;
  await until(
    'hold to start',
    async () => ((await readLines(join(serve!.dir, 'hold-starts.txt'))).length === 1 ? true : undefined),
    60_000,
  );

  // The dashboard's live list, opened before the outage and kept open across it.
  let listOpen!: () => void;
  const opened = new Promise<void>((resolve) => (listOpen = resolve));
  const list = readStream<{ id: string; status: string }>(
    serve,
    '/runs',
    (messages) => messages.some((message) => message.data.id === id && message.data.status === 'succeeded'),
    undefined,
    () => listOpen(),
  );
  await opened;
  // A client waiting on the run through a resource subscription (a 2025-era session).
  client = new Client({ name: 'waiting-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${serve.token}` } },
    }),
  );
  const uri = `weft://runs/${id}`;
  let learned: ((status: string) => void) | undefined;
  const finished = new Promise<string>((resolve) => (learned = resolve));
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    if (notification.params.uri !== uri) return;
    // What a waiting client does on a notice: read the run again. A read during the outage fails; the next notice reads again.
    void runStatus(uri)
      .then((status) => status === 'succeeded' && learned?.(status))
      .catch(() => undefined);
  });
  await client.subscribeResource({ uri });

  await server.stop();
  // The stage ends while the database is away; its end is recorded once it is back.
  await writeFile(join(serve.dir, 'release.marker'), '');
  await until(
    'the stage process to end',
    async () => ((await readLines(join(serve!.dir, 'hold-starts.txt'))).length === 2 ? true : undefined),
    10_000,
  );
  await server.start();
  const back = Date.now();

  const messages = await list;
  const listMs = Date.now() - back;
  expect(messages.filter((message) => message.data.id === id).at(-1)?.data.status).toBe('succeeded');
  expect(await finished).toBe('succeeded');
  const mcpMs = Date.now() - back;
  expect(await runStatus(uri)).toBe('succeeded');
  // When the run's end was recorded: the notices came with it, not later.
  const ended = await callApi<{ run: { finished_at: string } }>(serve, 'GET', `/runs/${id}`);
  const recordedMs = Date.parse(ended.body.run.finished_at) - back;
  expect(listMs).toBeGreaterThanOrEqual(recordedMs);
  console.log(
    `PostgreSQL restarted with a run whose stage ended during the outage: its end recorded ${recordedMs} ms after the server was back; the live list showed it ${listMs} ms after, the MCP subscriber learned it ${mcpMs} ms after`,
  );
}, 180_000);
