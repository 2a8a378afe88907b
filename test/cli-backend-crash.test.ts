/**
 * A runner is killed (SIGKILL) while its CLI stage (Claude Code, Codex, Gemini CLI) runs a
 * shell tool: its watchdog ends the CLI's process group (with the MCP server it started) at
 * once; the next runner ends what the CLI ran in a session of its own (Claude Code's shell,
 * found by the stage's `WEFT_STAGE_PROCESS` marker), records the attempt as abandoned and
 * runs the stage again as a new attempt, resuming the CLI's session, to the end: the model
 * sees the earlier conversation and weft's resume message; no process of the stage is left.
 * Real processes: `weft run --detach`, `weft worker`, the real CLIs against the fake model
 * server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { groupAlive } from '../src/core/process-group.js';
import { markedProcesses } from '../src/core/marked-processes.js';
import { WEFT_BIN } from './helpers/run-cli.js';
import { createSandbox, isAlive, readLines, stopProcesses, until, type Sandbox } from './fixtures/workflows-e2e/harness.js';
import { CLI_E2E_CASES, type CliE2eCase } from './kits/cli-e2e-cases.js';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';
import { CLI_RESUME_MESSAGE } from '../src/agent/cli-backend/cli-resume.js';

vi.setConfig({ testTimeout: 90_000 });

const LEASE = { WEFT_LEASE_MS: '600' };
const MEMORY_SERVER = join(process.cwd(), 'node_modules/.bin/mcp-server-memory');
// The tool holds the stage until the test releases it; it never returns on its own.
const HOLD = 'echo started >> starts.txt; while [ ! -f release.marker ]; do sleep 0.1; done';

const PROMPT = 'Hold on.';

let box: Sandbox;
let server: ModelServer | undefined;
let worker: ChildProcess | undefined;

/** Processes whose working directory is in the workspace: the CLI and everything it started. */
async function processesIn(dir: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => '');
    if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(Number(entry));
  }
  return found;
}

beforeEach(async () => {
  box = await createSandbox();
  worker = undefined;
  server = undefined;
});

/** The model: the first session holds in the shell; a resumed one finishes; a new session after that finishes too, saying so. */
async function setUp(test: CliE2eCase): Promise<ModelServer> {
  let held = false;
  server = await startModelServer({
    script: (request) => {
      const resumed = request.messages.some((message) => message.role === 'user' && message.text.includes(CLI_RESUME_MESSAGE));
      if (resumed) return { text: 'done after the crash' };
      if (held) return { text: 'done afresh' };
      held = true;
      return { toolCalls: [test.shellCall(HOLD)] };
    },
  });
  await mkdir(join(box.ws, '.weft'), { recursive: true });
  await writeFile(join(box.ws, '.weft', 'settings.toml'), `[cli.${test.cli}]\npath = "${test.binary}"\n`);
  await writeFile(join(box.ws, '.mcp.json'), JSON.stringify({ mcpServers: { memory: { command: MEMORY_SERVER, args: [] } } }));
  await writeFile(
    join(box.ws, 'cli.toml'),
    [
      '[workflow]',
      'name = "crash"',
      'start = "code"',
      '[run]',
      'approval = [{ pattern = "shell", action = "allow" }, { pattern = "mcp__memory__*", action = "allow" }]',
      '[nodes.code]',
      'kind = "agent"',
      'backend = "cli"',
      `cli = "${test.cli}"`,
      `model = "${test.model}"`,
      `prompt = "${PROMPT}"`,
    ].join('\n'),
  );
  return server;
}

afterEach(async () => {
  if (worker?.pid !== undefined && worker.exitCode === null && worker.signalCode === null) await stopProcesses([worker.pid]);
  await writeFile(join(box.ws, 'release.marker'), '');
  const left = await processesIn(box.ws);
  if (left.length > 0) await stopProcesses(left);
  await server?.close();
  await box.dispose();
});

