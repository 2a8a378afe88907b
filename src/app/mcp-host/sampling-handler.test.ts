/** Unit tests of `samplingHandler`: the approval policy decides, `ask` asks, events record what happened. */
import { describe, expect, it } from 'vitest';
import type { CreateMessageRequestParams } from '@modelcontextprotocol/client';
import { silentLogger } from '../../core/logger.js';
import type { ModelClient } from '../../agent/model-client.js';
import type { NewRunEvent } from '../../runs/model/run-event.js';
import { ApprovalPolicy, type ApprovalRule } from '../../tools/approval-policy.js';
import { samplingHandler, samplingToolName, type SamplingHandlerDeps } from './sampling-handler.js';

const params: CreateMessageRequestParams = {
  maxTokens: 10,
  systemPrompt: 'sys',
  messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the issue' } }],
};

function client(fail?: Error): ModelClient & { calls: number } {
  const model = {
    provider: 'fake',
    modelId: 'm1',
    toolDialect: 'anthropic' as const,
    calls: 0,
    generate: async () => {
      model.calls += 1;
      if (fail) throw fail;
      return {
        text: 'summary',
        toolCalls: [],
        usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
        finishReason: 'stop',
        messages: [],
      };
    },
  };
  return model;
}

function handler(rules: ApprovalRule[], fields: Pick<SamplingHandlerDeps, 'confirm'> & { client?: ModelClient } = {}) {
  const events: NewRunEvent[] = [];
  const model = fields.client ?? client();
  const sample = samplingHandler({
    policy: new ApprovalPolicy(rules),
    approvalMode: { interactive: false, autoApprove: false },
    model: async () => model,
    record: async (appended) => void events.push(...appended),
    logger: silentLogger,
    ...(fields.confirm ? { confirm: fields.confirm } : {}),
  });
  return { sample: (server = 'docs') => sample({ server, params, signal: new AbortController().signal }), events, model };
}

describe('samplingHandler', () => {
  it('names the request like a tool of the server', () => {
    expect(samplingToolName('docs')).toBe('mcp__docs__sampling');
  });

  it('an allow rule lets the model answer; requested and finished events record it', async () => {
    const { sample, events } = handler([{ pattern: 'mcp__docs__*', action: 'allow' }]);
    expect(await sample()).toEqual({ role: 'assistant', content: { type: 'text', text: 'summary' }, model: 'm1', stopReason: 'endTurn' });
    expect(events).toEqual([
      {
        type: 'sampling-requested',
        payload: { server: 'docs', provider: 'fake', model: 'm1', maxTokens: 10, messages: 1, systemPrompt: true },
      },
      {
        type: 'sampling-finished',
        payload: {
          server: 'docs',
          provider: 'fake',
          model: 'm1',
          usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
          stopReason: 'endTurn',
          durationMs: expect.any(Number),
          text: 'summary',
        },
      },
    ]);
  });

  it('a deny rule refuses before the model is built', async () => {
    let built = false;
    const deny = samplingHandler({
      policy: new ApprovalPolicy([{ pattern: '*', action: 'deny' }]),
      approvalMode: { interactive: false, autoApprove: true },
      model: async () => ((built = true), client()),
      logger: silentLogger,
    });
    await expect(deny({ server: 'docs', params, signal: new AbortController().signal })).rejects.toThrow(
      "sampling by MCP server 'docs' was denied by the approval policy (rule '*' = deny).",
    );
    expect(built).toBe(false);
  });

  it('ask without anyone to ask refuses with the rule to add; with someone, their answer decides', async () => {
    const nobody = handler([]);
    await expect(nobody.sample()).rejects.toThrow(
      `sampling by MCP server 'docs' needs approval and nobody can be asked here. Add an approval rule such as { pattern = "mcp__docs__sampling", action = "allow" } or enable auto_approve.`,
    );
    expect(nobody.model).toMatchObject({ calls: 0 });

    const prompts: string[] = [];
    const refusing = handler([], { confirm: async (prompt) => (prompts.push(prompt), false) });
    await expect(refusing.sample()).rejects.toThrow("sampling by MCP server 'docs' was denied by the user.");
    expect(prompts).toEqual([`Allow MCP server 'docs' to use the model fake:m1 (up to 10 tokens)? Its request: "Summarise the issue"`]);

    const allowing = handler([], { confirm: async () => true });
    await expect(allowing.sample()).resolves.toMatchObject({ content: { text: 'summary' } });
  });

  it('a failing model is a finished event with the error, and the server gets the reason', async () => {
    const { sample, events } = handler([{ pattern: '*', action: 'allow' }], { client: client(new Error('overloaded')) });
    await expect(sample()).rejects.toThrow("sampling for MCP server 'docs' failed: overloaded");
    expect(events.at(-1)).toEqual({
      type: 'sampling-finished',
      payload: { server: 'docs', provider: 'fake', model: 'm1', error: 'overloaded', durationMs: expect.any(Number) },
    });
  });

  it('each retry of the model request is a sampling-request-retried event between requested and finished', async () => {
    const retrying: ModelClient = {
      ...client(),
      generate: async (request) => {
        await request.onRetry?.({ attempt: 1, maxRetries: 2, delayMs: 0, status: 503, error: '503: overloaded' });
        return {
          text: 'summary',
          toolCalls: [],
          usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
          finishReason: 'stop',
          messages: [],
        };
      },
    };
    const { sample, events } = handler([{ pattern: '*', action: 'allow' }], { client: retrying });
    await expect(sample()).resolves.toMatchObject({ content: { text: 'summary' } });
    expect(events.map((event) => event.type)).toEqual(['sampling-requested', 'sampling-request-retried', 'sampling-finished']);
    expect(events[1]!.payload).toEqual({
      server: 'docs',
      provider: 'fake',
      model: 'm1',
      attempt: 1,
      maxRetries: 2,
      delayMs: 0,
      status: 503,
      error: '503: overloaded',
    });
  });
});
