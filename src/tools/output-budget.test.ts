import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileArtifactSink } from './artifact-sink.js';
import { applyOutputBudget, truncateUtf8 } from './output-budget.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-budget-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('truncateUtf8', () => {
  it('keeps at most the byte limit and never splits a character', () => {
    expect(truncateUtf8('short', 10)).toBe('short');
    expect(truncateUtf8('a'.repeat(50), 10)).toBe('a'.repeat(10));
    expect(truncateUtf8('é'.repeat(50), 11)).toBe('é'.repeat(5));
    expect(truncateUtf8(`abc${'😀'.repeat(10)}`, 8)).toBe('abc😀');
    expect(truncateUtf8('😀😀', 7)).toBe('😀');
  });
});

describe('applyOutputBudget', () => {
  it('keeps every text part whole in the artifact, written in slices that never split a surrogate pair', async () => {
    // The emoji straddles the artifact sink's 1 Mi-character write boundary.
    const huge = `${'a'.repeat(1024 * 1024 - 1)}😀${'é'.repeat(1000)}`;
    const result = await applyOutputBudget(
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'text', text: huge },
        ],
        isError: false,
      },
      'mcp__x__big',
      1024,
      fileArtifactSink(dir),
    );
    expect(await readFile(result.artifactPath!, 'utf8')).toBe(`first\n\n${huge}`);
    expect(result.content.slice(0, 3)).toEqual([
      { type: 'text', text: 'first' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'text', text: 'a'.repeat(1019) },
    ]);
  });
});
