/**
 * A handful of mutated workflows through `weft workflow validate` as a child process: exit 0
 * with "ok" when the parser accepts the file, exit 2 with `file:line:` problems when it does
 * not, and never an internal error.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutateWorkflows, readWorkflowSamples, type WorkflowSample } from '../src/runs/workflow/workflow-mutator.js';
import { REPO_ROOT, runCli } from './helpers/run-cli.js';

const SAMPLES = readWorkflowSamples([
  join(REPO_ROOT, 'examples'),
  join(REPO_ROOT, 'test/fixtures/workflows'),
  join(REPO_ROOT, 'test/fixtures/workflows-e2e'),
]);

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-fuzz-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Writes the case next to copies of its neighbours, so prompt and child files still resolve. */
async function placeCase(sample: WorkflowSample, index: number): Promise<string> {
  const folder = join(base, `case-${index}`);
  await cp(dirname(sample.file), folder, { recursive: true });
  const file = join(folder, basename(sample.file));
  await writeFile(file, sample.text);
  return file;
}

describe('weft workflow validate on mutated workflows', () => {
  it('exits 0 or 2 with file:line problems, never with an internal error', async () => {
    const kindTable = { file: join(REPO_ROOT, 'test/fixtures/workflows/valid/minimal.toml'), text: '[nodes.a]\nkind = { x = 1 }\n' };
    const cases = [kindTable, ...mutateWorkflows(SAMPLES, 7, 7)];
    const results = await Promise.all(
      cases.map(async (sample, index) => {
        const file = await placeCase(sample, index);
        const { code, stdout, stderr } = await runCli(['workflow', 'validate', file], { cwd: base });
        const problemLines = stderr.trim().split('\n');
        const wellFormed =
          code === 0
            ? stdout.startsWith(`${file}: ok`)
            : code === 2 &&
              problemLines[0]!.startsWith(`weft: ${file}:`) &&
              problemLines.every((line) => /^(weft: )?\/.+:\d+: \S/.test(line));
        return { file: basename(sample.file), code, wellFormed, internal: stderr.includes('internal error') };
      }),
    );
    expect(results.filter((result) => !result.wellFormed || result.internal)).toEqual([]);
    // The handful covers both outcomes: the seed gives valid and invalid cases.
    expect(new Set(results.map((result) => result.code))).toEqual(new Set([0, 2]));
    expect(results[0]).toMatchObject({ code: 2 });
  });
});
