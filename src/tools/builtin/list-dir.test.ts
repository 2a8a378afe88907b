import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDirTool } from './list-dir.js';
import { createTestWorkspace } from '../../../test/kits/file-tools-kit.js';
import type { TestWorkspace } from '../../../test/kits/file-tools-kit.js';

describe('list_dir', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createTestWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('lists directories first, then other entries, each sorted, with type and size', async () => {
    await ws.put('b.txt', 'hello');
    await ws.put('a.md', '');
    await ws.put('zeta/x.txt', 'x');
    await ws.put('alpha/y.txt', 'y');
    await fs.symlink('b.txt', path.join(ws.root, 'link'));
    expect(await ws.run(listDirTool, {})).toBe(
      [
        "Directory '.' (5 entries):",
        'dir      alpha/',
        'dir      zeta/',
        'file     a.md (0 bytes)',
        'file     b.txt (5 bytes)',
        'symlink  link -> b.txt',
      ].join('\n'),
    );
  });

  it('lists a subfolder given relative or absolute', async () => {
    await ws.put('src/a.ts', 'abc');
    const expected = "Directory 'src' (1 entry):\nfile     a.ts (3 bytes)";
    expect(await ws.run(listDirTool, { path: 'src' })).toBe(expected);
    expect(await ws.run(listDirTool, { path: path.join(ws.root, 'src') })).toBe(expected);
  });

  it('reports empty folders, missing folders and files', async () => {
    await fs.mkdir(path.join(ws.root, 'empty'));
    await ws.put('f.txt', 'x');
    expect(await ws.run(listDirTool, { path: 'empty' })).toBe("Directory 'empty' is empty.");
    await expect(listDirTool.execute({ path: 'nope' }, ws.context)).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    await expect(listDirTool.execute({ path: 'f.txt' }, ws.context)).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: "'f.txt' is a file, not a directory. Use read_file to read it.",
    });
  });
});
