import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileTool } from './read-file.js';
import { createTestWorkspace } from '../../../test/kits/file-tools-kit.js';
import type { TestWorkspace } from '../../../test/kits/file-tools-kit.js';

const lines = (count: number): string => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('read_file', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createTestWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('numbers lines like cat -n and marks the canonical path read', async () => {
    await ws.put('src/a.ts', 'const a = 1;\n\tindented\n');
    expect(await ws.run(readFileTool, { file_path: 'src/a.ts' })).toBe('     1\tconst a = 1;\n     2\t\tindented');
    expect(ws.context.readFiles.hasRead(path.join(ws.root, 'src', 'a.ts'))).toBe(true);
  });

  it('pages large files and says how to read the next page', async () => {
    await ws.put('big.txt', lines(2500));
    const first = (await ws.run(readFileTool, { file_path: 'big.txt' })).split('\n');
    expect(first).toHaveLength(2001);
    expect(first[1999]).toBe('  2000\tline 2000');
    expect(first[2000]).toBe('... showing lines 1-2000 of 2500; use offset=2001 to read the next page.');

    const second = (await ws.run(readFileTool, { file_path: 'big.txt', offset: 2001 })).split('\n');
    expect(second).toHaveLength(500);
    expect(second[0]).toBe('  2001\tline 2001');
    expect(second[499]).toBe('  2500\tline 2500');

    expect(await ws.run(readFileTool, { file_path: 'big.txt', offset: 10, limit: 2 })).toBe(
      '    10\tline 10\n    11\tline 11\n... showing lines 10-11 of 2500; use offset=12 to read the next page.',
    );
    expect(await ws.run(readFileTool, { file_path: 'big.txt', offset: 3000 })).toBe(
      "File 'big.txt' has 2500 lines; offset=3000 is past the end.",
    );
  });

  it('truncates overlong lines with a marker', async () => {
    await ws.put('wide.txt', `${'x'.repeat(2500)}\nshort\n`);
    const out = await ws.run(readFileTool, { file_path: 'wide.txt' });
    expect(out).toBe(`     1\t${'x'.repeat(2000)}... [line truncated: 2,500 chars]\n     2\tshort`);
  });

  it('describes binary files instead of dumping them', async () => {
    const bytes = new Uint8Array(12345).fill(65);
    bytes[10] = 0;
    await ws.put('img/x.png', bytes);
    expect(await ws.run(readFileTool, { file_path: 'img/x.png' })).toBe("Binary file 'img/x.png' (12,345 bytes); contents not shown.");
  });

  it('reports empty files', async () => {
    await ws.put('empty.txt', '');
    expect(await ws.run(readFileTool, { file_path: 'empty.txt' })).toBe("File 'empty.txt' is empty.");
  });

  it('fails with FILE_NOT_FOUND and suggests near misses', async () => {
    await ws.put('src/Main.ts', 'x');
    await expect(readFileTool.execute({ file_path: 'src/main.ts' }, ws.context)).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
      message: "File not found: 'src/main.ts'. Did you mean 'src/Main.ts'?",
    });
    await expect(readFileTool.execute({ file_path: 'nope/none.txt' }, ws.context)).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
      message: "File not found: 'nope/none.txt'. Use list_dir or glob to find the right path.",
    });
    expect(ws.context.readFiles.hasRead(path.join(ws.root, 'src', 'main.ts'))).toBe(false);
  });

  it('refuses directories', async () => {
    await fs.mkdir(path.join(ws.root, 'dir'));
    await expect(readFileTool.execute({ file_path: 'dir' }, ws.context)).rejects.toMatchObject({ code: 'TOOL_FAILED' });
  });
});
