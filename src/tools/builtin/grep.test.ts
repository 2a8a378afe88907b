import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { grepTool } from './grep.js';
import { createTestWorkspace } from '../../../test/kits/file-tools-kit.js';
import type { TestWorkspace } from '../../../test/kits/file-tools-kit.js';

describe('grep', () => {
  let ws: TestWorkspace;
  const isRead = (relative: string): boolean => ws.context.readFiles.hasRead(path.join(ws.root, relative));
  beforeEach(async () => {
    ws = await createTestWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('returns file:line:text, honours .gitignore, skips .git and marks only matching files read', async () => {
    await ws.put('.gitignore', 'dist/\n*.log\n');
    await ws.put('src/a.ts', 'import x;\nconst needle = 1;\n');
    await ws.put('src/b.ts', 'no match here\n');
    await ws.put('dist/out.js', 'needle in build output\n');
    await ws.put('debug.log', 'needle in a log\n');
    await ws.put('.git/config', 'needle in git\n');
    await ws.put('.env', 'NEEDLE_TOKEN=needle\n');
    expect(await ws.run(grepTool, { pattern: 'needle' })).toBe('.env:1:NEEDLE_TOKEN=needle\nsrc/a.ts:2:const needle = 1;');
    expect(isRead('src/a.ts')).toBe(true);
    expect(isRead('.env')).toBe(true);
    expect(isRead('src/b.ts')).toBe(false);
    expect(isRead('dist/out.js')).toBe(false);
  });

  it('applies the root .gitignore when searching a subfolder', async () => {
    await ws.put('.gitignore', 'src/generated/\n');
    await ws.put('src/generated/g.ts', 'needle\n');
    await ws.put('src/main.ts', 'needle\n');
    expect(await ws.run(grepTool, { pattern: 'needle', path: 'src' })).toBe('src/main.ts:1:needle');
  });

  it('searches a named file even when it is ignored', async () => {
    await ws.put('.gitignore', '*.log\n');
    await ws.put('app.log', 'first\nneedle\n');
    expect(await ws.run(grepTool, { pattern: 'needle', path: 'app.log' })).toBe('app.log:2:needle');
    expect(isRead('app.log')).toBe(true);
  });

  it('filters by glob at any depth, matches case-insensitively and skips binary files', async () => {
    await ws.put('src/deep/a.ts', 'Needle\n');
    await ws.put('src/a.md', 'needle\n');
    await ws.put('blob.bin', new Uint8Array([110, 101, 101, 100, 108, 101, 0, 10]));
    expect(await ws.run(grepTool, { pattern: 'needle', glob: '*.ts', case_insensitive: true })).toBe('src/deep/a.ts:1:Needle');
    expect(await ws.run(grepTool, { pattern: 'needle' })).toBe('src/a.md:1:needle');
  });

  it('says when results were cut at max_results', async () => {
    await ws.put('a.txt', 'hit 1\nhit 2\nhit 3\nhit 4\n');
    await ws.put('b.txt', 'hit 5\n');
    expect(await ws.run(grepTool, { pattern: 'hit \\d', max_results: 3 })).toBe(
      'a.txt:1:hit 1\na.txt:2:hit 2\na.txt:3:hit 3\n' +
        'Results cut at max_results=3; narrow the pattern, path or glob, or raise max_results.',
    );
    expect(isRead('b.txt')).toBe(false);
  });

  it('reports no matches plainly', async () => {
    await ws.put('a.txt', 'nothing\n');
    expect(await ws.run(grepTool, { pattern: 'absent' })).toBe('No matches for /absent/ in 1 file.');
  });

  it('rejects an invalid regex with a message naming the pattern', async () => {
    const failure = grepTool.execute({ pattern: 'foo(' }, ws.context);
    await expect(failure).rejects.toMatchObject({ code: 'TOOL_INVALID_ARGS', data: { pattern: 'foo(' } });
    await expect(failure).rejects.toThrow(/^Invalid regular expression 'foo\(': /);
  });

  it('does not follow symlinks out of the workspace while walking', async () => {
    await fs.symlink(ws.outside, path.join(ws.root, 'linkdir'));
    await fs.symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'link.txt'));
    await ws.put('a.txt', 'public\n');
    expect(await ws.run(grepTool, { pattern: 'secret' })).toBe('No matches for /secret/ in 1 file.');
  });
});
