import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withDiskFullNote } from './disk-full.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-disk-note-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('withDiskFullNote', () => {
  it("names ENOSPC and the directory when the tool's message says the disk is full", async () => {
    const note = await withDiskFullNote(dir, new Error("fatal: sha1 file '.git/index.lock' write error. Out of diskspace."));
    expect(note).toMatch(new RegExp(`^ENOSPC: the disk holding ${dir} is full`));
    expect(note).toContain('Out of diskspace.');
  });

  it('leaves other failures as they are on a disk with room', async () => {
    expect(await withDiskFullNote(dir, new Error('fatal: not a git repository'))).toBe('fatal: not a git repository');
  });
});
