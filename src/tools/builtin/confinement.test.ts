import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tool } from '../tool.js';
import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { listDirTool } from './list-dir.js';
import { readFileTool } from './read-file.js';
import { writeFileTool } from './write-file.js';
import { createTestWorkspace } from '../../../test/kits/file-tools-kit.js';
import type { TestWorkspace } from '../../../test/kits/file-tools-kit.js';

// Each tool with the argument that carries a path, and whether that path names a file or a folder.
const cases: Array<{ tool: Tool; key: string; kind: 'file' | 'dir'; extra: Record<string, unknown> }> = [
  { tool: readFileTool, key: 'file_path', kind: 'file', extra: {} },
  { tool: writeFileTool, key: 'file_path', kind: 'file', extra: { content: 'pwned' } },
  { tool: editFileTool, key: 'file_path', kind: 'file', extra: { old_string: 'top', new_string: 'pwned' } },
  { tool: grepTool, key: 'path', kind: 'file', extra: { pattern: 'secret' } },
  { tool: grepTool, key: 'path', kind: 'dir', extra: { pattern: 'secret' } },
  { tool: listDirTool, key: 'path', kind: 'dir', extra: {} },
  { tool: globTool, key: 'path', kind: 'dir', extra: { pattern: '**/*' } },
];

describe('workspace confinement of the file tools', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createTestWorkspace();
    await fs.symlink(ws.outside, path.join(ws.root, 'escape-dir'));
    await fs.symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'escape.txt'));
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  for (const { tool, key, kind, extra } of cases) {
    it(`${tool.name} refuses ${key} (${kind}) via '..', an absolute path outside and an escaping symlink`, async () => {
      const escapes =
        kind === 'file'
          ? [
              '../outside/secret.txt',
              'sub/../../outside/secret.txt',
              path.join(ws.outside, 'secret.txt'),
              '/etc/passwd',
              'escape.txt',
              'escape-dir/secret.txt',
            ]
          : ['..', '../outside', ws.outside, '/etc', 'escape-dir'];
      for (const escape of escapes) {
        await expect(tool.execute({ ...extra, [key]: escape }, ws.context), `${tool.name} ${escape}`).rejects.toMatchObject({
          code: 'PATH_OUTSIDE_WORKSPACE',
        });
      }
      expect(await fs.readFile(path.join(ws.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
      expect(await fs.readdir(ws.outside)).toEqual(['secret.txt']);
    });
  }

  it('grep with a glob and glob itself never walk through a symlinked folder that leads outside', async () => {
    await fs.mkdir(path.join(ws.outside, 'deep'));
    await fs.writeFile(path.join(ws.outside, 'deep', 'more.txt'), 'secret too\n');
    await ws.put('sub/kept.txt', 'secret kept\n');
    await fs.symlink(ws.outside, path.join(ws.root, 'sub', 'inner'));
    for (const glob of ['escape-dir/*', 'escape-dir/**', 'escape-dir/deep/*', 'sub/inner/*', '{escape-dir,sub}/**', '**/*']) {
      expect(await ws.run(grepTool, { pattern: 'secret', glob }), `grep glob ${glob}`).not.toMatch(/top secret|secret too/);
      expect(await ws.run(globTool, { pattern: glob }), `glob ${glob}`).not.toMatch(/secret\.txt|more\.txt/);
    }
    expect(await ws.run(grepTool, { pattern: 'secret', glob: '{escape-dir,sub}/**' })).toBe('sub/kept.txt:1:secret kept');
    expect(await ws.run(globTool, { pattern: '{escape-dir,sub}/**' })).toBe('sub/kept.txt');
  });

  it('grep and glob still follow a symlinked folder that stays inside the workspace', async () => {
    await ws.put('src/a.txt', 'secret inside\n');
    await fs.symlink(path.join(ws.root, 'src'), path.join(ws.root, 'src-link'));
    expect(await ws.run(grepTool, { pattern: 'secret', glob: 'src-link/*' })).toBe('src-link/a.txt:1:secret inside');
    expect(await ws.run(globTool, { pattern: 'src-link/*' })).toBe('src-link/a.txt');
  });

  it('write_file refuses to create a file through a dangling symlink pointing outside', async () => {
    await fs.symlink(path.join(ws.outside, 'planted.txt'), path.join(ws.root, 'dangling.txt'));
    await expect(writeFileTool.execute({ file_path: 'dangling.txt', content: 'x' }, ws.context)).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_WORKSPACE',
      message: "Path 'dangling.txt' is outside the workspace; file tools can only reach files inside the workspace root.",
    });
    expect(await fs.readdir(ws.outside)).toEqual(['secret.txt']);
  });
});
