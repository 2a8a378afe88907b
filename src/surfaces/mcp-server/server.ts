/**
 * Builds one MCP server instance with weft's tools, resources and prompts. The serving
 * entries call this once per stdio connection, once per HTTP session (2025-era clients)
 * or once per request (2026-era clients); everything heavy — the store, workflows — is
 * reached lazily through `deps.runs()`, so building an instance is cheap.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { registerPrompts } from './prompts.js';
import { registerResources, registerSubscriptions } from './resources.js';
import type { McpServerDeps, WeftTool } from './tool-kit.js';
import { runCreateTool } from './tools/run-create.js';
import { runEventsTool } from './tools/run-events.js';
import { runGatherTool } from './tools/run-gather.js';
import { runGetTool } from './tools/run-get.js';
import { runInteractTool } from './tools/run-interact.js';
import { runPairTool } from './tools/run-pair.js';
import { runSearchTool } from './tools/run-search.js';

export const WEFT_TOOLS: readonly WeftTool[] = [
  runCreateTool,
  runSearchTool,
  runGetTool,
  runInteractTool,
  runGatherTool,
  runPairTool,
  runEventsTool,
];

const INSTRUCTIONS = [
  'weft runs agent workflows (TOML files of stages) as durable runs executed by background runners; closing this connection never stops a run.',
  'Create runs with weft_run_create; runs wait in "pending" until approved (weft_run_interact action "approve") unless auto_approve is set.',
  'Wait with weft_run_gather; a "blocked" run waits for a person: read get_questions and answer them. Read history with weft_run_events.',
].join(' ');

export interface WeftMcpServer {
  server: McpServer;
  /** Drops this instance's resource subscriptions. */
  dispose(): void;
}

/**
 * The protocol era the instance serves. A 2025-era instance serves its connection's
 * `resources/subscribe`; 2026-era `subscriptions/listen` streams are served by the SDK's
 * entries, outside any instance, so a 2026-era instance only says it supports them.
 */
export type McpEra = 'legacy' | 'modern';

export function createWeftMcpServer(deps: McpServerDeps, era: McpEra): WeftMcpServer {
  const server = new McpServer(
    { name: 'weft', title: 'weft', version: deps.version },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false }, logging: {} },
      instructions: INSTRUCTIONS,
    },
  );
  for (const tool of WEFT_TOOLS) tool.register(server, deps);
  registerResources(server, deps);
  registerPrompts(server, deps);
  let dispose = () => {};
  if (era === 'legacy') dispose = registerSubscriptions(server, deps);
  else server.server.registerCapabilities({ resources: { subscribe: true } });
  return { server, dispose };
}