/** Starts the stage, waits for its shell command, SIGKILLs the runner; checks the CLI's group went with it. */
async function crashDuringHold(test: CliE2eCase, server: ModelServer): Promise<{ id: string; env: Record<string, string> }> {
  const env = { ...test.env(server), ...LEASE };
  const detached = await box.cli(['run', 'cli.toml', '--detach', '--auto-approve'], env);
  expect(detached.code, detached.stderr).toBe(0);
  const id = detached.stdout.trim();
  await until('the tool to start', async () => ((await readLines(join(box.ws, 'starts.txt'))).length === 1 ? true : undefined), 45_000);

  const running = await box.inspect(id);
  expect(running).toMatchObject({ status: 'running', currentStageId: 'code@1' });
  const runner = Number(running.lease!.workerId.split('-')[0]);
  const inWorkspace = await processesIn(box.ws);
  // The CLI, the memory server, the tool's shell (and its sleep).
  expect(inWorkspace.length).toBeGreaterThanOrEqual(3);

  const cliGroup = Number((await box.events(id, '--json')).find((event) => event.type === 'stage-process-started')!.payload.pgid);
  process.kill(runner, 'SIGKILL');
  await until('the runner to die', async () => ((await isAlive(runner)) ? undefined : true));
  // The runner's watchdog ends the CLI's group (with the MCP server it started) at once.
  await until("the CLI's process group to be ended", async () => (groupAlive(cliGroup) ? undefined : true));
  // Claude Code's shell, in a session of its own, is still there: only its marker finds it.
  if (test.shellInOwnSession) expect((await markedProcesses(`${id}/code@1`)).length).toBeGreaterThan(0);
  return { id, env };
}

/** A worker takes the run over; resolves once the run has succeeded, with the worker's exit to come. */
async function takeOver(id: string, env: Record<string, string>): Promise<{ exited: Promise<number | null> }> {
  worker = spawn(process.execPath, [WEFT_BIN, '--cwd', box.ws, 'worker', '--until-idle'], {
    cwd: box.ws,
    env: { ...process.env, ...box.env, ...env },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => worker!.once('exit', (code) => resolve(code)));
  const waited = await box.cli(['wait', id, '--timeout', '60']);
  expect(waited.stdout).toBe(`${id}  succeeded\n`);
  return { exited };
}

describe.each(CLI_E2E_CASES)('a $displayName stage whose runner is killed', (test) => {
  it('leaves no process behind, and the next runner resumes the session as a new attempt to the end', async () => {
    expect(test.binary !== undefined && existsSync(test.binary)).toBe(true);
    const server = await setUp(test);
    const { id, env } = await crashDuringHold(test, server);
    const { exited: workerExited } = await takeOver(id, env);

    const events = await box.events(id, '--json');
    const stages = events.filter((event) => event.type === 'stage-finished').map((event) => [event.stageId, event.payload.status]);
    expect(stages).toEqual([
      ['code@1', 'abandoned'],
      ['code@2', 'succeeded'],
    ]);
    expect(events.find((event) => event.type === 'stage-finished' && event.stageId === 'code@2')!.payload.output).toBe(
      'done after the crash',
    );
    // The second attempt resumed the first one's CLI session: the model saw the first task, then weft's resume message.
    const sessions = events.filter((event) => event.type === 'agent-started').map((event) => [event.stageId, event.payload.session]);
    expect(sessions).toHaveLength(2);
    expect(sessions[1]![1]).toBe(sessions[0]![1]);
    const resumed = server.requests.filter((request) =>
      request.messages.some((message) => message.role === 'user' && message.text.includes(CLI_RESUME_MESSAGE)),
    );
    expect(resumed.length).toBeGreaterThan(0);
    // (Gemini CLI had not saved the model's unfinished turn: its resumed request holds the task, then the resume message.)
    const said = resumed[0]!.messages
      .filter((message) => message.role === 'user')
      .map((message) => message.text)
      .join('\n');
    expect(said.indexOf(PROMPT)).toBeGreaterThanOrEqual(0);
    expect(said.indexOf(PROMPT)).toBeLessThan(said.indexOf(CLI_RESUME_MESSAGE));
    expect(await readLines(join(box.ws, 'starts.txt'))).toEqual(['started']);
    // What the CLI ran in a session of its own was ended by its marker; once the
    // worker is done (and its watchdog with it), nothing runs in the workspace.
    expect(await markedProcesses(`${id}/code@1`)).toEqual([]);
    expect(await workerExited).toBe(0);
    await until('the worker and its watchdog to be gone', async () => ((await processesIn(box.ws)).length === 0 ? true : undefined));
  });

  it('starts a new session once, as the same attempt, when the CLI no longer has the earlier one', async () => {
    const server = await setUp(test);
    const { id, env } = await crashDuringHold(test, server);
    // The stage's folder (the CLI's saved session with it) is gone before the run is taken over.
    await rm(join(box.home, 'cli-stages', id), { recursive: true, force: true });
    await writeFile(join(box.ws, 'release.marker'), '');
    await takeOver(id, env);
    const events = await box.events(id, '--json');
    expect(
      events.filter((event) => event.type === 'stage-finished').map((event) => [event.stageId, event.payload.status, event.payload.output]),
    ).toEqual([
      ['code@1', 'abandoned', null],
      ['code@2', 'succeeded', 'done afresh'],
    ]);
    const sessions = events.filter((event) => event.type === 'agent-started').map((event) => event.payload.session);
    expect(sessions.at(-1)).not.toBe(sessions[0]);
  });
});
