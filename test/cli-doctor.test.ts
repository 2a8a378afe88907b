import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from './helpers/run-cli.js';

const FIXTURE = join(REPO_ROOT, 'test/fixtures/servers/fixture-server.mjs');

let base: string;
let workspace: string;
let env: Record<string, string>;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-cli-doctor-'));
  workspace = join(base, 'ws');
  await mkdir(workspace);
  await mkdir(join(base, 'user'));
  env = { WEFT_HOME: join(base, 'weft-home'), HOME: join(base, 'user'), CODEX_HOME: join(base, 'user', 'codex') };
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('weft doctor', () => {
  it('reports each check with the fix for each problem, and exits 1 when one failed', async () => {
    await writeFile(
      join(workspace, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          good: { command: 'node', args: [FIXTURE] },
          broken: { command: 'node', args: [FIXTURE], env: { FIXTURE_EXIT_AT_START: '3' } },
        },
      }),
    );
    await mkdir(join(base, 'weft-home'));
    await writeFile(
      join(base, 'weft-home', 'settings.toml'),
      '[llm]\nprovider = "openai"\nmodel = "gpt-test"\napi_key_env = "WEFT_DOCTOR_TEST_KEY"\n',
    );
    const result = await runCli(['doctor', '--json'], { cwd: workspace, env });
    expect(result.code).toBe(1);
    const checks = Object.fromEntries(
      (JSON.parse(result.stdout) as { name: string; level: string; detail: string; fix: string | null }[]).map((check) => [
        check.name,
        check,
      ]),
    );
    expect(Object.keys(checks)).toEqual([
      'node',
      'store',
      'mcp broken',
      'mcp good',
      'workspaces',
      'sandbox',
      'model',
      'cli claude',
      'cli codex',
      'cli gemini',
      'claude-code',
      'cursor',
      'codex',
    ]);
    expect(checks.node).toMatchObject({ level: 'ok', fix: null });
    // The test machine has bubblewrap, socat and setpriv (test/system-packages.ts) and Linux ≥ 6.14.
    expect(checks.sandbox).toMatchObject({
      level: 'ok',
      detail: 'bubblewrap, socat and setpriv found (mode = "none" in settings)',
      fix: null,
    });
    expect(checks.store).toMatchObject({ level: 'ok', detail: expect.stringContaining(join(base, 'weft-home')) });
    expect(checks['mcp good']).toMatchObject({ level: 'ok', detail: expect.stringMatching(/^ready, \d+ tools/) });
    expect(checks['mcp broken']).toMatchObject({
      level: 'fail',
      fix: `run 'weft mcp test broken' for details; fix or disable the entry in ${join(workspace, '.mcp.json')}`,
    });
    expect(checks.model).toEqual({
      name: 'model',
      level: 'fail',
      detail: 'openai:gpt-test, but WEFT_DOCTOR_TEST_KEY is not set',
      fix: 'export WEFT_DOCTOR_TEST_KEY=… before running agent stages',
    });
    expect(checks.codex).toMatchObject({
      level: 'warn',
      fix: `add [mcp_servers.weft] with command = "weft" and args = ["mcp", "start"] to ${join(base, 'user', 'codex', 'config.toml')}`,
    });

    await mkdir(join(base, 'user', 'codex'));
    await writeFile(join(base, 'user', 'codex', 'config.toml'), '[mcp_servers.weft]\ncommand = "weft"\n');
    await writeFile(
      join(workspace, '.mcp.json'),
      JSON.stringify({ mcpServers: { weft: { command: 'weft', args: ['mcp', 'start'], disabled: true } } }),
    );
    const healthy = await runCli(['doctor'], { cwd: workspace, env: { ...env, WEFT_DOCTOR_TEST_KEY: 'k' } });
    expect(healthy.code).toBe(0);
    expect(healthy.stdout).toContain('✓ model: openai:gpt-test\n');
    expect(healthy.stdout).toContain('✓ codex: has a weft entry\n');
    expect(healthy.stdout).toContain('✓ claude-code: has a weft entry\n');
    expect(healthy.stdout).toContain("! cursor: no weft entry\n    fix: run 'weft mcp init cursor' to use weft from Cursor\n");
  });

  it('checks each coding CLI: where its binary is, its version, and the environment it needs (named, never printed); a CLI a workflow uses fails without them', async () => {
    await mkdir(join(workspace, '.weft'));
    await writeFile(
      join(workspace, 'fix.toml'),
      '[workflow]\nname = "fix"\nstart = "code"\n[nodes.code]\nkind = "agent"\nbackend = "cli"\ncli = "codex"\nprompt = "Fix it."\n',
    );
    await writeFile(
      join(workspace, '.weft', 'settings.toml'),
      '[llm]\nbackend = "cli"\ncli = "claude"\n[cli.claude]\npath = "nowhere/claude"\n',
    );
    // Only Node on PATH: Codex and Gemini CLI are found as the npm packages weft depends on.
    const cliEnv = {
      ...env,
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_AUTH_TOKEN: '',
      CLAUDE_CODE_OAUTH_TOKEN: '',
      GEMINI_API_KEY: '',
    };
    const doctor = async (extra: Record<string, string>) => {
      const result = await runCli(['doctor', '--json'], { cwd: workspace, env: { ...cliEnv, ...extra } });
      return {
        result,
        checks: Object.fromEntries(
          (JSON.parse(result.stdout) as { name: string; level: string; detail: string; fix: string | null }[]).map((check) => [
            check.name,
            check,
          ]),
        ),
      };
    };

    const missing = await doctor({});
    expect(missing.result.code).toBe(1);
    expect(missing.checks['cli claude']).toEqual({
      name: 'cli claude',
      level: 'fail',
      detail: `Claude Code not found at ${join(workspace, 'nowhere/claude')} ([cli.claude] path) (used by [llm] backend = "cli")`,
      fix: 'fix [cli.claude] path in settings, or remove it to look on PATH',
    });
    expect(missing.checks['cli codex']).toMatchObject({ level: 'fail', fix: 'export OPENAI_API_KEY=… before running Codex stages' });
    expect(missing.checks['cli codex']!.detail).toMatch(
      /^Codex codex-cli 0\.169\.0 at \S+ \(npm package @openai\/codex\); needs OPENAI_API_KEY, not set \(used by fix\.toml\)$/,
    );
    // No workflow or setting uses Gemini CLI: what it lacks is not a failure.
    expect(missing.checks['cli gemini']).toMatchObject({ level: 'ok', fix: null });
    expect(missing.checks['cli gemini']!.detail).toMatch(
      /^Gemini CLI 0\.61\.0 at \S+ \(npm package @google\/gemini-cli\); needs GEMINI_API_KEY, not set \(optional: no workflow or setting uses it\)$/,
    );

    const secret = 'sk-doctor-secret-0123456789';
    const ready = await doctor({ OPENAI_API_KEY: secret, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(ready.checks['cli codex']).toMatchObject({ level: 'ok', fix: null });
    expect(ready.checks['cli codex']!.detail).toMatch(/; OPENAI_API_KEY set, OPENAI_BASE_URL set \(used by fix\.toml\)$/);
    expect(ready.result.stdout).not.toContain(secret);
    expect(ready.result.stdout).not.toContain('127.0.0.1:9');
  });
});
