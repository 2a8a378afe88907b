/**
 * What the docs promise, checked against the built CLI (issue 16, "docs that disagree with
 * behaviour"): an edge that matches nothing ends the run failed while its stage keeps its
 * status (docs/workflow-format.md, "Selection"); a server entry with a wrong type is skipped
 * with a warning by `weft tools` and runs, while `weft mcp list` and `get` exit 2 on it (README,
 * "Settings"). `mcp get` of a server that fails exits 1 (cli-mcp-list-progress.test.ts), and
 * questions are answered with `weft answer` (cli-runs-steer.test.ts).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, type Sandbox } from './fixtures/workflows-e2e/harness.js';

vi.setConfig({ testTimeout: 60_000 });

let box: Sandbox;

beforeEach(async () => {
  box = await createSandbox();
});
afterEach(async () => {
  await box.dispose();
});

describe('the docs agree with behaviour', () => {
  it('an edge that matches no outcome fails the run; the stage stays succeeded (workflow-format.md)', async () => {
    await writeFile(
      join(box.ws, 'unmatched.toml'),
      '[nodes.check]\nkind = "command"\nrun = "echo ok"\n[[nodes.check.edges]]\nto = "never"\nwhen = "output == \'nope\'"\n\n[nodes.never]\nkind = "command"\nrun = "echo never"\n',
    );
    const result = await box.cli(['run', 'unmatched.toml']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✓ check@1 succeeded in \S+ → ok$/m);
    expect(result.stdout).not.toContain('never@1');
    expect(result.stderr).toMatch(/^run \S+ failed — .*no edge of 'check' matches its outcome/m);
  });

  it('a server entry with a wrong type is skipped with a warning by weft tools; mcp list and get exit 2 on it (README)', async () => {
    await writeFile(join(box.ws, '.mcp.json'), JSON.stringify({ mcpServers: { bad: { command: 5 } } }));
    const warning = `.mcp.json: server 'bad': field 'command' must be a string or an array of strings, not a number (5)`;
    const tools = await box.cli(['tools', 'list']);
    expect(tools.code).toBe(0);
    expect(tools.stderr).toContain(`weft warn: ${warning}`);
    expect(tools.stdout).toMatch(/^read_file {2,}builtin/m);
    expect(tools.stdout).not.toContain('mcp__bad__');
    for (const args of [['mcp', 'list'], ['mcp', 'get', 'bad']]) {
      const result = await box.cli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`weft: ${warning}`);
    }
  });
});
