/**
 * Runtime MCP registration over HTTP (spec §3.8): `POST /api/v1/mcp/servers` adds the
 * official `server-everything` while an agent stage runs in a separate runner process
 * (`weft serve --no-worker` beside a `weft worker` process); the stage's next model turn
 * offers its tools and can call them; `DELETE` takes them away from the turn after; each
 * change is an event in the run. Bad registrations get clear errors and store nothing.
 * The model is the fake wire-compatible server; every wait is on a condition.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_ENV } from './fixtures/model-server/agent-kit.js';
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptOutcome } from './fixtures/model-server/model-server.js';
import { REPO_ROOT, WEFT_BIN } from './helpers/run-cli.js';
import { callApi, readEvents, startServe, untilStatus, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const ECHO = 'mcp__everything__echo';

const WORKFLOW = `
[workflow]
name = "helper"
[nodes.help]
kind = "agent"
prompt = "Help out."
`;

interface Gate {
  open(): void;
  opened: Promise<void>;
}
function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

interface ErrorBody {
  error: { code: string; message: string };
}
interface ServerView {
  name: string;
  source: string;
  status: string;
  tools: number;
  tool_names: string[];
}

let model: ModelServer;
let serve: Serve;
let worker: ChildProcess | undefined;
/** Turn n's request arrived at the model (index 0 is the first turn). */
const arrived = [gate(), gate(), gate(), gate()];
/** The test lets turn n's answer go. */
const release = [gate(), gate(), gate(), gate()];

const toolNames = (request: RecordedRequest | undefined): string[] => (request?.tools ?? []).map((tool) => tool.name);

async function script(request: RecordedRequest, index: number): Promise<ScriptOutcome> {
  arrived[index]?.open();
  await release[index]?.opened;
  switch (index) {
    case 0:
    case 2:
      return { toolCalls: [{ name: 'glob', arguments: { pattern: '*.toml' } }] };
    case 1:
      return { toolCalls: [{ name: ECHO, arguments: { message: 'hello from a server added at runtime' } }] };
    default:
      return { text: 'All done.' };
  }
}

beforeAll(async () => {
  model = await startModelServer({ script });
  serve = await startServe({ args: ['--no-worker'], env: TEST_ENV });
  mkdirSync(join(serve.dir, '.weft'), { recursive: true });
  writeFileSync(
    join(serve.dir, '.weft', 'settings.toml'),
    `[llm]\nprovider = "anthropic"\nmodel = "claude-test"\nbase_url = "${model.baseUrl('anthropic')}"\n`,
  );
  writeFileSync(join(serve.dir, 'helper.toml'), WORKFLOW);
  worker = spawn(process.execPath, [WEFT_BIN, '--storage-dir', serve.storageDir, '--cwd', serve.dir, 'worker'], {
    cwd: serve.dir,
    env: { ...process.env, ...TEST_ENV, WEFT_LEASE_MS: '3000' },
    stdio: 'ignore',
  });
});

afterAll(async () => {
  for (const each of [...arrived, ...release]) each.open();
  if (worker && worker.exitCode === null && worker.signalCode === null) {
    const exited = new Promise((resolve) => worker!.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await serve?.stop();
  await model?.close();
});

describe('runtime MCP registration through weft serve', () => {
  it('reaches a running agent stage on its next turn, and a removed server leaves it the same way, with an event in the run', async () => {
    const run = (await callApi<{ run: { id: string } }>(serve, 'POST', '/runs', { workflow: 'helper.toml', auto_approve: true })).body.run;
    await arrived[0]!.opened;
    expect(toolNames(model.requests[0])).not.toContain(ECHO);

    const added = await callApi<{ server: ServerView }>(serve, 'POST', '/mcp/servers', {
      name: 'everything',
      command: process.execPath,
      args: [EVERYTHING],
    });
    expect(added.status).toBe(201);
    expect(added.body.server).toMatchObject({ name: 'everything', source: 'runtime', status: 'ready' });
    expect(added.body.server.tool_names).toContain(ECHO);
    const [addedEvent] = (await readEvents(serve, run.id, (events) => events.some((event) => event.event === 'mcp-server-added'))).filter(
      (event) => event.event === 'mcp-server-added',
    );
    expect(addedEvent!.data.payload).toMatchObject({ name: 'everything', status: 'ready' });
    release[0]!.open();

    await arrived[1]!.opened;
    expect(toolNames(model.requests[1])).toContain(ECHO);
    release[1]!.open();

    await arrived[2]!.opened;
    const echoed = model.requests[2]!.messages.filter((message) => message.role === 'tool').at(-1);
    expect(echoed).toMatchObject({ role: 'tool', content: expect.stringContaining('hello from a server added at runtime') });
    expect((await callApi(serve, 'DELETE', '/mcp/servers/everything')).status).toBe(204);
    await readEvents(serve, run.id, (events) =>
      events.some((event) => event.event === 'mcp-server-removed' && event.data.payload.name === 'everything'),
    );
    release[2]!.open();

    await arrived[3]!.opened;
    expect(toolNames(model.requests[3])).not.toContain(ECHO);
    release[3]!.open();
    await untilStatus(serve, run.id, 'succeeded');

    const servers = await callApi<{ servers: ServerView[] }>(serve, 'GET', '/mcp/servers');
    expect(servers.body.servers.map((server) => server.name)).not.toContain('everything');
    const gone = await callApi<ErrorBody>(serve, 'DELETE', '/mcp/servers/everything');
    expect([gone.status, gone.body.error.code]).toEqual([404, 'MCP_SERVER_NOT_FOUND']);
  });

  it('refuses an invalid or taken name, an unknown field and an entry .mcp.json would refuse, and stores nothing', async () => {
    expect((await callApi(serve, 'POST', '/mcp/servers', { name: 'memory', command: process.execPath, args: [EVERYTHING] })).status).toBe(
      201,
    );
    const before = (await callApi<{ servers: ServerView[] }>(serve, 'GET', '/mcp/servers')).body.servers;
    const cases: [Record<string, unknown>, number, string, RegExp][] = [
      [{ name: 'bad name!', command: 'node' }, 422, 'CONFIG_INVALID', /MCP server name 'bad name!' is invalid/],
      [{ name: 'memory', command: 'node' }, 409, 'MCP_SERVER_EXISTS', /'memory' was already added/],
      [{ name: 'other', command: 'node', colour: 'red' }, 400, 'INVALID_ARGUMENTS', /colour/],
      [{ name: 'other', url: 'ftp://example.invalid/mcp' }, 422, 'CONFIG_INVALID', /other/],
      [{ name: 'other' }, 422, 'CONFIG_INVALID', /other/],
    ];
    for (const [body, status, code, message] of cases) {
      const answer = await callApi<ErrorBody>(serve, 'POST', '/mcp/servers', body);
      expect([answer.status, answer.body.error.code], answer.body.error.message).toEqual([status, code]);
      expect(answer.body.error.message).toMatch(message);
    }
    expect((await callApi<{ servers: ServerView[] }>(serve, 'GET', '/mcp/servers')).body.servers).toEqual(before);
    expect((await callApi(serve, 'DELETE', '/mcp/servers/memory')).status).toBe(204);
  });
});
