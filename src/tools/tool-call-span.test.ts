import { SpanStatusCode } from '@opentelemetry/api';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSpans, type SpanKit } from '../../test/kits/span-kit.js';
import { silentLogger } from '../core/logger.js';
import { registerSecret } from '../core/redact.js';
import { contextWith, startSpan } from '../core/telemetry/tracing.js';
import { ApprovalPolicy } from './approval-policy.js';
import { fileArtifactSink } from './artifact-sink.js';
import { ToolRegistry } from './registry.js';
import { createFileReadTracker, textResult, type Tool } from './tool.js';
import { ToolExecutor } from './tool-executor.js';

let kit: SpanKit;
let dir: string;
beforeAll(async () => {
  kit = recordSpans();
  dir = await mkdtemp(join(tmpdir(), 'weft-tool-span-'));
});
afterAll(async () => {
  await kit.stop();
  await rm(dir, { recursive: true, force: true });
});

const schema = { type: 'object', properties: { text: { type: 'string' } } } as const;

describe('tool call spans', () => {
  it('name the tool and its MCP server under the session span, leave the arguments out, and mark an error result failed with its first line redacted', async () => {
    registerSecret('tool-secret-value-555', 'TOOL_API_KEY');
    const registry = new ToolRegistry();
    const echo: Tool = {
      name: 'mcp__notes__echo',
      description: 'echo',
      inputSchema: schema,
      source: 'mcp',
      server: 'notes',
      execute: async (args) => textResult(String(args.text)),
    };
    const fail: Tool = {
      name: 'explode',
      description: 'fails',
      inputSchema: schema,
      source: 'builtin',
      annotations: { readOnlyHint: true },
      execute: async () => {
        throw new Error('boom with tool-secret-value-555\nsecond line');
      },
    };
    registry.register(echo);
    registry.register(fail);
    const executor = new ToolExecutor({
      registry,
      policy: new ApprovalPolicy([]),
      approvalMode: { interactive: false, autoApprove: true },
      artifacts: fileArtifactSink(dir),
      logger: silentLogger,
    });
    const parent = startSpan('stage work', {});
    const session = {
      workspaceRoot: dir,
      readFiles: createFileReadTracker(),
      signal: new AbortController().signal,
      traceContext: contextWith(parent),
    };
    await executor.executeAll(
      [
        { id: 'c1', name: 'mcp__notes__echo', arguments: { text: 'tool-secret-value-555' } },
        { id: 'c2', name: 'explode', arguments: {} },
      ],
      session,
    );
    parent.end();

    const spans = kit.spans().filter((span) => span.name.startsWith('execute_tool '));
    expect(spans.map((span) => [span.name, span.parentSpanContext?.spanId, span.status])).toEqual(
      expect.arrayContaining([
        ['execute_tool mcp__notes__echo', parent.spanContext().spanId, { code: SpanStatusCode.UNSET }],
        ['execute_tool explode', parent.spanContext().spanId, { code: SpanStatusCode.ERROR, message: 'boom with [redacted:TOOL_API_KEY]' }],
      ]),
    );
    const echoed = spans.find((span) => span.name === 'execute_tool mcp__notes__echo')!;
    expect(echoed.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'mcp__notes__echo',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'extension',
      'mcp.method.name': 'tools/call',
      'weft.tool.source': 'mcp',
      'weft.mcp.server': 'notes',
      'weft.tool.is_error': false,
    });
    expect(spans.find((span) => span.name === 'execute_tool explode')!.attributes).toMatchObject({
      'gen_ai.tool.type': 'function',
      'weft.tool.source': 'builtin',
      'error.type': 'tool_error',
    });
  });
});
