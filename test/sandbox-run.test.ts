/**
 * A sandboxed run through the engine: refused before any stage when the sandbox's tools
 * are missing (with the install command, never run unsandboxed), bad `[run.sandbox]`
 * values refused with the workflow's line, and weft's own file tools refusing `deny_read`.
 */
import { existsSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bubblewrapProvider } from '../src/core/sandbox/index.js';
import { runSandboxFactory } from '../src/app/runner/run-sandbox.js';
import { loadSettings } from '../src/core/settings/settings.js';
import { validateWorkflowText } from '../src/runs/workflow/index.js';
import { createEngineKit, type EngineKit } from './kits/engine-kit.js';

let kit: EngineKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

async function sandboxKit(path: string): Promise<EngineKit> {
  let dir = '';
  const created = await createEngineKit({
    sandboxFactory: (run, workflow, onViolation, workDir) =>
      runSandboxFactory({
        storageDir: join(dir, '.storage'),
        settings: () => loadSettings({ storageDir: join(dir, '.storage'), workspaceRoot: run.cwd }),
        provider: bubblewrapProvider({ PATH: path }),
      })(run, workflow, onViolation, workDir),
  });
  dir = created.dir;
  return created;
}

describe('a sandboxed run', () => {
  it('is refused before any stage, with the install command, when bubblewrap and socat are missing', async () => {
    kit = await sandboxKit('/nonexistent');
    const file = await kit.write('wf.toml', '[run.sandbox]\nmode = "os"\n\n[nodes.touch]\nkind = "command"\nrun = "touch ran.txt"\n');
    const run = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    await kit.runUntilIdle();
    const finished = await kit.service.get(run.id);
    expect(finished.status).toBe('failed');
    expect(finished.reason).toBe(
      '[run.sandbox] mode = "os" needs bwrap, socat, setpriv, which are not installed. Install them: apt-get install bubblewrap socat util-linux (as root, e.g. with sudo), or set [run.sandbox] mode = "none". weft does not run it unsandboxed.',
    );
    expect((await kit.events(run.id)).filter((event) => event.type === 'stage-started')).toEqual([]);
  });

  it('runs its command stage inside the sandbox: the workspace is writable, the rest read-only, refusals recorded', async () => {
    kit = await sandboxKit(process.env.PATH ?? '');
    const file = await kit.write(
      'wf.toml',
      '[run.sandbox]\nmode = "os"\n\n[nodes.touch]\nkind = "command"\nrun = "touch ran.txt && touch /usr/weft-sandbox-test"\n',
    );
    const run = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    await kit.runUntilIdle();
    const events = await kit.events(run.id);
    const finished = events.find((event) => event.type === 'stage-finished')?.payload;
    expect(finished).toMatchObject({
      status: 'failed',
      error: expect.stringContaining(
        'weft: the sandbox refused a write to /usr/weft-sandbox-test: it is outside [run.sandbox] allow_write',
      ),
    });
    expect(events.filter((event) => event.type === 'sandbox-violation').map((event) => event.payload)).toEqual([
      {
        kind: 'write',
        setting: 'allow_write',
        path: '/usr/weft-sandbox-test',
        message:
          'the sandbox refused a write to /usr/weft-sandbox-test: it is outside [run.sandbox] allow_write (add the folder there to allow it)',
      },
    ]);
  });

  it("sandboxes a sandboxed run's child runs, whatever their own workflow says", async () => {
    kit = await sandboxKit(process.env.PATH ?? '');
    const outside = `/usr/weft-sandbox-child-${process.pid}`;
    await kit.write('child.toml', `[run.sandbox]\nmode = "none"\n\n[nodes.touch]\nkind = "command"\nrun = "touch ${outside}"\n`);
    const file = await kit.write('parent.toml', '[run.sandbox]\nmode = "os"\n\n[nodes.kid]\nkind = "child"\nworkflow = "child.toml"\n');
    const run = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    await kit.runUntilIdle();
    const child = (await kit.events(run.id)).find((event) => event.type === 'child-run-created')?.payload.childId as string;
    const record = await kit.service.get(child);
    try {
      expect(record.sandbox).toEqual({ mode: 'os' });
      expect(record.status).toBe('failed');
      expect(existsSync(outside)).toBe(false);
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it("keeps weft's own file tools out of deny_read", async () => {
    kit = await sandboxKit(process.env.PATH ?? '');
    await mkdir(join(kit.dir, 'private'));
    await writeFile(join(kit.dir, 'private', 'key.txt'), 'secret');
    const file = await kit.write(
      'wf.toml',
      '[run.sandbox]\nmode = "os"\ndeny_read = ["private"]\n\n[nodes.read]\nkind = "tool"\ntool = "read_file"\nargs = { file_path = "private/key.txt" }\n',
    );
    const run = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    await kit.runUntilIdle();
    const finished = (await kit.events(run.id)).find((event) => event.type === 'stage-finished')?.payload;
    expect(finished).toMatchObject({
      status: 'failed',
      error: expect.stringContaining("Path 'private/key.txt' is hidden by [run.sandbox] deny_read"),
    });
  });

  it('refuses bad [run.sandbox] values with the line and the fix', () => {
    const { problems } = validateWorkflowText(
      '/w/wf.toml',
      '[run.sandbox]\nmode = "container"\nnetwork = { allow = ["http://x"] }\n\n[nodes.a]\nkind = "command"\nrun = "true"\n',
    );
    expect(problems.map((problem) => `${problem.line}: ${problem.message}`)).toEqual([
      `1: [run.sandbox]: 'mode' must be "none" or "os", not a string ("container")`,
      `1: [run.sandbox]: 'network.allow' entry "http://x" is not a host name: write "example.com", "*.example.com" or "localhost:8080" (no scheme or path)`,
    ]);
  });
});
