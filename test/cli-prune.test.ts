import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxPerTest } from './fixtures/workflows-e2e/harness.js';

const box = sandboxPerTest();

async function runIds(): Promise<string[]> {
  const listed = await box.cli(['ps', '--all', '--json']);
  return (JSON.parse(listed.stdout) as { id: string }[]).map((run) => run.id).sort();
}

function idOf(stderr: string): string {
  return /^run (\S+) · /m.exec(stderr)?.[1] ?? '';
}

describe('weft prune', () => {
  it('deletes finished runs older than the age (only the statuses given), with their artifacts; --dry-run deletes nothing; unfinished runs stay', async () => {
    const ok = idOf((await box.cli(['run', 'ok.toml'])).stderr);
    const failed = idOf((await box.cli(['run', 'fail.toml'])).stderr);
    const waiting = (JSON.parse((await box.cli(['create', 'ok.toml', '--json'])).stdout) as { id: string }).id;
    await mkdir(join(box.home, 'artifacts', failed), { recursive: true });
    expect(await runIds()).toEqual([ok, failed, waiting].sort());

    const young = await box.cli(['prune', '--older-than', '30d']);
    expect(young).toMatchObject({ code: 0, stdout: 'Deleted 0 runs older than 30d.\n' });

    const dry = await box.cli(['prune', '--older-than', '0s', '--status', 'failed', '--dry-run', '--json']);
    expect(JSON.parse(dry.stdout)).toEqual({
      dryRun: true,
      runs: [{ id: failed, workflow: 'fail', status: 'failed', createdAt: expect.any(Number) }],
    });
    expect(await runIds()).toEqual([ok, failed, waiting].sort());

    const some = await box.cli(['prune', '--older-than', '0s', '--status', 'failed']);
    expect(some.code).toBe(0);
    expect(some.stdout).toMatch(new RegExp(`^${failed}  fail  failed  .*\\nDeleted 1 run older than 0s\\.\\n$`));
    await expect(stat(join(box.home, 'artifacts', failed))).rejects.toThrow(/ENOENT/);

    const rest = await box.cli(['prune', '--older-than', '0s']);
    expect(rest.stdout).toContain('Deleted 1 run older than 0s.');
    expect(await runIds()).toEqual([waiting]);
  });

  it('refuses an unfinished status and an age that is not one, with exit 2', async () => {
    expect(await box.cli(['prune', '--older-than', '1d', '--status', 'running'])).toMatchObject({
      code: 2,
      stderr: "weft: --status 'running' cannot be pruned: only finished runs are (succeeded, failed, cancelled).\n",
    });
    expect(await box.cli(['prune', '--older-than', 'a month'])).toMatchObject({
      code: 2,
      stderr: "weft: --older-than 'a month' is not an age; use a number with a unit, e.g. --older-than 30d or 12h.\n",
    });
  });

  it('[runs] retention is checked like other settings and applied when a worker starts', async () => {
    const ok = idOf((await box.cli(['run', 'ok.toml'])).stderr);
    await mkdir(box.home, { recursive: true });
    await writeFile(join(box.home, 'settings.toml'), '[runs]\nretention = "soon"\n');
    const bad = await box.cli(['worker', '--until-idle']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("key 'runs.retention' must be a duration");

    await writeFile(join(box.home, 'settings.toml'), '[runs]\nretention = "30d"\n');
    expect((await box.cli(['worker', '--until-idle'])).code).toBe(0);
    expect(await runIds()).toEqual([ok]);

    await writeFile(join(box.home, 'settings.toml'), '[runs]\nretention = "0s"\n');
    expect((await box.cli(['worker', '--until-idle'])).code).toBe(0);
    expect(await runIds()).toEqual([]);
  });
});
