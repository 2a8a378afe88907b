import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerSecret } from '../core/redact.js';
import { fileArtifactSink } from './artifact-sink.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-artifacts-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('fileArtifactSink', () => {
  it('keeps the full output 0600 with its secrets redacted', async () => {
    registerSecret('artifact-secret-123456', 'ARTIFACT_TEST_TOKEN');
    const path = await fileArtifactSink(dir).save('mcp__x__dump', [`line\nkey=artifact-secret-123456\n${'y'.repeat(1000)}`]);
    expect(readFileSync(path, 'utf8')).toBe(`line\nkey=[redacted:ARTIFACT_TEST_TOKEN]\n${'y'.repeat(1000)}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
