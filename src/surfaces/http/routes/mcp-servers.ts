/**
 * `/api/v1/mcp/servers`: the MCP server catalogue — every server with its status, and
 * runtime registration: a server added here starts at once and reaches agent stages that
 * are already running on their next turn; a removed one's tools disappear the same way.
 */
import * as z from 'zod';
import type { JsonObject } from '../../../runs/model/json.js';
import { defineRoute, type ApiRoute } from '../api-route.js';
import type { HttpDeps } from '../http-deps.js';

const serverSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http', 'sse', 'sandbox']),
  source: z.string().describe('The config file it comes from, or "runtime" when added through this API'),
  status: z.string().describe('connecting, ready, offline, failed, closed, disabled or not-started'),
  tools: z.number().int(),
  tool_names: z.array(z.string()).describe('Qualified tool names, e.g. mcp__github__create_issue'),
  error: z.string().nullable().describe('Why it failed or went offline'),
});

const stringMap = z.record(z.string(), z.string());

/** A `.mcp.json` entry plus its name; validated further exactly like `.mcp.json`. */
const addBody = z
  .object({
    name: z.string().min(1).max(64).describe("Letters, digits, '_' and '-'"),
    command: z.string().min(1).optional().describe('stdio: the executable'),
    args: z.array(z.string()).optional().describe('stdio: its arguments'),
    env: stringMap.optional().describe('stdio: extra environment variables (${VAR} interpolated)'),
    cwd: z.string().min(1).optional().describe('stdio: working directory'),
    url: z.string().min(1).optional().describe('http/sse: the server URL'),
    type: z.enum(['stdio', 'http', 'sse']).optional().describe('Transport; default stdio with command, http with url'),
    headers: stringMap.optional().describe('http/sse: request headers (${VAR} interpolated)'),
    persist: z.boolean().default(false).describe("Also write the server to the workspace's .mcp.json"),
  })
  .strict();

export function mcpServerRoutes(deps: HttpDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/mcp/servers',
      summary: 'Every MCP server (configured and added at runtime) with its status, transport, tools and last error',
      response: z.object({ servers: z.array(serverSchema) }),
      async handle() {
        return { json: { servers: await (await deps.mcp()).list() } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/mcp/servers',
      summary:
        'Add an MCP server at runtime ({name, command, args, env} or {name, url, headers}); it starts at once and running agent stages get its tools on their next turn',
      body: addBody,
      response: z.object({ server: serverSchema }),
      status: 201,
      async handle({ body }) {
        const { name, persist, ...entry } = body;
        return { status: 201, json: { server: await (await deps.mcp()).add(name, entry as JsonObject, { persist }) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/mcp/servers/{name}',
      summary: 'Remove an MCP server added at runtime; its tools disappear from running agent stages on their next turn',
      status: 204,
      async handle({ params }) {
        await (await deps.mcp()).remove(params.name!);
        return { status: 204 };
      },
    }),
  ];
}
