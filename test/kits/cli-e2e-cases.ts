/**
 * The three real CLIs for end-to-end tests through `weft run`: the installed binary, a
 * model name, the environment pointing each at the fake model server, and how the model
 * asks each for a shell command or a tool of one of the run's MCP servers.
 */
import type { CliName } from '../../src/agent/cli-backend/cli-adapter.js';
import { bundledCodexBinary } from '../../src/agent/cli-backend/codex-adapter.js';
import { bundledGeminiBinary } from '../../src/agent/cli-backend/gemini-adapter.js';
import type { ModelServer, ScriptedToolCall } from '../fixtures/model-server/model-server.js';
import { CLAUDE_BINARY, claudeTestEnv } from './cli-backend-kit.js';

export interface CliE2eCase {
  cli: CliName;
  displayName: string;
  binary: string | undefined;
  model: string;
  env(server: ModelServer): Record<string, string>;
  shellCall(command: string): ScriptedToolCall;
  mcpCall(server: string, tool: string, args: Record<string, unknown>): ScriptedToolCall;
  /** Whether the CLI runs its shell commands in a session of its own (out of its process group). */
  shellInOwnSession: boolean;
}

const PATH = process.env.PATH ?? '/usr/bin:/bin';

export const CLI_E2E_CASES: CliE2eCase[] = [
  {
    cli: 'claude',
    displayName: 'Claude Code',
    binary: CLAUDE_BINARY,
    model: 'claude-sonnet-4-5',
    env: claudeTestEnv,
    shellCall: (command) => ({ name: 'Bash', arguments: { command, description: 'Run it' } }),
    mcpCall: (server, tool, args) => ({ name: `mcp__${server}__${tool}`, arguments: args }),
    shellInOwnSession: true,
  },
  {
    cli: 'codex',
    displayName: 'Codex',
    binary: bundledCodexBinary(),
    model: 'gpt-test',
    env: (model) => ({ PATH, OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: 'test-openai-key-0123456789' }),
    shellCall: (command) => ({ name: 'exec_command', arguments: { cmd: command } }),
    // Codex puts each MCP server's tools in a Responses namespace.
    mcpCall: (server, tool, args) => ({ name: tool, namespace: `mcp__${server}`, arguments: args }),
    shellInOwnSession: false,
  },
  {
    cli: 'gemini',
    displayName: 'Gemini CLI',
    binary: bundledGeminiBinary(),
    model: 'gemini-2.5-flash',
    env: (model) => ({ PATH, GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_API_KEY: 'test-gemini-key-0123456789' }),
    shellCall: (command) => ({ name: 'run_shell_command', arguments: { command } }),
    mcpCall: (server, tool, args) => ({ name: `mcp_${server}_${tool}`, arguments: args }),
    shellInOwnSession: false,
  },
];
