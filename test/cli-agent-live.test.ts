/**
 * `weft run` while an agent works, through the built CLI against the fake model server:
 * the model's text streams onto a terminal (a pseudo-terminal from util-linux `script`)
 * while the answer is still open, tool calls show as they start and end, piped output
 * keeps plain lines, and token use is summed per stage and per run in `stage-finished`,
 * `inspect`, MCP `weft_run_get` and HTTP `GET /api/v1/runs/{id}`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WEFT_BIN } from './helpers/run-cli.js';
import { ESC, screen, spawnInTerminal } from './helpers/terminal.js';
import { call, connectStdio } from './helpers/mcp-server-kit.js';
import { callApi, startServe } from './helpers/serve-kit.js';
import { pieces, startModelServer, type ModelServer, type ScriptStep } from './fixtures/model-server/model-server.js';
import {
  createSandbox,
  jsonLines,
  processesMentioning,
  stopProcesses,
  type EventJson,
  type Sandbox,
} from './fixtures/workflows-e2e/harness.js';

vi.setConfig({ testTimeout: 90_000 });

const WORKFLOW = `
[workflow]
name = "live"

[nodes.work]
kind = "agent"
prompt = "Read notes.txt and sum it up."
tools = ["read_file"]
`;

const ANSWER = 'The notes list alpha and beta, in that order.';

let box: Sandbox;
let server: ModelServer | undefined;

beforeEach(async () => {
  box = await createSandbox();
  await writeFile(join(box.ws, 'live.toml'), WORKFLOW);
  await writeFile(join(box.ws, 'notes.txt'), 'alpha\nbeta\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await box.dispose();
});

/** `[llm]` in the workspace's settings: an OpenAI-compatible endpoint at the fake server. */
async function pointAt(model: ModelServer): Promise<void> {
  await mkdir(join(box.ws, '.weft'), { recursive: true });
  await writeFile(
    join(box.ws, '.weft', 'settings.toml'),
    `[llm]\nprovider = "openai-compatible"\nbase_url = "${model.baseUrl('openai-chat')}"\nmodel = "live-model"\nmax_retries = 3\n`,
  );
}

function toolThenAnswer(answer: ScriptStep): ScriptStep[] {
  return [
    { toolCalls: [{ name: 'read_file', arguments: { file_path: 'notes.txt' } }], usage: { input: 100, output: 20, cached: 40 } },
    answer,
  ];
}

