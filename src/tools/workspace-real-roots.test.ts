import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceRealRoots } from './workspace-real-roots.js';

describe('WorkspaceRealRoots', () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'weft-real-roots-')));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves a root through its symlink once and keeps that answer for its lifetime', async () => {
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    const root = join(dir, 'root');
    symlinkSync(join(dir, 'a'), root);
    const roots = new WorkspaceRealRoots();
    expect(await roots.get(root)).toBe(join(dir, 'a'));
    unlinkSync(root);
    symlinkSync(join(dir, 'b'), root);
    expect(await roots.get(root)).toBe(join(dir, 'a'));
    expect(await new WorkspaceRealRoots().get(root)).toBe(join(dir, 'b'));
  });

  it('does not remember a failure: the next call resolves the root once it exists', async () => {
    const root = join(dir, 'later');
    const roots = new WorkspaceRealRoots();
    await expect(roots.get(root)).rejects.toMatchObject({ code: 'ENOENT' });
    mkdirSync(root);
    expect(await roots.get(root)).toBe(root);
  });
});
