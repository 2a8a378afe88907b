import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileTool } from './read-file.js';
import { writeFileTool } from './write-file.js';
import { grepTool } from './grep.js';
import { createTestWorkspace } from '../../../test/kits/file-tools-kit.js';
import type { TestWorkspace } from '../../../test/kits/file-tools-kit.js';

describe('write_file', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createTestWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('creates new files and their parent folders without a prior read', async () => {
    expect(await ws.run(writeFileTool, { file_path: 'a/b/c.txt', content: 'one\ntwo\n' })).toBe("Created 'a/b/c.txt' (2 lines, 8 bytes).");
    expect(await fs.readFile(path.join(ws.root, 'a/b/c.txt'), 'utf8')).toBe('one\ntwo\n');
    // Having written it, the session may write it again.
    expect(await ws.run(writeFileTool, { file_path: 'a/b/c.txt', content: 'three' })).toBe("Updated 'a/b/c.txt' (1 line, 5 bytes).");
  });

  it('refuses to overwrite an existing file the session has not read, with the spec message', async () => {
    await ws.put('src/main.ts', 'original\n');
    await expect(writeFileTool.execute({ file_path: 'src/main.ts', content: 'new' }, ws.context)).rejects.toMatchObject({
      code: 'FILE_NOT_READ',
      message: "Cannot write to 'src/main.ts': file exists but has not been read. Use read_file to read the file before writing to it.",
    });
    // An absolute spelling is reported workspace-relative too.
    await expect(writeFileTool.execute({ file_path: path.join(ws.root, 'src/main.ts'), content: 'new' }, ws.context)).rejects.toThrow(
      "Cannot write to 'src/main.ts': file exists but has not been read. Use read_file to read the file before writing to it.",
    );
    expect(await fs.readFile(path.join(ws.root, 'src/main.ts'), 'utf8')).toBe('original\n');
  });

  it('allows the write after read_file', async () => {
    await ws.put('src/main.ts', 'original\n');
    await ws.run(readFileTool, { file_path: 'src/main.ts' });
    await ws.run(writeFileTool, { file_path: 'src/main.ts', content: 'replaced\n' });
    expect(await fs.readFile(path.join(ws.root, 'src/main.ts'), 'utf8')).toBe('replaced\n');
  });

  it('treats relative and absolute spellings as one file: read absolute, write relative', async () => {
    await ws.put('src/main.ts', 'original\n');
    await ws.run(readFileTool, { file_path: path.join(ws.root, 'src', 'main.ts') });
    await ws.run(writeFileTool, { file_path: './src/../src/main.ts', content: 'replaced\n' });
    expect(await fs.readFile(path.join(ws.root, 'src/main.ts'), 'utf8')).toBe('replaced\n');
  });

  it('accepts files that appeared in grep results as read', async () => {
    await ws.put('src/main.ts', 'const needle = 1;\n');
    await ws.put('src/other.ts', 'nothing here\n');
    await ws.run(grepTool, { pattern: 'needle' });
    await ws.run(writeFileTool, { file_path: 'src/main.ts', content: 'x' });
    await expect(writeFileTool.execute({ file_path: 'src/other.ts', content: 'x' }, ws.context)).rejects.toMatchObject({
      code: 'FILE_NOT_READ',
    });
  });

  it('writes atomically, leaving no temp files and keeping the file mode', async () => {
    const file = await ws.put('run.sh', '#!/bin/sh\n');
    await fs.chmod(file, 0o755);
    await ws.run(readFileTool, { file_path: 'run.sh' });
    await ws.run(writeFileTool, { file_path: 'run.sh', content: '#!/bin/sh\necho hi\n' });
    expect(await fs.readdir(ws.root)).toEqual(['run.sh']);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o755);
  });

  it('refuses to write over a directory', async () => {
    await fs.mkdir(path.join(ws.root, 'dir'));
    await expect(writeFileTool.execute({ file_path: 'dir', content: 'x' }, ws.context)).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: "Cannot write to 'dir': it is a directory.",
    });
  });
});
