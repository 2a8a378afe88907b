import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayPath, resolveInWorkspace } from './workspace-path.js';
import { createTestWorkspace } from '../../../test/kits/file-tools-kit.js';
import type { TestWorkspace } from '../../../test/kits/file-tools-kit.js';

describe('resolveInWorkspace', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createTestWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('gives relative and absolute spellings of one file the same canonical path', async () => {
    await ws.put('src/a.ts', 'x');
    const fromRelative = await resolveInWorkspace(ws.root, 'src/a.ts');
    expect(fromRelative).toBe(path.join(ws.root, 'src', 'a.ts'));
    expect(await resolveInWorkspace(ws.root, path.join(ws.root, 'src/a.ts'))).toBe(fromRelative);
    expect(await resolveInWorkspace(ws.root, './src/../src/a.ts')).toBe(fromRelative);
  });

  it('resolves a path that does not exist yet under its nearest existing ancestor', async () => {
    expect(await resolveInWorkspace(ws.root, 'new/deep/file.txt')).toBe(path.join(ws.root, 'new', 'deep', 'file.txt'));
  });

  it('canonicalises through a workspace root reached via a symlink', async () => {
    await ws.put('a.txt', 'x');
    const alias = path.join(ws.outside, 'alias');
    await fs.symlink(ws.root, alias);
    const viaAlias = await resolveInWorkspace(alias, path.join(alias, 'a.txt'));
    expect(viaAlias).toBe(path.join(ws.root, 'a.txt'));
    expect(await resolveInWorkspace(alias, 'a.txt')).toBe(viaAlias);
    expect(await resolveInWorkspace(alias, path.join(ws.root, 'a.txt'))).toBe(viaAlias);
  });

  it('refuses paths that normalise outside the root', async () => {
    for (const escape of ['../outside/secret.txt', '..', 'a/../../x', '/etc/passwd', path.join(ws.outside, 'secret.txt')]) {
      await expect(resolveInWorkspace(ws.root, escape)).rejects.toMatchObject({
        code: 'PATH_OUTSIDE_WORKSPACE',
        message: `Path '${escape}' is outside the workspace; file tools can only reach files inside the workspace root.`,
      });
    }
  });

  it('refuses symlinks that resolve outside, including dangling ones and links to folders', async () => {
    await fs.symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'link.txt'));
    await fs.symlink(ws.outside, path.join(ws.root, 'linkdir'));
    await fs.symlink(path.join(ws.outside, 'not-yet.txt'), path.join(ws.root, 'dangling.txt'));
    for (const escape of ['link.txt', 'linkdir/secret.txt', 'linkdir/new/file.txt', 'dangling.txt']) {
      await expect(resolveInWorkspace(ws.root, escape)).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    }
  });

  it('follows symlinks that stay inside to their target', async () => {
    await ws.put('real/a.txt', 'x');
    await fs.symlink(path.join(ws.root, 'real'), path.join(ws.root, 'alias'));
    expect(await resolveInWorkspace(ws.root, 'alias/a.txt')).toBe(path.join(ws.root, 'real', 'a.txt'));
  });

  it('displays canonical paths relative to the root', () => {
    expect(displayPath(ws.root, path.join(ws.root, 'src', 'main.ts'))).toBe('src/main.ts');
    expect(displayPath(ws.root, ws.root)).toBe('.');
  });
});
