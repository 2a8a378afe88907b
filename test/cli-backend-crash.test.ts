/**
 * A runner is killed (SIGKILL) while its Claude Code stage runs a tool: its watchdog ends
 * Claude Code's process group (with the MCP server it started) at once; the next runner
 * ends the tool's shell, which Claude Code ran in a session of its own (found by the
 * stage's `WEFT_STAGE_PROCESS` marker), records the attempt as abandoned and runs the
 * stage again as a new attempt, resuming Claude Code's session, to the end; no process of
 * the stage is left. Real processes: `weft run --detach`, `weft worker`, the real Claude Code
 * against the fake model server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readlink, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { groupAlive } from '../src/core/process-group.js';
import { markedProcesses } from '../src/core/marked-processes.js';
import { WEFT_BIN } from './helpers/run-cli.js';
import { createSandbox, isAlive, readLines, stopProcesses, until, type Sandbox } from './fixtures/workflows-e2e/harness.js';
import { CLAUDE_BINARY, claudeTestEnv } from './kits/cli-backend-kit.js';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';
import { RESUME_MESSAGE } from '../src/agent/cli-backend/claude-code-adapter.js';

vi.setConfig({ testTimeout: 90_000 });

const LEASE = { WEFT_LEASE_MS: '600' };
const MEMORY_SERVER = join(process.cwd(), 'node_modules/.bin/mcp-server-memory');
// The tool holds the stage until the test releases it; it never returns on its own.
const HOLD = 'echo started >> starts.txt; while [ ! -f release.marker ]; do sleep 0.1; done';

let box: Sandbox;
let server: ModelServer;
let worker: ChildProcess | undefined;

/** Processes whose working directory is in the workspace: Claude Code and everything it started. */
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
  server = await startModelServer({
    script: (request) => {
      const resumed = request.messages.some((message) => message.role === 'user' && message.text.includes(RESUME_MESSAGE));
      if (resumed) return { text: 'done after the crash' };
      return { toolCalls: [{ name: 'Bash', arguments: { command: HOLD, description: 'Hold' } }] };
    },
  });
  await mkdir(join(box.ws, '.weft'), { recursive: true });
  await writeFile(join(box.ws, '.weft', 'settings.toml'), `[cli.claude]\npath = "${CLAUDE_BINARY}"\n`);
  await writeFile(join(box.ws, '.mcp.json'), JSON.stringify({ mcpServers: { memory: { command: MEMORY_SERVER, args: [] } } }));
  await writeFile(
    join(box.ws, 'claude.toml'),
    ['[workflow]', 'name = "crash"', 'start = "code"', '[run]', 'approval = [{ pattern = "shell", action = "allow" }]', '[nodes.code]', 'kind = "agent"', 'backend = "cli"', 'cli = "claude"', 'prompt = "Hold on."'].join('\n'),
  );
});

afterEach(async () => {
  if (worker?.pid !== undefined && worker.exitCode === null && worker.signalCode === null) await stopProcesses([worker.pid]);
  await writeFile(join(box.ws, 'release.marker'), '');
  const left = await processesIn(box.ws);
  if (left.length > 0) await stopProcesses(left);
  await server.close();
  await box.dispose();
});

describe('a Claude Code stage whose runner is killed', () => {
  it('leaves no process behind, and the next runner resumes the session as a new attempt to the end', async () => {
    const env = { ...claudeTestEnv(server), ...LEASE };
    const detached = await box.cli(['run', 'claude.toml', '--detach', '--auto-approve'], env);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    await until('the tool to start', async () => ((await readLines(join(box.ws, 'starts.txt'))).length === 1 ? true : undefined), 45_000);

    const running = await box.inspect(id);
    expect(running).toMatchObject({ status: 'running', currentStageId: 'code@1' });
    const runner = Number(running.lease!.workerId.split('-')[0]);
    const inWorkspace = await processesIn(box.ws);
    // Claude Code, the memory server, the tool's shell (and its sleep).
    expect(inWorkspace.length).toBeGreaterThanOrEqual(3);

    const claudeGroup = Number((await box.events(id, '--json')).find((event) => event.type === 'stage-process-started')!.payload.pgid);
    process.kill(runner, 'SIGKILL');
    await until('the runner to die', async () => ((await isAlive(runner)) ? undefined : true));
    // The runner's watchdog ends Claude Code's group (with the MCP server it started) at once.
    await until("Claude Code's process group to be ended", async () => (groupAlive(claudeGroup) ? undefined : true));
    // The tool's shell, in a session of its own, is still there: only its marker finds it.
    expect((await markedProcesses(`${id}/code@1`)).length).toBeGreaterThan(0);

    worker = spawn(process.execPath, [WEFT_BIN, '--cwd', box.ws, 'worker', '--until-idle'], { cwd: box.ws, env: { ...process.env, ...box.env, ...env }, stdio: 'ignore' });
    const workerExited = new Promise<number | null>((resolve) => worker!.once('exit', (code) => resolve(code)));
    const waited = await box.cli(['wait', id, '--timeout', '60']);
    expect(waited.stdout).toBe(`${id}  succeeded\n`);

    const events = await box.events(id, '--json');
    const stages = events.filter((event) => event.type === 'stage-finished').map((event) => [event.stageId, event.payload.status]);
    expect(stages).toEqual([
      ['code@1', 'abandoned'],
      ['code@2', 'succeeded'],
    ]);
    expect(events.find((event) => event.type === 'stage-finished' && event.stageId === 'code@2')!.payload.output).toBe('done after the crash');
    // The second attempt resumed the first one's Claude Code session.
    const sessions = events.filter((event) => event.type === 'agent-started').map((event) => [event.stageId, event.payload.session]);
    expect(sessions).toHaveLength(2);
    expect(sessions[1]![1]).toBe(sessions[0]![1]);
    expect(server.requests.some((request) => request.messages.some((message) => message.role === 'user' && message.text.includes(RESUME_MESSAGE)))).toBe(true);
    expect(await readLines(join(box.ws, 'starts.txt'))).toEqual(['started']);
    // The shell command Claude Code ran in a session of its own was ended by its marker; once the
    // worker is done (and its watchdog with it), nothing runs in the workspace.
    expect(await markedProcesses(`${id}/code@1`)).toEqual([]);
    expect(await workerExited).toBe(0);
    await until('the worker and its watchdog to be gone', async () => ((await processesIn(box.ws)).length === 0 ? true : undefined));
  });
});
