#!/usr/bin/env node
// bench/mcp-call: the stdio MCP server every client phase talks to. Plain .mjs on the
// official SDK v2 server so it starts fast and behaves the same for every client.
//
//   echo    { message }  → the message, as one text block
//   payload { bytes }    → a text block of exactly `bytes` ASCII bytes
//
//   ECHO_INIT_DELAY_MS   hold the answer to `initialize` this long (startup measurement)
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const initDelayMs = Number(process.env.ECHO_INIT_DELAY_MS ?? 0);
const payloads = new Map();
const payloadOf = (bytes) => {
  let text = payloads.get(bytes);
  if (text === undefined) {
    text = 'x'.repeat(bytes);
    payloads.set(bytes, text);
  }
  return text;
};

const server = new McpServer({ name: 'bench-echo', version: '1.0.0' });
server.registerTool('echo', { description: 'Echoes the message back', inputSchema: { message: z.string() } }, async ({ message }) => ({
  content: [{ type: 'text', text: message }],
}));
server.registerTool(
  'payload',
  { description: 'Returns a text block of exactly `bytes` bytes', inputSchema: { bytes: z.number().int().min(0) } },
  async ({ bytes }) => ({ content: [{ type: 'text', text: payloadOf(bytes) }] }),
);

const transport = new StdioServerTransport(undefined, undefined, { maxBufferSize: 64 * 1024 * 1024 });
await server.connect(transport);

if (initDelayMs > 0) {
  // Hold back the `initialize` request itself: the client sends nothing else until it is answered.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (message.method === 'initialize') setTimeout(() => deliver?.(message, extra), initDelayMs);
    else deliver?.(message, extra);
  };
}
