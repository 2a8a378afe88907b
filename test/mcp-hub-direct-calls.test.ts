/**
 * The hub's own `tools/call` path on stdio (`direct-tool-calls.ts`) against a server that
 * answers with what the SDK's server never sends, side by side with the bare SDK v2
 * client on the same server: every result the SDK accepts comes back the same, and every
 * result it refuses is refused with the SDK's own words.
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorMessage } from '../src/core/errors.js';
import type { ToolResult } from '../src/tools/tool.js';
import { REPO_ROOT, createTestHub, serverConfig, toolContext, waitFor, type TestHub } from './fixtures/servers/hub-kit.js';

const RAW_SERVER = resolve(REPO_ROOT, 'test/fixtures/servers/raw-results-server.mjs');

// The same expectations hold on the plain SDK path (WEFT_MCP_FAST_PATH=0), where the hub's
// client is the SDK's own and sends tools/call itself.
describe.each([
  { path: 'the fast path', env: process.env, direct: true },
  { path: 'the plain SDK path', env: { ...process.env, WEFT_MCP_FAST_PATH: '0' }, direct: false },
])('MCP hub on $path: its tools/call matches the SDK client (raw JSON-RPC server over stdio)', ({ env, direct }) => {
  let kit: TestHub;
  let sdk: Client;

  beforeAll(async () => {
    kit = createTestHub({ env });
    await kit.hub.start([serverConfig('raw', { command: [process.execPath, RAW_SERVER] })]);
    sdk = new Client({ name: 'sdk-side', version: '1.0.0' });
    await sdk.connect(new StdioClientTransport({ command: process.execPath, args: [RAW_SERVER] }));
    await sdk.listTools();
  });

  afterAll(async () => {
    await kit?.hub.close();
    await sdk?.close();
  });

  function hubCall(name: string): Promise<ToolResult> {
    const tool = kit.registry.get(`mcp__raw__${name}`);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool.execute({}, toolContext());
  }

  async function sdkFailure(name: string): Promise<string> {
    try {
      await sdk.callTool({ name, arguments: {} });
    } catch (error) {
      return errorMessage(error);
    }
    throw new Error(`the SDK accepted the result of '${name}'`);
  }

  it('negotiated the 2025 era; the fast path sends tools/call itself (string ids, each its own progress token), the SDK numeric ids', async () => {
    expect(sdk.getProtocolEra()).toBe('legacy');
    await hubCall('text');
    const line = await waitFor('the server to log the call', () =>
      kit.records.find((record) => record.message.includes('tools/call text id=')),
    );
    if (direct) expect(line.message).toMatch(/id="(weft-\d+)" progressToken="\1"/);
    else expect(line.message).toMatch(/id=\d+ /);
  });

  it('returns what the SDK accepts: text, structured content that fits its schema, annotated text and images, _meta', async () => {
    expect(await hubCall('text')).toEqual({ content: [{ type: 'text', text: 'plain' }], isError: false });
    expect(await hubCall('good_structured')).toEqual({
      content: [{ type: 'text', text: '{"count":3}' }],
      isError: false,
      structuredContent: { count: 3 },
    });
    expect((await hubCall('annotated')).content).toEqual([
      { type: 'text', text: 'noted' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ]);
    expect(await hubCall('with_meta')).toEqual({ content: [{ type: 'text', text: 'meta' }], isError: false });
    // The SDK accepts the same four.
    for (const name of ['text', 'good_structured', 'annotated', 'with_meta'])
      await expect(sdk.callTool({ name, arguments: {} })).resolves.toBeDefined();
  });

  it.each(['bad_structured', 'no_structured', 'malformed', 'array_structured', 'string_is_error', 'refused'])(
    "refuses '%s' as TOOL_FAILED with the SDK's own message",
    async (name) => {
      const expected = await sdkFailure(name);
      const failure = await hubCall(name).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ code: 'TOOL_FAILED' });
      expect(errorMessage(failure)).toBe(`[raw] tool '${name}' failed: ${expected}`);
    },
  );

  it('keeps working after the refusals', async () => {
    expect(await hubCall('text')).toMatchObject({ isError: false });
  });
});
