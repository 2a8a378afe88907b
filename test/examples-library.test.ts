/**
 * examples/library/ run as a user runs them (against the built package, which a clone
 * imports as 'weft-runtime' through its own `exports`), with a temp storage dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runNode } from './helpers/run-node.js';
import { startModelServer } from './fixtures/model-server/model-server.js';

vi.setConfig({ testTimeout: 120_000 });

const EXAMPLES = resolve(fileURLToPath(new URL('../examples/library', import.meta.url)));
let storageDir: string;
beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), 'weft-examples-'));
});
afterAll(async () => {
  await rm(storageDir, { recursive: true, force: true });
});

/** The `weft/runs/*` branches of the repository holding the examples (none when it is not a git checkout, e.g. an unpacked tarball). */
function runBranches(): string[] {
  const listed = spawnSync('git', ['for-each-ref', '--format=%(refname)', 'refs/heads/weft/runs/'], { cwd: EXAMPLES, encoding: 'utf8' });
  return listed.status === 0 ? listed.stdout.split('\n').filter((line) => line !== '') : [];
}

/** Starts `node <file>` and resolves with the URL once it prints `listening on <url>`. */
function startListening(file: string, env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, [file], { cwd: EXAMPLES, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const read = (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    void exited.then((code) => reject(new Error(`${file} exited with ${code}: ${output}`)));
  });
  return { child, url, exited, output: () => output };
}

describe('examples/library', () => {
  it('mount-server.mjs: the app keeps its own route, weft answers /api/v1 and /mcp behind the token, and SIGTERM ends it cleanly', async () => {
    const token = 'example-token-0123456789abcdef';
    const started = startListening(join(EXAMPLES, 'mount-server.mjs'), {
      ...process.env,
      WEFT_HOME: storageDir,
      WEFT_TOKEN: token,
      PORT: '0',
    });
    try {
      const url = await started.url;
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ ok: true });
      expect((await fetch(`${url}/api/v1/runs`)).status).toBe(401);
      const listed = await fetch(`${url}/api/v1/runs`, { headers: { authorization: `Bearer ${token}` } });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toMatchObject({ runs: expect.any(Array) });
      const client = new Client({ name: 'example-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('weft_run_create');
      await client.close();
    } finally {
      started.child.kill('SIGTERM');
    }
    expect(await started.exited).toBe(0);
  });

  it('ai-agent.ts: generateText calls the memory server (from npm) through weft-runtime/ai-sdk; the delete the rules forbid comes back to the model as a refusal', async () => {
    const model = await startModelServer({
      script: [
        {
          toolCalls: [
            {
              name: 'mcp__memory__create_entities',
              arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['likes tea'] }] },
            },
            { name: 'mcp__memory__delete_entities', arguments: { entityNames: ['Ada'] } },
          ],
        },
        { toolCalls: [{ name: 'mcp__memory__search_nodes', arguments: { query: 'Ada' } }] },
        { text: 'Ada likes tea.' },
      ],
    });
    const memoryFile = join(storageDir, 'memory.jsonl');
    try {
      const env = {
        ...process.env,
        OPENAI_BASE_URL: model.baseUrl('openai-chat'),
        OPENAI_API_KEY: 'test-key',
        MODEL: 'test-model',
        MEMORY_FILE_PATH: memoryFile,
      };
      const result = await runNode(['--import', 'tsx', join(EXAMPLES, 'ai-agent.ts'), 'What do you know about Ada?'], {
        cwd: EXAMPLES,
        env,
      });
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength(4);
      expect(lines[0]).toBe('mcp__memory__create_entities: ok');
      expect(lines[1]).toMatch(/^mcp__memory__delete_entities: refused \(.*denied/i);
      expect(lines.slice(2)).toEqual(['mcp__memory__search_nodes: ok', 'Ada likes tea.']);
      // The model was offered the server's tools and saw what the real server answered.
      expect(model.requests[0]!.tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['mcp__memory__read_graph', 'mcp__memory__search_nodes']),
      );
      expect(model.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', text: 'What do you know about Ada?' });
      expect(model.requests[2]!.messages.filter((message) => message.role === 'tool').at(-1)?.content).toContain('likes tea');
      expect(await readFile(memoryFile, 'utf8')).toContain('"Ada"');
    } finally {
      await model.close();
    }
  });

  it('embed-runs.mjs runs the release workflow module: its function step counts the changes and the branch picks a minor release', async () => {
    const branchesBefore = runBranches();
    const result = await runNode([join(EXAMPLES, 'embed-runs.mjs')], { cwd: EXAMPLES, env: { ...process.env, WEFT_HOME: storageDir } });
    expect(result.code, result.stderr).toBe(0);
    // The example works in place (it writes no files): no run branch or worktree of weft's own checkout, which outlives the temp storage dir.
    expect(runBranches().filter((branch) => !branchesBefore.includes(branch))).toEqual([]);
    expect(result.stdout.trim().split('\n')).toEqual([
      'changes@1 succeeded: "fix: a\\nfeat: b\\nfix: c"',
      'count@1 succeeded: {"fixes":2,"features":1}',
      'decide@1 succeeded: {"fixes":2,"features":1}',
      'minor@1 succeeded: "2.1.0: minor release"',
      'run succeeded',
    ]);
  });
});
