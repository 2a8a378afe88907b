import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, sandboxPerTest } from './fixtures/workflows-e2e/harness.js';

const box = sandboxPerTest();

describe('weft export', () => {
  it("writes the run, its whole event log in order and its artifacts' paths as JSON Lines, to stdout or -o", async () => {
    const ran = await box.cli(['run', 'ok.toml']);
    expect(ran.code).toBe(0);
    const id = /^run (\S+) · ok · /m.exec(ran.stderr)?.[1];
    expect(id).toBeDefined();
    const artifacts = join(box.home, 'artifacts', id!);
    await mkdir(join(artifacts, 'tool-output'), { recursive: true });
    await writeFile(join(artifacts, 'tool-output', 'big.txt'), 'x'.repeat(1234));

    const file = join(box.base, 'run.jsonl');
    const exported = await box.cli(['export', id!, '-o', file]);
    const lines = jsonLines<{ type: string; [key: string]: unknown }>(await readFile(file, 'utf8'));
    expect(exported).toMatchObject({ code: 0, stderr: `Exported ${lines.length} lines to ${file}\n` });
    const events = await box.events(id!);
    expect(lines).toEqual([
      { type: 'run', format: 'weft-run-export', version: 1, run: expect.objectContaining({ id, status: 'succeeded' }) },
      ...events.map((event) => ({ type: 'event', event })),
      { type: 'artifact', path: join(artifacts, 'tool-output', 'big.txt'), bytes: 1234 },
    ]);
    expect(events.length).toBeGreaterThan(3);

    const toStdout = await box.cli(['export', id!]);
    expect(toStdout.stdout).toBe(await readFile(file, 'utf8'));
  });

  it('an unknown run exits 2 and writes no file', async () => {
    const file = join(box.base, 'none.jsonl');
    const result = await box.cli(['export', '01J00000000000000000000000', '-o', file]);
    expect(result.code).toBe(2);
    await expect(readFile(file, 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
