/**
 * The MCP inspector's CLI (built on the v1 SDK client) lists and calls weft's tools and
 * reads its resources over stdio: a second, independent client implementation.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, WEFT_BIN } from './helpers/run-cli.js';

const INSPECTOR = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build/cli.js');

describe('the MCP inspector CLI against weft mcp start', () => {
  let root: string;
  let workspace: string;
  let storage: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'weft-inspector-'));
    // inspector-cli 1.0.3 looks for '../package.json' from its working directory.
    writeFileSync(join(root, 'package.json'), '{}\n');
    workspace = join(root, 'workspace');
    storage = join(root, 'store');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'quick.toml'), '[nodes.hello]\nkind = "command"\nrun = "echo hi"\n');
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function inspect(...args: string[]): Promise<{ code: number | null; json: Record<string, unknown>; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [INSPECTOR, '--cli', '-e', `WEFT_HOME=${storage}`, process.execPath, WEFT_BIN, 'mcp', 'start', ...args],
        { cwd: workspace, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, json: stdout.trim() ? (JSON.parse(stdout) as Record<string, unknown>) : {}, stderr }));
    });
  }

  it('lists the tools', async () => {
    const listed = await inspect('--method', 'tools/list');
    expect(listed.code, listed.stderr).toBe(0);
    expect((listed.json.tools as { name: string }[]).map((tool) => tool.name)).toEqual([
      'weft_run_create',
      'weft_run_search',
      'weft_run_get',
      'weft_run_interact',
      'weft_run_gather',
      'weft_run_pair',
      'weft_run_events',
    ]);
  });

  it('calls weft_run_create and weft_run_get, and reads the run resource', async () => {
    const created = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'weft_run_create',
      '--tool-arg',
      'runs=[{"workflow":"quick.toml","start":false}]',
    );
    expect(created.code, created.stderr).toBe(0);
    const run = (created.json.structuredContent as { results: { run: { id: string; status: string } }[] }).results[0]!.run;
    expect(run.status).toBe('submitted');
    const got = await inspect('--method', 'tools/call', '--tool-name', 'weft_run_get', '--tool-arg', `run_id=${run.id}`);
    expect(got.json).toMatchObject({ structuredContent: { run: { id: run.id, workflow: 'quick', status: 'submitted' } } });
    const bad = await inspect('--method', 'tools/call', '--tool-name', 'weft_run_get', '--tool-arg', 'run_id=../../etc/passwd');
    expect(bad.json).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^INVALID_ID: /) }] });
    const resource = await inspect('--method', 'resources/read', '--uri', `weft://runs/${run.id}`);
    const contents = resource.json.contents as { text: string }[];
    expect(JSON.parse(contents[0]!.text)).toMatchObject({ run: { id: run.id } });
  });
});
