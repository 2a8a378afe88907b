import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globTool } from './glob.js';
import { createTestWorkspace } from '../../../test/kits/file-tools-kit.js';
import type { TestWorkspace } from '../../../test/kits/file-tools-kit.js';

describe('glob', () => {
  let ws: TestWorkspace;
  const touch = async (relative: string, epochSeconds: number): Promise<void> => {
    const file = await ws.put(relative, relative);
    await fs.utimes(file, epochSeconds, epochSeconds);
  };
  beforeEach(async () => {
    ws = await createTestWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('lists matches newest first, relative to the workspace root', async () => {
    await touch('src/old.ts', 1_000_000);
    await touch('src/new.ts', 3_000_000);
    await touch('src/mid/mid.ts', 2_000_000);
    await touch('src/readme.md', 4_000_000);
    expect(await ws.run(globTool, { pattern: '**/*.ts' })).toBe('src/new.ts\nsrc/mid/mid.ts\nsrc/old.ts');
    expect(await ws.run(globTool, { pattern: '*.ts', path: 'src' })).toBe('src/new.ts\nsrc/old.ts');
    expect(await ws.run(globTool, { pattern: '*.ts', path: path.join(ws.root, 'src') })).toBe('src/new.ts\nsrc/old.ts');
  });

  it('honours .gitignore and skips .git', async () => {
    await ws.put('.gitignore', 'build/\nsecret.ts\n');
    await touch('build/out.ts', 2_000_000);
    await touch('src/secret.ts', 2_000_000);
    await touch('src/kept.ts', 1_000_000);
    await touch('.git/hooks/x.ts', 3_000_000);
    expect(await ws.run(globTool, { pattern: '**/*.ts' })).toBe('src/kept.ts');
  });

  it('reports no matches and refuses patterns that climb out', async () => {
    await ws.put('a.txt', 'x');
    expect(await ws.run(globTool, { pattern: '*.rs' })).toBe("No files match '*.rs' in '.'.");
    for (const pattern of ['../*', '../outside/**', '{..,src}/*', path.join(ws.outside, '*')]) {
      await expect(globTool.execute({ pattern }, ws.context)).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    }
  });

  it('accepts an absolute pattern inside the workspace', async () => {
    await touch('src/a.ts', 1_000_000);
    expect(await ws.run(globTool, { pattern: path.join(ws.root, 'src', '*.ts') })).toBe('src/a.ts');
  });
});
