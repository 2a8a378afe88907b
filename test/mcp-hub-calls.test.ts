/**
 * MCP hub against the fixture server over stdio: registration, calls and result
 * conversion, progress and timeouts, cancellation reaching the server, logging, long and
 * colliding names, large results, list_changed, resources and prompts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qualifiedToolName } from '../src/mcp/hub/index.js';
import { CallAbort } from '../src/tools/call-abort.js';
import type { ToolContext, ToolProgress, ToolResult } from '../src/tools/tool.js';
import { createTestHub, fixtureConfig, logged, toolContext, waitFor, type TestHub } from './fixtures/servers/hub-kit.js';

describe('MCP hub: calls and results (fixture server over stdio)', () => {
  let kit: TestHub;
  let tmp: string;
  let marker: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'weft-hub-calls-'));
    marker = join(tmp, 'cancelled');
    kit = createTestHub();
    await kit.hub.start([
      fixtureConfig('fx', { FIXTURE_NAMES: '1' }),
      fixtureConfig('slow', { FIXTURE_CANCEL_MARKER: marker }, { toolTimeoutMs: 400, maxToolTimeoutMs: 1500 }),
      fixtureConfig('filtered', {}, { enabledTools: ['echo', 'image', 'fail'], disabledTools: ['image'] }),
    ]);
  });

  afterAll(async () => {
    await kit?.hub.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  function call(name: string, args: Record<string, unknown> = {}, context: Partial<ToolContext> = {}): Promise<ToolResult> {
    const tool = kit.registry.get(name);
    if (!tool)
      throw new Error(
        `no tool ${name}; have ${kit.registry
          .list()
          .map((entry) => entry.name)
          .join(', ')}`,
      );
    return tool.execute(args, toolContext(context));
  }

  it('registers every server tool under its qualified name, with [server] descriptions', () => {
    expect(kit.hub.status().map((status) => [status.name, status.state])).toEqual([
      ['fx', 'ready'],
      ['slow', 'ready'],
      ['filtered', 'ready'],
    ]);
    const echo = kit.registry.get('mcp__fx__echo');
    expect(echo).toMatchObject({ description: '[fx] Echoes the message back', source: 'mcp', server: 'fx' });
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    const fxTools = kit.registry.list().filter((tool) => tool.server === 'fx');
    expect(kit.hub.serverStatus('fx')).toMatchObject({
      tools: fxTools.length,
      resources: 1,
      prompts: 1,
      serverInfo: { name: 'fx', version: '1.0.0' },
    });
    expect(kit.hub.serverStatus('fx').pid).toEqual(expect.any(Number));
  });

  it('applies enabled_tools, then disabled_tools', () => {
    const names = kit.registry
      .list()
      .filter((tool) => tool.server === 'filtered')
      .map((tool) => tool.name);
    expect(names.sort()).toEqual(['mcp__filtered__echo', 'mcp__filtered__fail']);
  });

  it('routes a call to the server and converts the result', async () => {
    expect(await call('mcp__fx__echo', { message: 'hi' })).toEqual({ content: [{ type: 'text', text: 'echo: hi' }], isError: false });
    expect((await call('mcp__fx__image')).content).toEqual([
      { type: 'text', text: 'a red dot' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ]);
    expect(await call('mcp__fx__structured')).toMatchObject({ isError: false, structuredContent: { answer: 42, unit: 'widgets' } });
    expect((await call('mcp__fx__mixed')).content).toEqual([
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', uri: 'mem://notes/a.txt', mimeType: 'text/plain', text: 'embedded text' },
      { type: 'resource', uri: 'mem://bin/b.bin', mimeType: 'application/octet-stream', blob: 'AAEC' },
      { type: 'text', text: '[resource link] c.md: mem://notes/c.md (text/markdown — the third note)' },
    ]);
  });

  it('turns isError results into error results', async () => {
    expect(await call('mcp__fx__fail')).toEqual({ content: [{ type: 'text', text: 'the widget is broken' }], isError: true });
  });

  it('forwards progress, and progress extends the tool timeout', async () => {
    const progress: ToolProgress[] = [];
    const started = Date.now();
    // 4 × 200 ms is twice tool_timeout (400 ms); each progress notification resets it.
    const result = await call('mcp__slow__progress', { steps: 4, delayMs: 200 }, { onProgress: (update) => progress.push(update) });
    expect(result.content).toEqual([{ type: 'text', text: 'done after 4 steps' }]);
    expect(Date.now() - started).toBeGreaterThan(700);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]).toEqual({ progress: 1, total: 4, message: 'step 1' });
  });

  it('stops at max_tool_timeout however much progress arrives', async () => {
    const started = Date.now();
    await expect(call('mcp__slow__progress', { steps: 20, delayMs: 200 })).rejects.toMatchObject({ code: 'TOOL_TIMEOUT' });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(3500);
  });

  it('honours tool_timeout and tells the server to cancel', async () => {
    rmSync(marker, { force: true });
    const started = Date.now();
    const failure = call('mcp__slow__hang');
    await expect(failure).rejects.toMatchObject({
      code: 'TOOL_TIMEOUT',
      message: expect.stringContaining("[slow] tool 'hang' timed out after 400ms"),
    });
    expect(Date.now() - started).toBeLessThan(2500);
    await waitFor('the server to record notifications/cancelled', () => existsSync(marker), 5000);
  });

  it('cancels a call when the context signal aborts, and the server hears of it', async () => {
    rmSync(marker, { force: true });
    rmSync(`${marker}.started`, { force: true });
    const controller = new AbortController();
    const pending = call('mcp__slow__hang', {}, { signal: controller.signal });
    await waitFor('the call to reach the server', () => existsSync(`${marker}.started`), 5000);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'TOOL_CANCELLED' });
    await waitFor('the server to record notifications/cancelled', () => existsSync(marker), 5000);
  });

  it('cancels through the per-call abort the executor hands out (no AbortSignal made), and the server hears of it', async () => {
    rmSync(marker, { force: true });
    rmSync(`${marker}.started`, { force: true });
    const abort = new CallAbort();
    let signalMade = false;
    const base = toolContext();
    const tool = kit.registry.get('mcp__slow__hang');
    const pending = tool!.execute(
      {},
      {
        workspaceRoot: base.workspaceRoot,
        readFiles: base.readFiles,
        logger: base.logger,
        cancellation: abort,
        get signal(): AbortSignal {
          signalMade = true;
          return abort.signal;
        },
      },
    );
    await waitFor('the call to reach the server', () => existsSync(`${marker}.started`), 5000);
    abort.abort(new Error('stop'));
    await expect(pending).rejects.toMatchObject({ code: 'TOOL_CANCELLED' });
    await waitFor('the server to record notifications/cancelled', () => existsSync(marker), 5000);
    expect(signalMade).toBe(false);
  });

  it("logs the server's log messages and stderr, tagged with the server", async () => {
    await call('mcp__fx__log', { message: 'hello from the server' });
    await call('mcp__fx__stderr', { lines: 2 });
    const message = await waitFor('the log message', () => logged(kit.records, /^hello from the server$/));
    expect(message).toMatchObject({ level: 'warn', tag: 'fx', fields: { logger: 'fixture-logger' } });
    const stderr = await waitFor('the stderr line', () => logged(kit.records, /^MCP \[fx\] stderr: stderr line 2$/));
    expect(stderr.level).toBe('debug');
  });

  it('shortens long names deterministically and routes them to the original tool', async () => {
    const long = kit.registry.list().filter((tool) => tool.server === 'fx' && tool.name.includes('very_long'));
    expect(long).toHaveLength(2);
    for (const tool of long) {
      expect(tool.name.length).toBeLessThanOrEqual(64);
      const original = kit.hub.resolveTool(tool.name);
      expect(original?.server).toBe('fx');
      expect(original?.tool).toHaveLength(70);
      expect(qualifiedToolName('fx', original?.tool ?? '')).toBe(tool.name);
    }
    const texts = await Promise.all(long.map(async (tool) => (await call(tool.name)).content));
    expect(
      texts
        .flat()
        .map((part) => (part.type === 'text' ? part.text : ''))
        .sort(),
    ).toEqual(['long one', 'long two']);
  });

  it('drops the second of two names that collide after sanitising, with a warning', async () => {
    expect(kit.hub.resolveTool('mcp__fx__get_value')).toEqual({ server: 'fx', tool: 'get.value' });
    expect((await call('mcp__fx__get_value')).content).toEqual([{ type: 'text', text: 'dotted' }]);
    expect(logged(kit.records, /tool 'get\/value' dropped: 'get\/value' and 'get\.value' both become 'mcp__fx__get_value'/)?.level).toBe(
      'warn',
    );
  });

  it('returns a 50 MB result whole and keeps working', async () => {
    const result = await call('mcp__fx__big', { megabytes: 50 });
    const first = result.content[0];
    expect(first?.type === 'text' ? first.text.length : 0).toBe(50 * 1024 * 1024);
    expect(await call('mcp__fx__echo', { message: 'still here' })).toMatchObject({ content: [{ type: 'text', text: 'echo: still here' }] });
  });

  it('serves resources and prompts', async () => {
    expect(await kit.hub.listResources('fx')).toEqual([
      { server: 'fx', uri: 'mem://notes/a.txt', name: 'notes', description: 'A note', mimeType: 'text/plain' },
    ]);
    expect(await kit.hub.readResource('fx', 'mem://notes/a.txt')).toEqual({
      server: 'fx',
      uri: 'mem://notes/a.txt',
      contents: [{ type: 'resource', uri: 'mem://notes/a.txt', mimeType: 'text/plain', text: 'note a' }],
    });
    expect(await kit.hub.listPrompts('fx')).toEqual([
      { server: 'fx', name: 'greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }] },
    ]);
    expect(await kit.hub.getPrompt('fx', 'greet', { who: 'Ada' })).toEqual({
      server: 'fx',
      name: 'greet',
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada' } }],
    });
    expect((await kit.hub.listResources()).map((resource) => resource.server)).toEqual(['fx', 'slow', 'filtered']);
  });

  it('names unknown servers and the known ones', async () => {
    await expect(kit.hub.readResource('nope', 'x://y')).rejects.toMatchObject({
      code: 'MCP_SERVER_NOT_FOUND',
      message: expect.stringContaining('Configured: filtered, fx, slow'),
    });
  });

  it('re-registers tools on notifications/tools/list_changed', async () => {
    await call('mcp__fx__add_tool', { name: 'added_at_runtime' });
    await waitFor('the new tool to appear', () => kit.registry.get('mcp__fx__added_at_runtime'));
    expect((await call('mcp__fx__added_at_runtime')).content).toEqual([{ type: 'text', text: 'I am added_at_runtime' }]);
    expect(logged(kit.records, /^MCP \[fx\] tools changed: added mcp__fx__added_at_runtime$/)?.level).toBe('info');

    await call('mcp__fx__remove_tool');
    await waitFor('the removed tool to disappear', () => !kit.registry.get('mcp__fx__removable'));
    expect(logged(kit.records, /tools changed: removed mcp__fx__removable/)).toBeDefined();
  });

  it('re-fetches resources and prompts on their list_changed notifications', async () => {
    await call('mcp__fx__add_extras', { name: 'extra' });
    await waitFor('the new resource', async () =>
      (await kit.hub.listResources('fx')).some((resource) => resource.uri === 'mem://extra/extra'),
    );
    await waitFor('the new prompt', async () => (await kit.hub.listPrompts('fx')).some((prompt) => prompt.name === 'extra'));
    expect(kit.hub.serverStatus('fx')).toMatchObject({ resources: 2, prompts: 2 });
    expect(logged(kit.records, /^MCP \[fx\] resources changed: added mem:\/\/extra\/extra$/)).toBeDefined();
    expect(logged(kit.records, /^MCP \[fx\] prompts changed: added extra$/)).toBeDefined();
  });
});
