/**
 * The sandbox attack list from a CLI-backend stage: real Claude Code (against the fake
 * model server, reached through the sandbox's proxy) runs the attack script with its own
 * Bash tool, inside the run's OS sandbox. Each attack must be refused, nothing written
 * outside, nothing leaked; the allowed actions must work.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSandboxFactory } from '../src/app/runner/run-sandbox.js';
import { loadSettings } from '../src/core/settings/settings.js';
import type { RunEvent } from '../src/runs/model/run-event.js';
import { createClaudeKit, type ClaudeKit } from './kits/cli-backend-kit.js';
import { createEngineKit, type EngineKit } from './kits/engine-kit.js';
import { attacks, daemonsAlive, OTHER_RUN_SECRET, results, script, SSH_SECRET, type Fixture } from './kits/sandbox-attack-kit.js';
import type { RecordedRequest, ScriptOutcome } from './fixtures/model-server/model-server.js';

let kit: EngineKit;
let claude: ClaudeKit;
let fixture: Fixture;
let servers: Server[] = [];
let output = '';
let status = '';
let events: RunEvent[] = [];

async function listen(answer: string): Promise<Server> {
  const server = createServer((_request, response) => response.end(answer));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return server;
}

function claudeScript(request: RecordedRequest): ScriptOutcome {
  const results = request.messages.filter((message) => message.role === 'tool').length;
  if (results === 0)
    return {
      toolCalls: [{ name: 'Bash', arguments: { command: script(fixture, 'claude'), description: 'Run the checks', timeout: 120_000 } }],
    };
  return { text: 'done' };
}

beforeAll(async () => {
  const allowed = await listen('allowed-host-answer');
  const denied = await listen('denied-host-answer');
  servers = [allowed, denied];
  let storage = '';
  kit = await createEngineKit({
    sandboxFactory: (run, workflow, onViolation, workDir) =>
      runSandboxFactory({
        storageDir: storage,
        settings: () => loadSettings({ storageDir: storage, workspaceRoot: run.cwd }),
        env: { ...process.env, HOME: fixture.home },
      })(run, workflow, onViolation, workDir),
  });
  const root = kit.dir;
  storage = join(root, '.storage');
  fixture = {
    root,
    home: join(root, '.home'),
    project: root,
    storage,
    outside: `${root}-outside`,
    allowedPort: (allowed.address() as AddressInfo).port,
    deniedPort: (denied.address() as AddressInfo).port,
    daemonMark: `weft-daemon-${process.pid}-${Date.now()}`,
  };
  await mkdir(join(fixture.home, '.ssh'), { recursive: true });
  await writeFile(join(fixture.home, '.ssh', 'id_ed25519'), SSH_SECRET);
  await mkdir(join(storage, 'workspaces', '01OTHERRUN'), { recursive: true });
  await writeFile(join(storage, 'workspaces', '01OTHERRUN', 'notes.txt'), OTHER_RUN_SECRET);
  await writeFile(join(storage, 'weft.db'), 'SQLite format 3');
  await mkdir(fixture.outside, { recursive: true });
  await writeFile(join(root, 'README.md'), 'project readme\n');
  await symlink(join(fixture.outside, 'via-link.txt'), join(root, 'planted-link'));
  claude = await createClaudeKit(kit, claudeScript);
  const file = await kit.write(
    'wf.toml',
    `[run.sandbox]\nmode = "os"\nmax_processes = 400\nnetwork = { allow = ["127.0.0.1:${fixture.allowedPort}"] }\n\n[nodes.code]\nkind = "agent"\nbackend = "cli"\ncli = "claude"\nmodel = "anthropic:claude-test"\nmax_turns = 4\nprompt = "Run the checks."\n`,
  );
  const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
  await kit.runUntilIdle({ agent: claude.agent });
  status = (await kit.service.get(created.id)).status;
  events = await kit.events(created.id);
  const finished = events.find((event) => event.type === 'tool-call-finished')?.payload;
  output = typeof finished?.text === 'string' ? finished.text : JSON.stringify(events.map((event) => [event.type, event.payload]));
}, 240_000);

afterAll(async () => {
  await claude?.close();
  for (const server of servers) await new Promise((done) => server.close(() => done(undefined)));
  if (fixture) await rm(fixture.outside, { recursive: true, force: true });
  await kit?.close();
});

describe('sandboxed attacks from a Claude Code stage', () => {
  it('the stage succeeds, its CLI inside the sandbox', () => {
    expect(status, output).toBe('succeeded');
  });

  it.each(
    attacks({ root: '', home: '', project: '', storage: '', outside: '', allowedPort: 0, deniedPort: 0, daemonMark: '' }, 'claude').map(
      (attack) => [attack.name, attack.expect] as const,
    ),
  )('%s → %s', (name, expected) => {
    expect(results(output)[name], output).toBe(expected);
  });

  it('leaks no secret, writes nothing outside the workspace and leaves no daemon', async () => {
    expect(output).not.toContain(SSH_SECRET);
    expect(output).not.toContain(OTHER_RUN_SECRET);
    expect(output).not.toContain('denied-host-answer');
    expect(await readdir(fixture.outside)).toEqual([]);
    expect(existsSync(join(fixture.project, 'claude-allowed.txt'))).toBe(true);
    expect(daemonsAlive(`${fixture.daemonMark}-claude`)).toEqual([]);
  });
});
