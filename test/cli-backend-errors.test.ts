/**
 * A CLI stage that cannot do its work fails with an error that names the CLI, says what
 * went wrong (not found, no login, non-zero exit, output that is not its stream) with the
 * exit code and the last lines of its stderr — and the run's other stages go on. The
 * login case is the real Claude Code without a key; the broken CLIs are scripts given as
 * `[cli.claude] path`.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClaudeKit, useClaudeTestContext } from './kits/cli-backend-kit.js';
import type { RunEvent } from '../src/runs/model/run-event.js';

// The CLI stage and a command stage side by side: one failing must not stop the other.
const WORKFLOW = `
[workflow]
name = "errors"
start = "fan"

[nodes.fan]
kind = "parallel"
branches = ["code", "side"]
join = "done"

[nodes.code]
kind = "agent"
backend = "cli"
cli = "claude"
prompt = "Do it."
next = "done"

[nodes.side]
kind = "command"
run = "echo side ran"
next = "done"

[nodes.done]
kind = "join"
`;

const context = useClaudeTestContext();

async function fakeCli(name: string, script: string): Promise<string> {
  const path = join(context.kit.dir, name);
  await writeFile(path, `#!/bin/sh\n${script}\n`);
  await chmod(path, 0o755);
  return path;
}

async function run(): Promise<{ status: string; code: Record<string, unknown>; side: Record<string, unknown> }> {
  const file = await context.kit.write('wf.toml', WORKFLOW);
  const created = await context.kit.service.create({ workflow: file, cwd: context.kit.dir, autoApprove: true });
  await context.kit.runUntilIdle({ agent: context.claude!.agent });
  const events: RunEvent[] = await context.kit.events(created.id);
  const finished = (stageId: string) => events.find((event) => event.type === 'stage-finished' && event.stageId === stageId)!.payload;
  return { status: (await context.kit.service.get(created.id)).status, code: finished('code@1'), side: finished('side@1') };
}

describe('CLI stage errors', () => {
  it('a CLI that is not where settings say: the stage fails saying where weft looked and how to fix it', async () => {
    context.claude = await createClaudeKit(context.kit, [], { cli: { claude: { path: join(context.kit.dir, 'no-such-claude') } } });
    const result = await run();
    expect(result.status).toBe('failed');
    expect(result.code).toMatchObject({
      status: 'failed',
      error: `Claude Code was not found at ${join(context.kit.dir, 'no-such-claude')} ([cli.claude] path in settings): no executable file there. Fix the path, or remove it to look on PATH.`,
    });
    expect(result.side).toMatchObject({ status: 'succeeded', output: 'side ran' });
  });

  it('a CLI that exits non-zero: the error names it, its exit code and the last lines of its stderr', async () => {
    const broken = await fakeCli('claude-broken', 'echo "loading config" >&2\necho "fatal: config is corrupt" >&2\nexit 3');
    context.claude = await createClaudeKit(context.kit, [], { cli: { claude: { path: broken } } });
    const result = await run();
    expect(result.code).toMatchObject({
      status: 'failed',
      exitCode: 3,
      error: 'Claude Code ended without an answer (exit code 3). Last lines of its stderr:\nloading config\nfatal: config is corrupt',
    });
    expect(result.side).toMatchObject({ status: 'succeeded' });
  });

  it('output that is not the stream format: the error quotes the first such line', async () => {
    const chatty = await fakeCli('claude-chatty', 'echo "Welcome to Claude!"\necho \'{"no":"type"}\'\nexit 0');
    context.claude = await createClaudeKit(context.kit, [], { cli: { claude: { path: chatty } } });
    const result = await run();
    expect(result.code).toMatchObject({
      status: 'failed',
      exitCode: 0,
      error:
        "Claude Code ended without an answer (exit code 0). 2 line(s) of its output were not Claude Code's stream format, the first: Welcome to Claude!",
    });
  });

  it('the real Claude Code without credentials: the stage fails saying it needs a login', async () => {
    context.claude = await createClaudeKit(context.kit, [], { withoutKey: true });
    const result = await run();
    expect(result.code).toMatchObject({
      status: 'failed',
      exitCode: 1,
      error:
        "Claude Code needs a login (exit code 1): Not logged in · Please run /login. Give the runner its API key in the environment (weft keeps each stage's Claude Code config apart from yours, so a login made in your own config is not seen).",
    });
    expect(context.claude!.server.requests).toEqual([]);
    expect(result.side).toMatchObject({ status: 'succeeded' });
  });
});
