import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { silentLogger } from '../../core/logger.js';
import type { ToolContext, ToolResult } from '../tool.js';
import { createFileReadTracker, resultText } from '../tool.js';
import type { GroupWatchdog } from '../../core/process-watchdog.js';
import { recordingWatchdog } from '../../../test/kits/watchdog-kit.js';
import { runCommand } from './run-command.js';
import { createShellTool, shellTool } from './shell.js';
import { StreamCapture } from './stream-capture.js';

let workspace: string;
let controller: AbortController;
const leftovers: number[] = [];

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'weft-shell-')));
  controller = new AbortController();
});

afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(workspace, { recursive: true, force: true });
});

function context(): ToolContext {
  return { workspaceRoot: workspace, signal: controller.signal, readFiles: createFileReadTracker(), logger: silentLogger };
}

function structured(result: ToolResult): { exitCode: number | null; stdout: string; stderr: string; timedOut: boolean } {
  return result.structuredContent as { exitCode: number | null; stdout: string; stderr: string; timedOut: boolean };
}

/** Dead means gone (ESRCH) or a zombie waiting for a parent that may never reap it. */
function isDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state === 'Z' || state === 'X';
  } catch {
    return true; // vanished between the two checks
  }
}

function readPid(name: string): number {
  const pid = Number(readFileSync(join(workspace, name), 'utf8').trim());
  expect(Number.isInteger(pid) && pid > 0).toBe(true);
  return pid;
}

/** Resolves when `name` appears in the workspace (event-driven, not a sleep). */
function whenFileAppears(name: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(workspace, () => {
      if (existsSync(join(workspace, name))) {
        watcher.close();
        resolve();
      }
    });
    if (existsSync(join(workspace, name))) {
      watcher.close();
      resolve();
    }
  });
}

