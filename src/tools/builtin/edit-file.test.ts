import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from './edit-file.js';
import { writeFileTool } from './write-file.js';
import { createTestWorkspace } from '../../../test/kits/file-tools-kit.js';
import type { TestWorkspace } from '../../../test/kits/file-tools-kit.js';

describe('edit_file', () => {
  let ws: TestWorkspace;
  const read = (relative: string): Promise<string> => fs.readFile(path.join(ws.root, relative), 'utf8');
  beforeEach(async () => {
    ws = await createTestWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('replaces a unique occurrence without a prior read and marks the file read', async () => {
    await ws.put('src/a.ts', 'const a = 1;\nconst b = 2;\n');
    expect(await ws.run(editFileTool, { file_path: 'src/a.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' })).toBe(
      "Edited 'src/a.ts': replaced 1 occurrence.",
    );
    expect(await read('src/a.ts')).toBe('const a = 1;\nconst b = 3;\n');
    await ws.run(writeFileTool, { file_path: 'src/a.ts', content: 'now writable\n' });
  });

  it('fails with EDIT_NO_MATCH naming the file when old_string is absent', async () => {
    await ws.put('src/a.ts', 'const a = 1;\n');
    await expect(
      editFileTool.execute({ file_path: 'src/a.ts', old_string: 'const z', new_string: 'const y' }, ws.context),
    ).rejects.toMatchObject({
      code: 'EDIT_NO_MATCH',
      message: "old_string was not found in 'src/a.ts'. Read the file again and copy the exact text, including whitespace and indentation.",
    });
    expect(await read('src/a.ts')).toBe('const a = 1;\n');
  });

  it('fails with EDIT_AMBIGUOUS saying how many occurrences when not replace_all', async () => {
    await ws.put('a.txt', 'foo\nbar\nfoo\nfoo\n');
    await expect(editFileTool.execute({ file_path: 'a.txt', old_string: 'foo', new_string: 'baz' }, ws.context)).rejects.toMatchObject({
      code: 'EDIT_AMBIGUOUS',
      message:
        "old_string occurs 3 times in 'a.txt'. Include more surrounding context to make it unique, or set replace_all: true to replace every occurrence.",
      data: { occurrences: 3 },
    });
    expect(await read('a.txt')).toBe('foo\nbar\nfoo\nfoo\n');
  });

  it('replaces every occurrence with replace_all', async () => {
    await ws.put('a.txt', 'foo\nbar\nfoo\nfoo\n');
    expect(await ws.run(editFileTool, { file_path: 'a.txt', old_string: 'foo', new_string: 'baz', replace_all: true })).toBe(
      "Edited 'a.txt': replaced 3 occurrences.",
    );
    expect(await read('a.txt')).toBe('baz\nbar\nbaz\nbaz\n');
  });

  it('inserts new_string literally, without $-pattern expansion', async () => {
    await ws.put('a.txt', 'price: X\n');
    await ws.run(editFileTool, { file_path: 'a.txt', old_string: 'X', new_string: "$& $1 $$ $'" });
    expect(await read('a.txt')).toBe("price: $& $1 $$ $'\n");
  });

  it('matches LF old_string in a CRLF file and keeps CRLF line endings', async () => {
    await ws.put('win.txt', 'one\r\ntwo\r\nthree\r\n');
    await ws.run(editFileTool, { file_path: 'win.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' });
    expect(await read('win.txt')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('rejects identical old and new strings, empty old_string, missing and binary files', async () => {
    await ws.put('a.txt', 'same\n');
    await expect(editFileTool.execute({ file_path: 'a.txt', old_string: 'same', new_string: 'same' }, ws.context)).rejects.toMatchObject({
      code: 'TOOL_INVALID_ARGS',
      message: 'old_string and new_string are identical, so the edit would change nothing.',
    });
    await expect(editFileTool.execute({ file_path: 'a.txt', old_string: '', new_string: 'x' }, ws.context)).rejects.toMatchObject({
      code: 'TOOL_INVALID_ARGS',
    });
    await expect(editFileTool.execute({ file_path: 'missing.txt', old_string: 'a', new_string: 'b' }, ws.context)).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
      message: "File not found: 'missing.txt'. edit_file changes existing files; use write_file to create a new one.",
    });
    await ws.put('bin.dat', new Uint8Array([97, 0, 98]));
    await expect(editFileTool.execute({ file_path: 'bin.dat', old_string: 'a', new_string: 'b' }, ws.context)).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: "Cannot edit 'bin.dat': it is a binary file.",
    });
  });
});
