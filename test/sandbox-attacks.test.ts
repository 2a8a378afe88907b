/**
 * `[run.sandbox] mode = "os"` against attacks, through the whole app (settings, worker,
 * bubblewrap): one list of attacks, run from a `command` stage, from the agent's `shell`
 * (scripted model twin) and from a stdio MCP server's own process. Each attack must be
 * refused with nothing written outside the workspace and no secret in any output; the
 * allowed paths (workspace writes, project reads, a host in `network.allow`) must work.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWeftApp, type WeftApp } from '../src/app/weft-app.js';
import type { RunEvent } from '../src/runs/model/run-event.js';
import { TEST_ENV } from './fixtures/model-server/agent-kit.js';
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptOutcome } from './fixtures/model-server/model-server.js';
import { attacks, daemonsAlive, OTHER_RUN_SECRET, results, script, SSH_SECRET, type Fixture } from './kits/sandbox-attack-kit.js';

const ATTACK_SERVER = resolve(dirname(fileURLToPath(import.meta.url)), 'fixtures/servers/attack-server.mjs');
const MAX_PROCESSES = 400;

async function listen(answer: string): Promise<Server> {
  const server = createServer((_request, response) => response.end(answer));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return server;
}

let fixture: Fixture;
let app: WeftApp;
let model: ModelServer;
let servers: Server[] = [];
let outputs: Record<string, string> = {};
let events: RunEvent[] = [];
let status = '';

function modelScript(request: RecordedRequest): ScriptOutcome {
  if (request.messages.length === 1)
    return { toolCalls: [{ name: 'shell', arguments: { command: script(fixture, 'shell'), timeout_ms: 60_000 } }] };
  return { text: 'done' };
}

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'weft-sandbox-attacks-'));
  const allowed = await listen('allowed-host-answer');
  const denied = await listen('denied-host-answer');
  servers = [allowed, denied];
  fixture = {
    root,
    home: join(root, 'home'),
    project: join(root, 'project'),
    storage: join(root, 'storage'),
    outside: join(root, 'outside'),
    allowedPort: (allowed.address() as AddressInfo).port,
    deniedPort: (denied.address() as AddressInfo).port,
    daemonMark: `weft-daemon-${process.pid}-${Date.now()}`,
  };
  await mkdir(join(fixture.home, '.ssh'), { recursive: true });
  await writeFile(join(fixture.home, '.ssh', 'id_ed25519'), SSH_SECRET);
  await mkdir(join(fixture.storage, 'workspaces', '01OTHERRUN'), { recursive: true });
  await writeFile(join(fixture.storage, 'workspaces', '01OTHERRUN', 'notes.txt'), OTHER_RUN_SECRET);
  await mkdir(fixture.outside, { recursive: true });
  await mkdir(join(fixture.project, '.weft'), { recursive: true });
  await writeFile(join(fixture.project, 'README.md'), 'project readme\n');
  await symlink(join(fixture.outside, 'via-link.txt'), join(fixture.project, 'planted-link'));
  model = await startModelServer({ script: modelScript });
  await writeFile(
    join(fixture.project, '.weft', 'settings.toml'),
    `[llm]\nprovider = "anthropic"\nmodel = "claude-test"\nbase_url = "${model.baseUrl('anthropic')}"\n\n[run.sandbox]\nmode = "os"\nmax_processes = ${MAX_PROCESSES}\nnetwork = { allow = ["127.0.0.1:${fixture.allowedPort}"] }\n`,
  );
  await writeFile(
    join(fixture.project, 'attacks.toml'),
    [
      '[run]',
      'approval = [{ pattern = "mcp__attack__*", action = "allow" }]',
      '',
      '[run.agent.mcps.attack]',
      `command = ["${process.execPath}", "${ATTACK_SERVER}"]`,
      '',
      '[nodes.command]',
      'kind = "command"',
      `run = '''\n${script(fixture, 'command')}'''`,
      'next = "agent"',
      '',
      '[nodes.agent]',
      'kind = "agent"',
      'prompt = "Run the script."',
      'tools = ["shell"]',
      'next = "mcp"',
      '',
      '[nodes.mcp]',
      'kind = "tool"',
      'tool = "mcp__attack__run_script"',
      `args = { script = '''\n${script(fixture, 'mcp')}''' }`,
      '',
    ].join('\n'),
  );
  app = await createWeftApp({
    cwd: fixture.project,
    storageDir: fixture.storage,
    env: { ...TEST_ENV, PATH: process.env.PATH, HOME: fixture.home },
    logLevel: 'error',
    runners: 'in-process',
  });
  const runs = await app.runs();
  const created = await runs.create({
    workflow: join(fixture.project, 'attacks.toml'),
    cwd: fixture.project,
    autoApprove: false,
    start: true,
  });
  // Without auto_approve: the agent's shell runs unasked only because the run is sandboxed.
  await runs.approve(created.id);
  const worker = await app.worker({ maxParallel: 1, untilIdle: false });
  const stop = new AbortController();
  const done = worker.run(stop.signal);
  const {
    runs: [finished],
  } = await runs.wait([created.id], 120_000);
  stop.abort();
  await done;
  status = finished?.status ?? 'missing';
  events = await runs.events(created.id, { limit: 5000 });
  const finishedOf = (stage: string) => events.find((event) => event.type === 'stage-finished' && event.stageId === stage)?.payload;
  const toolResult = events.find((event) => event.type === 'tool-call-finished')?.payload;
  const text = (payload: RunEvent['payload'] | undefined) =>
    payload === undefined
      ? ''
      : [payload.output, payload.error, payload.text]
          .map((part) => (typeof part === 'string' ? part : JSON.stringify(part ?? '')))
          .join('\n')
          .replaceAll('\\n', '\n');
  outputs = { command: text(finishedOf('command@1')), shell: text(toolResult), mcp: text(finishedOf('mcp@1')) };
  if (status !== 'succeeded')
    console.error(events.map((event) => `${event.type} ${event.stageId ?? ''} ${JSON.stringify(event.payload).slice(0, 300)}`).join('\n'));
}, 180_000);

afterAll(async () => {
  await app?.close();
  await model?.close();
  for (const server of servers) await new Promise((done) => server.close(() => done(undefined)));
  if (fixture) await rm(fixture.root, { recursive: true, force: true });
});

describe.each(['command', 'shell', 'mcp'])('sandboxed attacks from a %s', (vector) => {
  it('the run succeeds with every stage inside the sandbox', () => {
    expect(status).toBe('succeeded');
  });

  it.each(
    attacks({ root: '', home: '', project: '', storage: '', outside: '', allowedPort: 0, deniedPort: 0, daemonMark: '' }, vector).map(
      (attack) => [attack.name, attack.expect] as const,
    ),
  )('%s → %s', (name, expected) => {
    expect(results(outputs[vector] ?? '')[name], outputs[vector]).toBe(expected);
  });

  it('leaks no secret and writes nothing outside the workspace', async () => {
    const text = outputs[vector] ?? '';
    expect(text).not.toContain(SSH_SECRET);
    expect(text).not.toContain(OTHER_RUN_SECRET);
    expect(text).not.toContain('denied-host-answer');
    expect(await readdir(fixture.outside)).toEqual([]);
    expect(existsSync(join(fixture.project, `${vector}-allowed.txt`))).toBe(true);
    expect(text).toContain('allowed-host-answer');
  });

  it('leaves no daemon behind once its stage (or the run) has ended', () => {
    expect(daemonsAlive(`${fixture.daemonMark}-${vector}`)).toEqual([]);
  });
});

describe('sandbox violations', () => {
  it('are recorded as sandbox-violation events naming what was refused and the setting that allows it', () => {
    const violations = events.filter((event) => event.type === 'sandbox-violation').map((event) => event.payload);
    expect(violations).toContainEqual(
      expect.objectContaining({ kind: 'network', host: '127.0.0.1', port: fixture.deniedPort, setting: 'network.allow' }),
    );
    expect(violations.some((violation) => violation.kind === 'write' && violation.setting === 'allow_write')).toBe(true);
    expect(violations.some((violation) => violation.kind === 'read' && String(violation.path).includes('.ssh'))).toBe(true);
  });
});
