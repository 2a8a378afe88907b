/**
 * The MCP server weft starts for each CLI stage, so the CLI agent can reach its run:
 * ask a person a question (a run question; the run is `blocked` until it is answered),
 * report progress (a note in the run's log), and — for Claude Code's
 * `--permission-prompt-tool` — ask whether a tool call may run (weft's approval rules,
 * else a run question). Streamable HTTP on 127.0.0.1 at an ephemeral port, stateless
 * (the SDK's `createMcpHandler`), behind a bearer token made for the stage; it lives as
 * long as the stage attempt.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createMcpHandler, McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { errorMessage } from '../../core/errors.js';
import type { JsonValue } from '../../runs/model/json.js';
import type { RunToolsServer } from './cli-adapter.js';

/** What the permission tool decides, in Claude Code's permission-prompt-tool format. */
export type PermissionDecision = { behavior: 'allow'; updatedInput: Record<string, unknown> } | { behavior: 'deny'; message: string };

export interface RunToolsHandlers {
  ask(question: { prompt: string; options?: string[] }, signal: AbortSignal): Promise<JsonValue>;
  progress(message: string): Promise<void>;
  permission(request: { tool: string; input: Record<string, unknown>; callId?: string }, signal: AbortSignal): Promise<PermissionDecision>;
}

export interface RunningRunToolsServer {
  server: RunToolsServer;
  close(): Promise<void>;
}

/** The server's name in the CLI's MCP config, and its tools' names. */
export const RUN_TOOLS_SERVER_NAME = 'weft_run';
export const RUN_TOOL_NAMES = { ask: 'ask_question', progress: 'report_progress', permission: 'approve_tool_call' } as const;
const TOOLS = RUN_TOOL_NAMES;

function text(value: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) };
}

function answerText(answer: JsonValue): string {
  return typeof answer === 'string' ? answer : JSON.stringify(answer);
}

function mcpServer(handlers: RunToolsHandlers): McpServer {
  const server = new McpServer({ name: 'weft-run', version: '1' });
  server.registerTool(
    TOOLS.ask,
    {
      description:
        'Ask the person running this weft workflow a question and wait for the answer. Use it when you cannot go on without a decision or information only they have.',
      inputSchema: z.object({
        prompt: z.string().describe('The question.'),
        options: z.array(z.string()).optional().describe('The answers to choose from, if it is a choice.'),
      }),
    },
    async ({ prompt, options }, ctx) => {
      try {
        return text(
          answerText(
            await handlers.ask({ prompt, ...(options === undefined || options.length === 0 ? {} : { options }) }, ctx.mcpReq.signal),
          ),
        );
      } catch (error) {
        return text(`No answer: ${errorMessage(error)}`, true);
      }
    },
  );
  server.registerTool(
    TOOLS.progress,
    {
      description: 'Tell the person running this weft workflow how the task is going (one short line); it appears in the run log.',
      inputSchema: z.object({ message: z.string() }),
    },
    async ({ message }) => {
      await handlers.progress(message);
      return text('noted');
    },
  );
  server.registerTool(
    TOOLS.permission,
    {
      description: "Decides whether a tool call may run, by weft's approval rules (asking a person when they say so).",
      inputSchema: z.object({ tool_name: z.string(), input: z.record(z.string(), z.unknown()), tool_use_id: z.string().optional() }),
    },
    async ({ tool_name: tool, input, tool_use_id: callId }, ctx) => {
      let decision: PermissionDecision;
      try {
        decision = await handlers.permission({ tool, input, ...(callId === undefined ? {} : { callId }) }, ctx.mcpReq.signal);
      } catch (error) {
        decision = { behavior: 'deny', message: `weft could not decide: ${errorMessage(error)}` };
      }
      return text(JSON.stringify(decision));
    },
  );
  return server;
}

function sameToken(header: string | null, token: string): boolean {
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * @example
 * const tools = await startRunToolsServer(handlers);
 * adapter.invocation({ …, runTools: tools.server });
 * await tools.close();
 */
export async function startRunToolsServer(handlers: RunToolsHandlers, onError: (error: Error) => void): Promise<RunningRunToolsServer> {
  const token = randomBytes(24).toString('base64url');
  const mcp = createMcpHandler(() => mcpServer(handlers), { onerror: onError });
  const listener = getRequestListener(async (request) => {
    if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 });
    if (!sameToken(request.headers.get('authorization'), token)) return new Response('unauthorized', { status: 401 });
    return mcp.fetch(request);
  });
  const http = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    server: {
      name: RUN_TOOLS_SERVER_NAME,
      url: `http://127.0.0.1:${port}/mcp`,
      headers: { Authorization: `Bearer ${token}` },
      tools: { ...TOOLS },
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
