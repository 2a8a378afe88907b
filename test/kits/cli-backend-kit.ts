/**
 * Test support for agent stages on a real Claude Code: the fake model server (Anthropic
 * wire format) on 127.0.0.1, the environment that points Claude Code at it with a dummy
 * key and every non-essential call off, and the agent runner with the CLI backend whose
 * `[cli.claude] path` is the installed package's native binary. The run's MCP servers are
 * read from the workspace's `.mcp.json`, as weft's own runs read them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import type { CliSettings } from '../../src/core/settings/settings.js';
import { CliStageRunner, cliAdapters, ModelStageRunner } from '../../src/agent/index.js';
import { bundledClaudeBinary } from '../../src/agent/cli-backend/claude-code-adapter.js';
import { loadMcpServerConfigs } from '../../src/mcp/config/index.js';
import type { ApprovalRule } from '../../src/tools/approval-policy.js';
import { startModelServer, type ModelServer, type Script } from '../fixtures/model-server/model-server.js';
import { createEngineKit, type EngineKit } from './engine-kit.js';

export const CLAUDE_BINARY = bundledClaudeBinary() ?? 'claude-code-is-not-installed';

/** What Claude Code gets: only the fake model server, a dummy key, nothing else online. */
export function claudeTestEnv(server: ModelServer): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'test-anthropic-key-0123456789',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

export interface ClaudeKit {
  server: ModelServer;
  env: Record<string, string>;
  agent: ModelStageRunner;
  close(): Promise<void>;
}

export async function createClaudeKit(
  kit: EngineKit,
  script: Script,
  options: { rules?: ApprovalRule[]; cli?: CliSettings; env?: Record<string, string>; withoutKey?: boolean } = {},
): Promise<ClaudeKit> {
  const server = await startModelServer({ script });
  const env: Record<string, string> = { ...claudeTestEnv(server), ...options.env };
  if (options.withoutKey) delete env.ANTHROPIC_API_KEY;
  const cli = new CliStageRunner({
    adapters: cliAdapters,
    settings: async () => ({ cli: options.cli ?? { claude: { path: CLAUDE_BINARY } }, approvalRules: options.rules ?? [] }),
    mcpServers: async (run) => {
      const { servers } = await loadMcpServerConfigs({
        workspaceRoot: run.cwd,
        homeDir: kit.dir,
        userSettings: undefined,
        projectSettings: undefined,
        localMcpJson: join(kit.dir, '.local-mcp.json'),
        env,
        logger: silentLogger,
      });
      return servers.filter((entry) => entry.enabled);
    },
    stateDir: join(kit.dir, '.cli-stages'),
    env,
    logger: silentLogger,
  });
  const agent = new ModelStageRunner({ llmSettings: async () => ({ aliases: {}, providers: {} }), env, logger: silentLogger, cli });
  return { server, env, agent, close: () => server.close() };
}

/** The memory MCP server from npm, as the run's `.mcp.json` names it; it keeps its graph in `memory.json`. */
export async function writeMemoryMcpJson(dir: string): Promise<void> {
  const memoryServer = join(process.cwd(), 'node_modules/.bin/mcp-server-memory');
  await writeFile(
    join(dir, '.mcp.json'),
    JSON.stringify({ mcpServers: { memory: { command: memoryServer, args: [], env: { MEMORY_FILE_PATH: join(dir, 'memory.json') } } } }),
  );
}

export interface ClaudeTestContext {
  kit: EngineKit;
  /** Set by the test (`createClaudeKit`); closed after it. */
  claude: ClaudeKit | undefined;
}

/** A fresh engine kit per test (with the memory server in `.mcp.json` when asked), closed with the test's Claude kit after it. */
export function useClaudeTestContext(options: { memoryServer?: boolean } = {}): ClaudeTestContext {
  const context = {} as ClaudeTestContext;
  beforeEach(async () => {
    context.kit = await createEngineKit();
    context.claude = undefined;
    if (options.memoryServer) await writeMemoryMcpJson(context.kit.dir);
  });
  afterEach(async () => {
    await context.claude?.close();
    await context.kit.close();
  });
  return context;
}
