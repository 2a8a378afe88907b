/**
 * Model configuration and model failures through the built CLI: each retry of a 429, a
 * 5xx or a reset is a line; a missing model or key is a configuration error (exit 2) that
 * says what to set, found before any model is called by `weft run --dry-run` and
 * `weft workflow validate --check-models`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';
import { createSandbox, type Sandbox } from './fixtures/workflows-e2e/harness.js';

vi.setConfig({ testTimeout: 60_000 });

const WORKFLOW = `
[workflow]
name = "summary"

[nodes.work]
kind = "agent"
prompt = "Sum up the notes."
`;

/** No key in the environment, whatever the machine running the tests has. */
const NO_KEYS = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', GEMINI_API_KEY: '', GOOGLE_GENERATIVE_AI_API_KEY: '', OPENROUTER_API_KEY: '' };

let box: Sandbox;
let server: ModelServer | undefined;

beforeEach(async () => {
  box = await createSandbox();
  await writeFile(join(box.ws, 'summary.toml'), WORKFLOW);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await box.dispose();
});

async function settings(llm: string): Promise<void> {
  await mkdir(join(box.ws, '.weft'), { recursive: true });
  await writeFile(join(box.ws, '.weft', 'settings.toml'), `[llm]\n${llm}\n`);
}

const cli = (...args: string[]) => box.cli(args, NO_KEYS);

describe('model requests that fail and are retried', () => {
  it('shows each retry of a reset, a 503 and a 429 as a line and an event, then goes on', async () => {
    server = await startModelServer({
      script: [
        { reset: true },
        { error: { status: 503, message: 'overloaded', headers: { 'retry-after-ms': '0' } } },
        { error: { status: 429, message: 'slow down', headers: { 'retry-after-ms': '0' } } },
        { text: 'All done.' },
      ],
    });
    await settings(`provider = "openai-compatible"\nbase_url = "${server.baseUrl('openai-chat')}"\nmodel = "m"\nmax_retries = 3`);
    const result = await cli('run', 'summary.toml');
    expect(result.code, result.stderr).toBe(0);
    const retries = result.stdout.split('\n').filter((line) => line.startsWith('  ↻ '));
    expect(retries).toEqual([
      expect.stringMatching(/^ {2}↻ model request failed \(.+\); retry 1 of 3 in 2(\.0)?s$/),
      expect.stringMatching(/^ {2}↻ model request failed \(503: overloaded\); retry 2 of 3 in 0ms$/),
      expect.stringMatching(/^ {2}↻ model request failed \(429: slow down\); retry 3 of 3 in 0ms$/),
    ]);
    expect(result.stdout).toContain('  ◆ turn 1: All done.');
    expect(server.requests).toHaveLength(4);
    const id = /^run (\S+) succeeded$/m.exec(result.stderr)![1]!;
    const events = await box.events(id, '--type', 'model-request-retried');
    expect(events.map((event) => [event.payload.attempt, event.payload.status])).toEqual([
      [1, null],
      [2, 503],
      [3, 429],
    ]);
  });
});

describe('a missing model configuration', () => {
  it('fails weft run with exit 2 and what to set', async () => {
    const result = await cli('run', 'summary.toml');
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/✗ work@1 failed in \S+: No model configured\. Set model = /);
    expect(result.stderr).toContain('configuration error (exit 2) — fix and run again:\n  work@1: No model configured.');
  });

  it('is found by weft run --dry-run before any model is called: no model, a missing key, then a usable one', async () => {
    const none = await cli('run', 'summary.toml', '--dry-run');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('work@1: No model configured.');

    await settings('provider = "anthropic"\nmodel = "claude-test"');
    const noKey = await cli('run', 'summary.toml', '--dry-run');
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain(
      "work@1: No API key for provider 'anthropic': ANTHROPIC_API_KEY is not set. Export ANTHROPIC_API_KEY=<key>",
    );

    server = await startModelServer({ script: [] });
    await settings(`provider = "openai-compatible"\nbase_url = "${server.baseUrl('openai-chat')}"\nmodel = "m"`);
    const usable = await cli('run', 'summary.toml', '--dry-run');
    expect(usable.code, usable.stderr).toBe(0);
    expect(usable.stdout).toContain('✓ work@1 succeeded');
    expect(usable.stdout).toContain('(dry run) agent stage on openai-compatible:m');
    expect(server.requests).toHaveLength(0);
  });

  it('is found by workflow validate --check-models, in text and JSON', async () => {
    const none = await cli('workflow', 'validate', 'summary.toml', '--check-models');
    expect(none.code).toBe(2);
    expect(none.stdout).toContain("ok — workflow 'summary', 1 nodes");
    expect(none.stdout).toContain('  ✗ work (agent): No model configured. Set model = ');
    const json = await cli('workflow', 'validate', 'summary.toml', '--check-models', '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: true,
      models: [
        {
          node: 'work',
          kind: 'agent',
          ok: false,
          model: null,
          code: 'MODEL_CONFIG_INVALID',
          problem: expect.stringContaining('No model configured'),
        },
      ],
    });

    await settings('provider = "anthropic"\nmodel = "claude-test"');
    const withKey = await box.cli(['workflow', 'validate', 'summary.toml', '--check-models'], {
      ...NO_KEYS,
      ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
    });
    expect(withKey.code, withKey.stderr).toBe(0);
    expect(withKey.stdout).toContain('  ✓ work (agent): anthropic:claude-test (key from ANTHROPIC_API_KEY)');
    const noKey = await cli('workflow', 'validate', 'summary.toml', '--check-models', '--model', 'openrouter:some/model');
    expect(noKey.code).toBe(2);
    expect(noKey.stdout).toContain("  ✗ work (agent): No API key for provider 'openrouter': OPENROUTER_API_KEY is not set.");
  });
});
