/**
 * The bare command for each CLI in the cli-stage benchmark: what a person would run to get
 * one answer from the CLI headless, with the same model endpoint and the same quiet config
 * weft gives it, but none of weft's own part (no run-tools MCP server, no approval policy).
 * Codex and Gemini CLI get the config weft writes (`codexConfig`, `geminiSettings`) without
 * its MCP servers, since neither can be pointed at the fake model server otherwise.
 */
import { join } from 'node:path';
import { stringify } from 'smol-toml';
import type { CliName } from '../../src/agent/cli-backend/cli-adapter.js';
import { bundledClaudeBinary } from '../../src/agent/cli-backend/claude-code-adapter.js';
import { bundledCodexBinary, codexConfig } from '../../src/agent/cli-backend/codex-adapter.js';
import { bundledGeminiBinary, geminiSettings } from '../../src/agent/cli-backend/gemini-adapter.js';
import { stageSpec } from '../../test/fixtures/cli-backend/stage-spec.js';

export const PROMPT = 'Say hi.';

export interface BareCommand {
  args: string[];
  env: Record<string, string>;
  files: { path: string; text: string }[];
  /** Written to stdin, which is then closed; undefined: stdin closed at once. */
  stdin?: string;
}

export interface BenchCli {
  cli: CliName;
  displayName: string;
  binary: string | undefined;
  model: string;
  /** The environment pointing the CLI at the fake model server. */
  env(serverUrl: string): Record<string, string>;
  bare(dir: string, env: Record<string, string>): BareCommand;
}

export const BENCH_CLIS: BenchCli[] = [
  {
    cli: 'claude',
    displayName: 'Claude Code',
    binary: bundledClaudeBinary(),
    model: 'bench-model',
    env: (url) => ({
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'bench-anthropic-key-0123456789',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    }),
    bare: (dir) => ({
      args: [
        '-p',
        '--output-format',
        'stream-json',
        '--input-format',
        'stream-json',
        '--verbose',
        '--model',
        'bench-model',
        '--max-turns',
        '5',
      ],
      env: { CLAUDE_CONFIG_DIR: join(dir, 'config'), HOME: join(dir, 'home'), CLAUDE_CODE_TMPDIR: join(dir, 'tmp') },
      files: [],
      stdin: `${JSON.stringify({ type: 'user', message: { role: 'user', content: PROMPT } })}\n`,
    }),
  },
  {
    cli: 'codex',
    displayName: 'Codex',
    binary: bundledCodexBinary(),
    model: 'bench-model',
    env: (url) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'bench-openai-key-0123456789' }),
    bare: (dir, env) => {
      const { mcp_servers: _servers, ...config } = codexConfig(stageSpec({ model: 'bench-model', workspaceDir: dir, stateDir: dir, env }));
      const home = join(dir, 'codex-home');
      return {
        args: ['exec', '--json', '--skip-git-repo-check', '--color', 'never', '-C', dir, PROMPT],
        env: { CODEX_HOME: home, NO_COLOR: '1' },
        files: [{ path: join(home, 'config.toml'), text: stringify(config) }],
      };
    },
  },
  {
    cli: 'gemini',
    displayName: 'Gemini CLI',
    binary: bundledGeminiBinary(),
    model: 'gemini-2.5-flash',
    env: (url) => ({ GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'bench-gemini-key-0123456789' }),
    bare: (dir) => {
      const { mcpServers: _servers, ...settings } = geminiSettings(stageSpec({ maxTurns: 5 }));
      const home = join(dir, 'gemini-home');
      return {
        args: ['--skip-trust', '--output-format', 'stream-json', '--model', 'gemini-2.5-flash', '--prompt', PROMPT],
        env: { GEMINI_CLI_HOME: home, GEMINI_CLI_NO_RELAUNCH: 'true', NO_COLOR: '1', TMPDIR: dir },
        files: [{ path: join(home, '.gemini', 'settings.json'), text: JSON.stringify(settings) }],
      };
    },
  },
];