describe('shell tool', () => {
  it('declares a strict schema and says timeouts are clamped', () => {
    expect(shellTool.name).toBe('shell');
    expect(shellTool.source).toBe('builtin');
    expect(shellTool.inputSchema).toMatchObject({ type: 'object', required: ['command'], additionalProperties: false });
    const properties = shellTool.inputSchema.properties as Record<string, { description?: string }>;
    expect(Object.keys(properties).sort()).toEqual(['command', 'description', 'timeout_ms']);
    for (const property of Object.values(properties)) expect(property.description).toBeTruthy();
    expect(shellTool.description).toMatch(/clamped/);
  });

  it('returns stdout and exit code 0', async () => {
    const result = await shellTool.execute({ command: 'echo hello' }, context());
    expect(result.isError).toBe(false);
    expect(structured(result)).toEqual({ exitCode: 0, stdout: 'hello\n', stderr: '', timedOut: false });
    const text = resultText(result);
    expect(text).toContain('Exit code: 0');
    expect(text).toContain('<stdout>\nhello\n</stdout>');
    expect(text).not.toContain('<stderr>');
  });

  it("keeps weft's own secrets (the MCP server token) out of the command's environment", async () => {
    process.env.WEFT_MCP_TOKEN = 'shell-test-token-0123456789';
    try {
      const result = await shellTool.execute({ command: 'echo "token=${WEFT_MCP_TOKEN:-absent} path=${PATH:+set}"' }, context());
      expect(structured(result)).toMatchObject({ exitCode: 0, stdout: 'token=absent path=set\n' });
    } finally {
      delete process.env.WEFT_MCP_TOKEN;
    }
  });

  it('reports a non-zero exit code and stderr as an error', async () => {
    const result = await shellTool.execute({ command: 'echo oops >&2; exit 3' }, context());
    expect(result.isError).toBe(true);
    expect(structured(result)).toMatchObject({ exitCode: 3, stdout: '', stderr: 'oops\n', timedOut: false });
    const text = resultText(result);
    expect(text).toContain('Exit code: 3');
    expect(text).toContain('<stderr>\noops\n</stderr>');
    expect(text).not.toContain('<stdout>');
  });

  it('says so when there is no output', async () => {
    const result = await shellTool.execute({ command: 'true' }, context());
    expect(resultText(result)).toBe('Exit code: 0\n(no output)');
  });

  it('runs in the workspace root', async () => {
    const result = await shellTool.execute({ command: 'pwd; echo made > made.txt' }, context());
    expect(structured(result).stdout.trim()).toBe(workspace);
    expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('on timeout kills the whole process group, grandchildren included', async () => {
    const result = await shellTool.execute(
      {
        command: "bash -c 'sleep 300 & echo $! > gc.pid; sleep 300' & echo $! > c.pid; echo started; wait",
        timeout_ms: 500,
      },
      context(),
    );
    const child = readPid('c.pid');
    const grandchild = readPid('gc.pid');
    leftovers.push(child, grandchild);
    expect(isDead(child)).toBe(true);
    expect(isDead(grandchild)).toBe(true);
    expect(result.isError).toBe(true);
    const text = resultText(result);
    expect(text).toContain('Command timed out after 0.5s');
    expect(text).toContain('started');
    expect(structured(result)).toMatchObject({ exitCode: null, stdout: 'started\n', timedOut: true });
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const tool = createShellTool({ killGraceMs: 200 });
    const result = await tool.execute(
      { command: "trap '' TERM; sleep 300 & echo $! > s.pid; echo waiting; wait", timeout_ms: 300 },
      context(),
    );
    const sleeper = readPid('s.pid');
    leftovers.push(sleeper);
    expect(isDead(sleeper)).toBe(true);
    expect(resultText(result)).toContain('Command timed out after 0.3s');
    expect(structured(result).stdout).toBe('waiting\n');
  });

  it('clamps timeout_ms to the configured cap', async () => {
    const tool = createShellTool({ maxTimeoutMs: 300 });
    const result = await tool.execute({ command: 'sleep 30', timeout_ms: 600_000 }, context());
    expect(resultText(result)).toContain('Command timed out after 0.3s');
    expect(structured(result).timedOut).toBe(true);
  });

  it('uses the default timeout when none is given', async () => {
    const tool = createShellTool({ defaultTimeoutMs: 250 });
    const result = await tool.execute({ command: 'sleep 30' }, context());
    expect(resultText(result)).toContain('Command timed out after 0.25s');
  });

  it('on abort kills the process group and throws TOOL_CANCELLED', async () => {
    const ready = whenFileAppears('ready');
    const running = shellTool.execute({ command: 'echo $$ > leader.pid; sleep 300 & echo $! > bg.pid; touch ready; wait' }, context());
    const outcome = running.then(
      () => undefined,
      (error: unknown) => error,
    );
    await ready;
    controller.abort();
    const error = await outcome;
    expect(WeftError.is(error, 'TOOL_CANCELLED')).toBe(true);
    expect((error as WeftError).message).toBe('Cancelled');
    const leader = readPid('leader.pid');
    const background = readPid('bg.pid');
    leftovers.push(leader, background);
    expect(isDead(leader)).toBe(true);
    expect(isDead(background)).toBe(true);
  });

  it('does not start the command when already cancelled', async () => {
    controller.abort();
    await expect(shellTool.execute({ command: 'touch ran' }, context())).rejects.toMatchObject({
      code: 'TOOL_CANCELLED',
    });
    expect(existsSync(join(workspace, 'ran'))).toBe(false);
  });

  it('does not wait for a background process that keeps the pipes open after the shell exits', async () => {
    const result = await shellTool.execute({ command: 'sleep 300 & echo $! > bg.pid; echo hi' }, context());
    const background = readPid('bg.pid');
    leftovers.push(background);
    // The call came back while the background process (holding the pipes) still lives.
    expect(isDead(background)).toBe(false);
    expect(result.isError).toBe(false);
    expect(structured(result)).toMatchObject({ exitCode: 0, stdout: 'hi\n', timedOut: false });
    expect(resultText(result)).toContain('still holds its output open');
  });

  it('bounds enormous output, keeping the start and the end', async () => {
    const result = await shellTool.execute(
      { command: "echo FIRST-LINE; head -c 25000000 /dev/zero | tr '\\0' 'a'; echo; echo LAST-LINE" },
      context(),
    );
    const { stdout } = structured(result);
    expect(stdout.length).toBeLessThan(10 * 1024 * 1024 + 500);
    expect(stdout.startsWith('FIRST-LINE\naaaa')).toBe(true);
    expect(stdout.endsWith('aaaa\nLAST-LINE\n')).toBe(true);
    expect(stdout).toMatch(/\[\.\.\. \d+ bytes of output omitted/);
    expect(result.isError).toBe(false);
  });
});

describe('runCommand with a record of the group', () => {
  const options = (watchdog: GroupWatchdog) => ({
    cwd: workspace,
    timeoutMs: 10_000,
    signal: controller.signal,
    maxCaptureBytes: 1024,
    killGraceMs: 100,
    watchdog,
  });

  it('hands the group to the watchdog while it runs and learns its leader before the command runs', async () => {
    const watchdog = recordingWatchdog();
    const seen: { pid: number; markerExisted: boolean; watched: boolean }[] = [];
    const outcome = await runCommand('touch ran.marker; echo $$', {
      ...options(watchdog),
      beforeStart: async (group) => {
        seen.push({ pid: group.pid, markerExisted: existsSync(join(workspace, 'ran.marker')), watched: watchdog.watched.has(group.pid) });
      },
    });
    expect(seen).toEqual([{ pid: Number(outcome.stdout.trim()), markerExisted: false, watched: true }]);
    expect(watchdog.everWatched).toEqual([seen[0]!.pid]);
    expect(watchdog.watched.size).toBe(0);
  });

  it('stops the command at once when the run was cancelled while the record was written', async () => {
    const watchdog = recordingWatchdog();
    const outcome = await runCommand('touch ran.marker; sleep 30', {
      ...options(watchdog),
      beforeStart: async () => controller.abort(),
    });
    expect(outcome.cancelled).toBe(true);
    expect(isDead(watchdog.everWatched[0]!)).toBe(true);
  });

  it('never runs the command when the record cannot be written', async () => {
    const watchdog = recordingWatchdog();
    const failure = runCommand('touch ran.marker', { ...options(watchdog), beforeStart: () => Promise.reject(new Error('lease lost')) });
    await expect(failure).rejects.toThrow('lease lost');
    expect(existsSync(join(workspace, 'ran.marker'))).toBe(false);
    expect(isDead(watchdog.everWatched[0]!)).toBe(true);
    expect(watchdog.watched.size).toBe(0);
  });
});

describe('StreamCapture', () => {
  it('keeps everything under the limit', () => {
    const capture = new StreamCapture(10);
    capture.push(Buffer.from('abc'));
    capture.push(Buffer.from('defg'));
    expect(capture.text()).toBe('abcdefg');
  });

  it('keeps the first and last halves and counts the rest', () => {
    const capture = new StreamCapture(8);
    for (const piece of ['0123', '4567', '89ab', 'cdef']) capture.push(Buffer.from(piece));
    expect(capture.totalBytes).toBe(16);
    const text = capture.text();
    expect(text.startsWith('0123\n\n[... 8 bytes of output omitted')).toBe(true);
    expect(text.endsWith('...]\n\ncdef')).toBe(true);
  });

  it('does not split UTF-8 characters at the cut', () => {
    // 16 bytes: a(1) é(2) €(3) xyzwq(5) €(3) é(2); the head half ends inside é, the tail half starts inside €.
    const capture = new StreamCapture(6);
    capture.push(Buffer.from('aé€xyzwq€é', 'utf8'));
    expect(capture.text()).toBe('aé\n\n[... 11 bytes of output omitted (kept the first 3 and last 2 of 16 bytes) ...]\n\né');
    const cutInHead = new StreamCapture(4);
    cutInHead.push(Buffer.from('aé€xyzwq€é', 'utf8'));
    const text = cutInHead.text();
    expect(text).not.toContain('\uFFFD');
    expect(text).toBe('a\n\n[... 13 bytes of output omitted (kept the first 1 and last 2 of 16 bytes) ...]\n\né');
  });
});
