#!/usr/bin/env node
// bench/mcp-server: the baseline beside weft over HTTP — a trivial MCP server on the official
// SDK's own Node HTTP transport (`@modelcontextprotocol/sdk` `StreamableHTTPServerTransport`:
// the web-standard transport behind `@hono/node-server`, the design of v2's
// `@modelcontextprotocol/node`), sessions and SSE answers as the SDK defaults them. No auth,
// no store. Plain .mjs so it starts fast.
//
//   get {}  → the CallToolResult in BARE_RESULT (JSON): weft_run_get's answer, byte for byte
//
// Prints `listening on http://127.0.0.1:PORT/mcp` on stderr.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const result = JSON.parse(process.env.BARE_RESULT ?? '{"content":[{"type":"text","text":"ok"}]}');
const sessions = new Map();

function newServer() {
  const server = new McpServer({ name: 'bench-bare', version: '1.0.0' });
  server.registerTool('get', { description: 'Returns a fixed result' }, async () => result);
  return server;
}

const http = createServer(async (req, res) => {
  const id = req.headers['mcp-session-id'];
  let transport = typeof id === 'string' ? sessions.get(id) : undefined;
  if (transport === undefined) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
    });
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res);
});
http.listen(0, '127.0.0.1', () => process.stderr.write(`listening on http://127.0.0.1:${http.address().port}/mcp\n`));
process.on('SIGTERM', () => process.exit(0));
