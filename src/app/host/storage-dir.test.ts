// The storage dir check: created when absent (parents too), refused at once with the path and the reason otherwise.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareStorageDir } from './storage-dir.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-storage-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function refusal(dir: string): string {
  try {
    prepareStorageDir(dir);
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  return 'accepted';
}

const FIX = 'Point --storage-dir or WEFT_HOME at a directory you can write to.';

describe('prepareStorageDir', () => {
  it('creates a missing dir and its missing parents, and accepts an existing one', async () => {
    const dir = join(base, 'a', 'b', 'weft');
    expect(prepareStorageDir(dir)).toBe(dir);
    expect((await stat(dir)).isDirectory()).toBe(true);
    expect(prepareStorageDir(dir)).toBe(dir);
  });

  it('refuses a file, a path below a file and a dir that cannot be created, naming the path and the reason', async () => {
    const file = join(base, 'file');
    await writeFile(file, 'x');
    expect([refusal(file), refusal(join(file, 'sub', 'weft')), refusal('/proc/weft-x')]).toEqual([
      `CONFIG_INVALID: Storage dir ${file} cannot be used: it is a file, not a directory. ${FIX}`,
      `CONFIG_INVALID: Storage dir ${join(file, 'sub', 'weft')} cannot be used: ${file} is a file, not a directory. ${FIX}`,
      `CONFIG_INVALID: Storage dir /proc/weft-x cannot be used: cannot create /proc/weft-x: no such file or directory (ENOENT). ${FIX}`,
    ]);
  });
});
