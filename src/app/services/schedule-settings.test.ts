import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { loadSettings } from '../../core/settings/settings.js';
import { settingsSchedules } from './schedule-settings.js';

let home: string;
let ws: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-schedule-settings-home-'));
  ws = await mkdtemp(join(tmpdir(), 'weft-schedule-settings-ws-'));
  await writeFile(
    join(home, 'settings.toml'),
    '[schedules.nightly]\nworkflow = "user.toml"\ncron = "0 3 * * *"\n\n[schedules.weekly]\nworkflow = "weekly.toml"\ncron = "0 4 * * 1"\ncatch_up = "last"\n',
  );
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(ws, { recursive: true, force: true });
});

async function project(text: string) {
  await mkdir(join(ws, '.weft'), { recursive: true });
  await writeFile(join(ws, '.weft', 'settings.toml'), text);
  return loadSettings({ storageDir: home, workspaceRoot: ws });
}

describe('[schedules.<name>] in settings', () => {
  it("reads the user's and the project's tables, the project's winning for a name, relative to the workspace", async () => {
    const settings = await project(
      '[schedules.nightly]\nworkflow = "fix.toml"\ncron = "30 2 * * *"\ntimezone = "Europe/Paris"\ninputs = { repo = "acme/api" }\noverlap = "queue"\nauto_approve = true\n',
    );
    const schedules = settingsSchedules(settings, ws);
    expect(schedules).toEqual([
      {
        name: 'nightly',
        workflow: 'fix.toml',
        cwd: ws,
        cron: '30 2 * * *',
        timezone: 'Europe/Paris',
        inputs: { repo: 'acme/api' },
        overlap: 'queue',
        autoApprove: true,
        source: 'settings',
      },
      { name: 'weekly', workflow: 'weekly.toml', cwd: ws, cron: '0 4 * * 1', inputs: {}, catchUp: 'last', source: 'settings' },
    ]);
  });

  it('names the file and key of a problem', async () => {
    for (const [text, message] of [
      ['[schedules.x]\ncron = "0 3 * * *"\n', /key 'schedules\.x\.workflow' is required/],
      ['[schedules.x]\nworkflow = "a.toml"\ncron = "0 3 * * *"\novrelap = "skip"\n', /key 'schedules\.x\.ovrelap' is not a schedule key/],
      [
        '[schedules.x]\nworkflow = "a.toml"\ncron = "0 3 * * *"\ncatch_up = "some"\n',
        /key 'schedules\.x\.catch_up' must be one of none, last, all/,
      ],
    ] as const) {
      const settings = await project(text);
      const error = (() => {
        try {
          settingsSchedules(settings, ws);
        } catch (failure) {
          return failure;
        }
      })();
      expect(WeftError.is(error, 'SETTINGS_INVALID')).toBe(true);
      expect((error as Error).message).toContain(join(ws, '.weft', 'settings.toml'));
      expect((error as Error).message).toMatch(message);
    }
  });
});
