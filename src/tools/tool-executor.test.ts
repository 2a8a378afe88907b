import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/logger.js';
import { WeftError } from '../core/errors.js';
import { ApprovalPolicy, type ApprovalRule } from './approval-policy.js';
import { fileArtifactSink } from './artifact-sink.js';
import { ToolRegistry } from './registry.js';
import { createFileReadTracker, resultText, textResult, type Tool } from './tool.js';
import { ToolExecutor, type ToolExecutorOptions, type ToolSession } from './tool-executor.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function tool(name: string, execute: Tool['execute'], extra: Partial<Tool> = {}): Tool {
  return {
    name,
    description: name,
    source: 'builtin',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
    // Read-only, so the default policy lets it run and these tests exercise the runtime, not the approval.
    annotations: { readOnlyHint: true },
    execute,
    ...extra,
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-exec-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function setup(tools: Tool[], options: Partial<ToolExecutorOptions> & { rules?: ApprovalRule[] } = {}) {
  const registry = new ToolRegistry();
  for (const t of tools) registry.register(t);
  const executor = new ToolExecutor({
    registry,
    policy: new ApprovalPolicy(options.rules ?? []),
    approvalMode: { interactive: false, autoApprove: false },
    artifacts: fileArtifactSink(join(dir, 'artifacts')),
    logger: silentLogger,
    ...options,
  });
  const controller = new AbortController();
  const session: ToolSession = { workspaceRoot: dir, readFiles: createFileReadTracker(), signal: controller.signal };
  return { executor, session, controller };
}

describe('ToolExecutor', () => {
  it('runs calls concurrently and returns results in call order, failures included', async () => {
    const slowDone = deferred<void>();
    const started: string[] = [];
    const { executor, session } = setup([
      // The first call can only finish after the third has run, which proves concurrency.
      tool('waits_for_slow', async () => {
        started.push('first');
        await slowDone.promise;
        return textResult('first done');
      }),
      tool('fails', async () => {
        started.push('second');
        throw new Error('disk on fire');
      }),
      tool('slow', async () => {
        started.push('third');
        await Promise.resolve();
        slowDone.resolve();
        return textResult('third done');
      }),
    ]);
    const outcomes = await executor.executeAll(
      [
        { id: 'a', name: 'waits_for_slow', arguments: {} },
        { id: 'b', name: 'fails', arguments: {} },
        { id: 'c', name: 'slow', arguments: {} },
      ],
      session,
    );
    expect(started).toEqual(['first', 'second', 'third']);
    expect(outcomes.map((o) => [o.callId, o.result.isError, resultText(o.result)])).toEqual([
      ['a', false, 'first done'],
      ['b', true, 'disk on fire'],
      ['c', false, 'third done'],
    ]);
  });

  it('returns Cancelled for pending calls when the session is aborted, even if the tool ignores its signal', async () => {
    const entered = deferred<void>();
    const { executor, session, controller } = setup([
      tool('stuck', async () => {
        entered.resolve();
        return new Promise(() => {});
      }),
    ]);
    const pending = executor.execute({ id: '1', name: 'stuck', arguments: {} }, session);
    await entered.promise;
    controller.abort();
    const outcome = await pending;
    expect(outcome.result).toEqual({ content: [{ type: 'text', text: 'Cancelled' }], isError: true });
  });

  it('passes the abort to the tool and maps its TOOL_CANCELLED to Cancelled', async () => {
    const entered = deferred<void>();
    let sawAbort = false;
    const { executor, session, controller } = setup([
      tool('cooperative', (_args, context) => {
        entered.resolve();
        return new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => {
            sawAbort = true;
            reject(new WeftError('TOOL_CANCELLED', 'Cancelled'));
          });
        });
      }),
    ]);
    const pending = executor.execute({ id: '1', name: 'cooperative', arguments: {} }, session);
    await entered.promise;
    controller.abort();
    expect(resultText((await pending).result)).toBe('Cancelled');
    expect(sawAbort).toBe(true);
  });

  it('names the failing JSON path of invalid arguments', async () => {
    const nested: Tool = tool('nested', async () => textResult('ok'), {
      inputSchema: {
        type: 'object',
        properties: { items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } },
        required: ['items'],
      },
    });
    const { executor, session } = setup([nested]);
    const wrongType = await executor.execute({ id: '1', name: 'nested', arguments: { items: [{ name: 'a' }, { name: 7 }] } }, session);
    expect(wrongType.result).toEqual({
      content: [{ type: 'text', text: "Invalid arguments for 'nested': /items/1/name: must be string" }],
      isError: true,
    });
    const missing = await executor.execute({ id: '2', name: 'nested', arguments: { items: [{}] } }, session);
    expect(resultText(missing.result)).toBe("Invalid arguments for 'nested': /items/0/name: is required");
    const notObject = await executor.execute({ id: '3', name: 'nested', arguments: 'text' }, session);
    expect(resultText(notObject.result)).toBe("Invalid arguments for 'nested': (root): must be object");
  });

  it('accepts draft-07 schemas', async () => {
    const draft7 = tool('draft7', async (args) => textResult(String(args.count)), {
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { count: { type: 'integer', minimum: 1 } },
        required: ['count'],
      },
    });
    const { executor, session } = setup([draft7]);
    expect(resultText((await executor.execute({ id: '1', name: 'draft7', arguments: { count: 3 } }, session)).result)).toBe('3');
    expect(resultText((await executor.execute({ id: '2', name: 'draft7', arguments: { count: 0 } }, session)).result)).toBe(
      "Invalid arguments for 'draft7': /count: must be >= 1",
    );
  });

  it('reports unknown tools with the names that exist', async () => {
    const { executor, session } = setup([tool('alpha', async () => textResult('a'))]);
    const outcome = await executor.execute({ id: '1', name: 'beta', arguments: {} }, session);
    expect(outcome.result).toEqual({ content: [{ type: 'text', text: "Unknown tool 'beta'. Available tools: alpha." }], isError: true });
  });

  it('applies deny rules and asks for ask rules', async () => {
    let executed = 0;
    const counting = tool(
      'mcp__gh__create',
      async () => {
        executed += 1;
        return textResult('created');
      },
      { source: 'mcp', server: 'gh' },
    );
    const denied = setup([counting], { rules: [{ pattern: 'mcp__gh__*', action: 'deny' }] });
    expect(resultText((await denied.executor.execute({ id: '1', name: 'mcp__gh__create', arguments: {} }, denied.session)).result)).toBe(
      "Tool 'mcp__gh__create' was denied by the approval policy (rule 'mcp__gh__*' = deny).",
    );
    const asked: string[] = [];
    const answers = [false, true];
    const asking = setup([counting], { askApproval: async (call) => (asked.push(call.id), answers.shift() ?? false) });
    expect(resultText((await asking.executor.execute({ id: 'x', name: 'mcp__gh__create', arguments: {} }, asking.session)).result)).toBe(
      "Tool 'mcp__gh__create' was denied by the user.",
    );
    expect(resultText((await asking.executor.execute({ id: 'y', name: 'mcp__gh__create', arguments: {} }, asking.session)).result)).toBe(
      'created',
    );
    expect(asked).toEqual(['x', 'y']);
    expect(executed).toBe(1);
  });

  it('asks before a built-in that changes things, as before an MCP tool, unless a rule allows it', async () => {
    let executed = 0;
    const writes = tool('write_file', async () => ((executed += 1), textResult('written')), {
      annotations: { readOnlyHint: false, destructiveHint: true },
    });
    const nobody = setup([writes]);
    expect(resultText((await nobody.executor.execute({ id: '1', name: 'write_file', arguments: {} }, nobody.session)).result)).toBe(
      'Tool \'write_file\' needs approval and nobody can be asked here. Add an approval rule such as { pattern = "write_file", action = "allow" } or enable auto_approve.',
    );
    const asked: string[] = [];
    const asking = setup([writes], { askApproval: async (call) => (asked.push(call.id), true) });
    expect(resultText((await asking.executor.execute({ id: '2', name: 'write_file', arguments: {} }, asking.session)).result)).toBe(
      'written',
    );
    const ruled = setup([writes], {
      rules: [{ pattern: 'write_file', action: 'allow' }],
      askApproval: async (call) => (asked.push(call.id), false),
    });
    expect(resultText((await ruled.executor.execute({ id: '3', name: 'write_file', arguments: {} }, ruled.session)).result)).toBe(
      'written',
    );
    expect({ asked, executed }).toEqual({ asked: ['2'], executed: 2 });
  });

  it('times out a tool that does not answer and aborts its signal', async () => {
    let aborted = false;
    const { executor, session } = setup([
      tool('hangs', (_args, context) => new Promise(() => context.signal.addEventListener('abort', () => (aborted = true))), {
        timeoutMs: 50,
      }),
    ]);
    const outcome = await executor.execute({ id: '1', name: 'hangs', arguments: {} }, session);
    expect(outcome.result).toEqual({ content: [{ type: 'text', text: "Tool 'hangs' timed out after 50ms." }], isError: true });
    expect(aborted).toBe(true);
  });

  it('caps output for the model and keeps the full text as an artifact', async () => {
    const big = 'x'.repeat(5000) + 'é'.repeat(2000);
    const { executor, session } = setup([tool('big', async () => textResult(big))], { outputLimitBytes: 1024 });
    const outcome = await executor.execute({ id: '1', name: 'big', arguments: {} }, session);
    const [kept, note] = outcome.result.content;
    expect(kept).toEqual({ type: 'text', text: 'x'.repeat(1024) });
    expect(outcome.result.artifactPath).toMatch(/artifacts\/.+-big\.txt$/);
    expect(note).toEqual({
      type: 'text',
      text: `\n[output truncated: showing 1.0 KiB of 8.8 KiB; 7.8 KiB cut. Full output saved to ${outcome.result.artifactPath}]`,
    });
    expect(await readFile(outcome.result.artifactPath!, 'utf8')).toBe(big);
  });
});

describe('ToolExecutor with many calls in one turn', () => {
  it('runs 40 concurrent calls on one session without a max-listeners warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const gate = deferred<void>();
      const { executor, session } = setup([tool('wait', async () => (await gate.promise, textResult('ok')))]);
      const pending = executor.executeAll(
        Array.from({ length: 40 }, (_, index) => ({ id: String(index), name: 'wait', arguments: {} })),
        session,
      );
      gate.resolve();
      const outcomes = await pending;
      expect(outcomes.map((outcome) => resultText(outcome.result))).toEqual(Array.from({ length: 40 }, () => 'ok'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
