/**
 * Provider-safe tool definitions end to end: a tool with an 80-character name, `$defs`,
 * `$ref`, `oneOf` and `additionalProperties` is offered to every provider API shape in a
 * form it accepts, the model calls it by the adapted name, and the tool receives exactly
 * the arguments the model sent, under its own name. A tool whose schema cannot be
 * adapted is left out with a warning while the rest are still offered.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, type EngineKit } from './kits/engine-kit.js';
import { textResult, type Tool } from '../src/tools/tool.js';
import { agentRunner, llmSettings, runWorkflow, SHAPES, stageFinished, transcript } from './fixtures/model-server/agent-kit.js';
import { startModelServer, type ModelServer, type RecordedRequest } from './fixtures/model-server/model-server.js';

const LONG_NAME = 'mcp__document_store__create_or_update_a_document_with_attachments_and_tags_v2025';
// 80 characters: past every provider's 64-character limit.
const received: { name: string; args: Record<string, unknown> }[] = [];

const complexTool: Tool = {
  name: LONG_NAME,
  description: 'Stores a document.',
  source: 'builtin',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    required: ['target', 'mode'],
    properties: {
      target: { $ref: '#/$defs/target' },
      mode: { type: 'string', enum: ['fast', 'safe'] },
      tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
      priority: { const: 3 },
    },
    $defs: {
      target: {
        oneOf: [
          {
            type: 'object',
            properties: { kind: { const: 'file' }, path: { type: 'string', format: 'uri-reference' } },
            required: ['kind', 'path'],
            additionalProperties: false,
          },
          {
            type: 'object',
            properties: { kind: { const: 'url' }, url: { type: 'string', format: 'uri' } },
            required: ['kind', 'url'],
            additionalProperties: false,
          },
        ],
      },
    },
  },
  execute: async (args) => {
    received.push({ name: LONG_NAME, args });
    return textResult('stored');
  },
};

const unadaptable: Tool = {
  name: 'remote_schema_tool',
  description: 'Has a schema that points elsewhere.',
  source: 'builtin',
  inputSchema: { type: 'object', properties: { item: { $ref: 'https://example.com/item.json' } } },
  execute: async () => textResult('unreachable'),
};

const ARGS = { target: { kind: 'file', path: 'docs/a.md' }, mode: 'safe', tags: ['x'] };
const SCHEMA_KEYWORDS = /"\$(ref|defs|schema)"/;
const GEMINI_UNSUPPORTED = /"(oneOf|allOf|additionalProperties|const|uniqueItems|\$ref|\$defs)"/;

let kit: EngineKit;
let server: ModelServer | undefined;

beforeEach(async () => {
  received.length = 0;
  kit = await createEngineKit({ extraTools: [complexTool, unadaptable] });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await kit.close();
});

function adaptedName(request: RecordedRequest): string {
  const tool = request.tools.find((entry) => entry.name.startsWith('mcp__document_store__'));
  if (!tool) throw new Error(`the complex tool was not offered; got ${request.tools.map((entry) => entry.name).join(', ')}`);
  return tool.name;
}

describe.each(SHAPES)('tool schemas for $shape', ({ shape }) => {
  it('offers the complex tool in a form the provider accepts and routes the call back by name', async () => {
    server = await startModelServer({
      script: [(request) => ({ toolCalls: [{ name: adaptedName(request), arguments: ARGS }] }), { text: 'Stored.' }],
    });
    const toml = `[nodes.store]\nkind = "agent"\nprompt = "Store the document."\ntools = ["mcp__document_store__*", "remote_schema_tool"]\n`;
    const { events } = await runWorkflow(kit, toml, agentRunner(llmSettings(server, shape, { stream: false })));

    expect(stageFinished(events, 'store@1')).toMatchObject({ status: 'succeeded', output: 'Stored.' });
    expect(received).toEqual([{ name: LONG_NAME, args: ARGS }]);

    const offered = server.requests[0]!.tools;
    expect(offered.map((tool) => tool.name)).toEqual([adaptedName(server.requests[0]!)]);
    const [tool] = offered;
    expect(tool!.name).toMatch(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/);
    expect(tool!.name).toBe('mcp__document_store__create_or_update_a_document_with_a_6f6aff99');
    const schemaText = JSON.stringify(tool!.parameters);
    expect(schemaText).not.toMatch(SCHEMA_KEYWORDS);
    if (shape === 'gemini') expect(schemaText).not.toMatch(GEMINI_UNSUPPORTED);
    expect(tool!.parameters).toMatchObject({
      type: shape === 'gemini' ? expect.stringMatching(/object/i) : 'object',
      required: ['target', 'mode'],
    });

    const started = transcript(events)[0]!.payload;
    expect(started.tools).toEqual([LONG_NAME]);
    expect(started.droppedTools).toEqual([
      "Tool 'remote_schema_tool' is not offered to the model: the reference 'https://example.com/item.json' points outside the schema.",
    ]);
    expect(events.find((event) => event.type === 'tool-call-finished')?.payload).toMatchObject({
      tool: LONG_NAME,
      isError: false,
      text: 'stored',
    });
  });
});
