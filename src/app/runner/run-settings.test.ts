import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSettingsReader } from './run-settings.js';

const root = mkdtempSync(join(tmpdir(), 'weft-run-settings-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('runSettingsReader', () => {
  it("reads a run attempt's settings once, and again for the next attempt or after a broken file", async () => {
    const cwd = join(root, 'project');
    mkdirSync(join(cwd, '.weft'), { recursive: true });
    const write = (text: string) => writeFileSync(join(cwd, '.weft', 'settings.toml'), text);
    const settingsOf = runSettingsReader(join(root, 'home'));
    write('[tools]\noutput_limit_bytes = 10000\n');
    const first = await settingsOf({ id: 'run-a', attempt: 1, cwd });
    write('[tools]\noutput_limit_bytes = 20000\n');
    expect(await settingsOf({ id: 'run-a', attempt: 1, cwd })).toBe(first);
    expect(first.outputLimitBytes).toBe(10000);
    expect((await settingsOf({ id: 'run-a', attempt: 2, cwd })).outputLimitBytes).toBe(20000);
    write('[tools\n');
    await expect(settingsOf({ id: 'run-b', attempt: 1, cwd })).rejects.toThrow(/settings\.toml/);
    write('[tools]\noutput_limit_bytes = 30000\n');
    expect((await settingsOf({ id: 'run-b', attempt: 1, cwd })).outputLimitBytes).toBe(30000);
  });
});
