/**
 * examples/library/ run as a user runs them (against the built package, which a clone
 * imports as 'weft-runtime' through its own `exports`), with a temp storage dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runNode } from './helpers/run-node.js';

vi.setConfig({ testTimeout: 120_000 });

const EXAMPLES = resolve(fileURLToPath(new URL('../examples/library', import.meta.url)));
let storageDir: string;
beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), 'weft-examples-'));
});
afterAll(async () => {
  await rm(storageDir, { recursive: true, force: true });
});

describe('examples/library', () => {
  it('embed-runs.mjs runs the release workflow module: its function step counts the changes and the branch picks a minor release', async () => {
    const result = await runNode([join(EXAMPLES, 'embed-runs.mjs')], { cwd: EXAMPLES, env: { ...process.env, WEFT_HOME: storageDir } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'changes@1 succeeded: "fix: a\\nfeat: b\\nfix: c"',
      'count@1 succeeded: {"fixes":2,"features":1}',
      'decide@1 succeeded: {"fixes":2,"features":1}',
      'minor@1 succeeded: "2.1.0: minor release"',
      'run succeeded',
    ]);
  });
});