describe('weft run while an agent works', () => {
  it('streams the text onto a terminal while the answer is still open, with tool calls as they start and end', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    server = await startModelServer({
      script: toolThenAnswer({ text: ANSWER, usage: { input: 150, output: 30, cached: 100, reasoning: 12 }, pauseAfterText: released }),
    });
    await pointAt(server);

    // `script` gives `weft run` a pseudo-terminal for stdin and stdout; its output is what the terminal shows.
    const child = spawnInTerminal([process.execPath, WEFT_BIN, '--cwd', box.ws, 'run', 'live.toml'], { cwd: box.ws, env: box.env });
    let raw = '';
    const first = pieces(ANSWER)[0]!;
    const sawFirstPiece = new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        raw += chunk;
        if (raw.includes(first)) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    // The first piece reaches the terminal while the model server still holds the rest of the answer.
    await sawFirstPiece;
    expect(raw).not.toContain(ANSWER);
    expect(raw).not.toContain('succeeded');
    release();
    expect(await exited).toBe(0);

    const lines = screen(raw);
    expect(lines).toContain('  ⚙ read_file {"file_path":"notes.txt"}');
    expect(lines.some((line) => /^ {2}✓ read_file \(\d+ms\)$/.test(line))).toBe(true);
    // The text as it streamed, in one line under the stage, and not again as a turn line.
    expect(lines).toContain(`  ◆ work@1 ${ANSWER}`);
    expect(lines.filter((line) => line.includes(ANSWER))).toHaveLength(2);
    expect(lines.find((line) => line.startsWith('✓ work@1 succeeded'))).toMatch(
      /^✓ work@1 succeeded in \S+ · 250 in \/ 50 out tokens(?: · \S+ estimated)? → The notes list alpha/,
    );
  });

  it('keeps plain lines when piped, and sums tokens per stage and per run in events, inspect, weft_run_get and the HTTP API', async () => {
    server = await startModelServer({
      script: toolThenAnswer({ text: ANSWER, usage: { input: 150, output: 30, cached: 100, reasoning: 12 } }),
    });
    await pointAt(server);
    const home = join(box.ws, '.home');
    const result = await box.cli(['run', 'live.toml'], { WEFT_HOME: home });
    try {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toContain(ESC);
      expect(result.stdout).not.toContain('\r');
      const lines = result.stdout.trim().split('\n');
      expect(lines).toContain('  ◆ turn 1: (1 tool call)');
      expect(lines).toContain(`  ◆ turn 2: ${ANSWER}`);
      expect(lines).toContain('  ⚙ read_file {"file_path":"notes.txt"}');
      expect(lines.find((line) => line.startsWith('✓ work@1'))).toMatch(
        /^✓ work@1 succeeded in \S+ · 250 in \/ 50 out tokens(?: · \S+ estimated)? → /,
      );
      const id = /^run (\S+) succeeded$/m.exec(result.stderr)![1]!;

      const events = jsonLines<EventJson>((await box.cli(['events', id], { WEFT_HOME: home })).stdout);
      const stageUsage = { inputTokens: 250, outputTokens: 50, totalTokens: 300, cachedInputTokens: 140, reasoningTokens: 12 };
      expect(events.find((event) => event.type === 'stage-finished')?.payload).toMatchObject({
        status: 'succeeded',
        usage: stageUsage,
        errorCode: null,
      });
      // The streamed text is in the log (coalesced), the turn's whole text after it.
      const streamed = events.filter((event) => event.type === 'model-text-streamed');
      expect(streamed.length).toBeGreaterThan(0);
      expect(streamed.map((event) => event.payload.text).join('')).toBe(ANSWER);
      expect(
        streamed.every(
          (event) => event.seq < events.find((other) => other.type === 'model-turn-finished' && other.payload.turn === 2)!.seq,
        ),
      ).toBe(true);

      const inspected = await box.cli(['inspect', id, '--json'], { WEFT_HOME: home });
      const run = JSON.parse(inspected.stdout) as { usage: unknown; stages: { stageId: string; usage?: unknown }[] };
      // The run's usage is the stage's tokens plus their price (a loopback OpenAI-compatible model is free, and estimated).
      const priced = { ...(stageUsage as object), estimatedCostUsd: 0 };
      expect(run.usage).toEqual(priced);
      expect(run.stages).toEqual([expect.objectContaining({ stageId: 'work@1', turns: 2, usage: priced })]);
      const text = await box.cli(['inspect', id], { WEFT_HOME: home });
      expect(text.stdout).toContain('  tokens    250 in (140 cached) · 50 out (12 reasoning) · 300 total');
      expect(text.stdout).toMatch(/✓ work@1 {2}agent {4}succeeded {2}\S+ {2}2 turns · 250 in \/ 50 out tokens/);

      const tokens = { input: 250, output: 50, total: 300, cached_input: 140, cache_write: null, reasoning: 12 };
      const client = await connectStdio({ dir: box.ws, storageDir: home, remove: () => undefined });
      try {
        const got = await call(client, 'weft_run_get', { run_id: id });
        expect(got.data.results).toMatchObject({ tokens, stages: [expect.objectContaining({ stage_id: 'work@1', tokens })] });
      } finally {
        await client.close();
      }
      // `weft serve` in the workspace uses <workspace>/.home as its storage dir: the one the run was written to.
      const serve = await startServe({ dir: box.ws });
      try {
        const answer = await callApi<{ tokens: unknown; stages: { tokens: unknown }[] }>(serve, 'GET', `/runs/${id}`);
        expect(answer.status).toBe(200);
        expect(answer.body.tokens).toEqual(tokens);
        expect(answer.body.stages).toEqual([expect.objectContaining({ tokens })]);
      } finally {
        await serve.stop();
      }
    } finally {
      await stopProcesses(await processesMentioning(home));
    }
  });
});
