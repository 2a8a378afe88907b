// Goal and workflow files named for a run stay inside the run's directory by real path: symlinks inside it that point
// elsewhere are refused before anything is read, so neither the stored goal nor an error can quote the file behind them.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunService } from './run-service.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';

describe('RunService.create confines goal and workflow files to the run directory', () => {
  let base: string;
  let cwd: string;
  let store: MemoryRunStore;
  let service: RunService;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'weft-run-dir-')));
    cwd = join(base, 'project');
    mkdirSync(join(cwd, 'plans'), { recursive: true });
    mkdirSync(join(base, 'elsewhere'));
    writeFileSync(join(base, 'elsewhere', 'secret.txt'), 'WEFT_MCP_TOKEN=hunter2-hunter2\n');
    writeFileSync(join(base, 'elsewhere', 'flow.toml'), '[nodes.leak]\nkind = "command"\nrun = "echo hunter2-hunter2"\n');
    writeFileSync(join(cwd, 'quick.toml'), '[nodes.hi]\nkind = "command"\nrun = "echo hi"\n');
    writeFileSync(join(cwd, 'plans', 'goal.md'), 'Ship it\n');
    symlinkSync(join(base, 'elsewhere', 'secret.txt'), join(cwd, 'goal-link.md'));
    symlinkSync(join(base, 'elsewhere'), join(cwd, 'linked-dir'));
    symlinkSync('/proc/self/environ', join(cwd, 'environ'));
    symlinkSync(join(base, 'elsewhere', 'flow.toml'), join(cwd, 'flow-link.toml'));
    symlinkSync(join(cwd, 'plans', 'goal.md'), join(cwd, 'inside-link.md'));
    store = new MemoryRunStore({ clock: () => 0 });
    service = new RunService({ store, clock: () => 0, wakeRunners: () => undefined });
  });
  afterEach(async () => {
    await store.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('refuses a goal file that is, or passes through, a symlink leading out', async () => {
    for (const goalFile of [
      'goal-link.md',
      'linked-dir/secret.txt',
      'environ',
      '../elsewhere/secret.txt',
      join(base, 'elsewhere', 'secret.txt'),
    ]) {
      const error = await service.create({ workflow: 'quick.toml', cwd, goalFile }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error, goalFile).toMatchObject({
        code: 'RUN_INVALID_PARAMS',
        message: expect.stringContaining(`goal file '${goalFile}' is outside the run's directory`),
      });
      expect(String((error as Error).message)).not.toContain('hunter2');
    }
    expect((await store.searchRuns({})).runs).toEqual([]);
  });

  it('reads a goal file inside, also through a symlink that stays inside', async () => {
    expect((await service.create({ workflow: 'quick.toml', cwd, goalFile: 'inside-link.md' })).goal).toBe('Ship it');
    expect((await service.create({ workflow: 'quick.toml', cwd, goalFile: join(cwd, 'plans', 'goal.md') })).goal).toBe('Ship it');
  });

  it('refuses a workflow outside the directory when the caller asks for confinement, without parsing it', async () => {
    for (const workflow of ['flow-link.toml', 'linked-dir/flow.toml', '/etc/passwd', '../elsewhere/flow.toml']) {
      await expect(service.create({ workflow, cwd, workflowInsideCwd: true }), workflow).rejects.toMatchObject({
        code: 'RUN_INVALID_PARAMS',
        message: expect.stringMatching(
          new RegExp(`^workflow '${workflow.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}' is outside the run's directory`),
        ),
      });
    }
    expect((await service.create({ workflow: 'quick.toml', cwd, workflowInsideCwd: true })).workflow).toBe('quick');
    // A person at the CLI may still name a workflow elsewhere.
    expect((await service.create({ workflow: 'flow-link.toml', cwd })).workflow).toBe('flow-link');
  });

  it('names a missing run directory instead of failing inside', async () => {
    await expect(service.create({ workflow: 'quick.toml', cwd: join(base, 'gone'), workflowInsideCwd: true })).rejects.toMatchObject({
      code: 'RUN_INVALID_PARAMS',
      message: `The run's directory ${join(base, 'gone')} does not exist; give an existing cwd.`,
    });
  });
});
