import { describe, expect, it } from 'vitest';
import { parseStream } from '../../../test/fixtures/cli-streams/stream-lines.js';
import type { CliEvent } from './cli-adapter.js';
import { geminiStreamParser } from './gemini-stream.js';

function parse(fixture: string): CliEvent[] {
  return parseStream(fixture, geminiStreamParser());
}

describe('geminiStreamParser on real gemini --output-format stream-json lines', () => {
  it('reads the session, a shell command, an MCP tool call, the streamed answer and the usage', () => {
    const events = parse('gemini-shell-and-mcp.jsonl');
    expect(events[0]).toEqual({ kind: 'session-started', sessionId: '3f1b7c2e-0d3a-4c55-9e2b-8a1f0c6d9e04', model: 'gemini-2.5-flash' });
    const shellId = 'run_shell_command__run_shell_command_1795864822481_0';
    expect(events.slice(1, 5)).toEqual([
      { kind: 'tool-call-requested', callId: shellId, tool: 'run_shell_command', arguments: { command: 'echo hi > out.txt; cat out.txt' } },
      { kind: 'tool-result', callId: shellId, isError: false, text: 'hi' },
      {
        kind: 'tool-call-requested',
        callId: 'mcp_memory_create_entities__mcp_memory_create_entities_1795864823184_0',
        tool: 'mcp_memory_create_entities',
        arguments: { entities: [{ name: 'weft', entityType: 'project', observations: ['runs agents'] }] },
      },
      {
        kind: 'tool-result',
        callId: 'mcp_memory_create_entities__mcp_memory_create_entities_1795864823184_0',
        isError: false,
        text: expect.stringContaining('"name": "weft"') as string,
      },
    ]);
    expect(events.slice(5)).toEqual([
      { kind: 'text', text: 'don' },
      { kind: 'text', text: 'e g' },
      { kind: 'text', text: 'mix' },
      { kind: 'final', text: 'done gmix', isError: false, usage: { inputTokens: 300, outputTokens: 60 } },
    ]);
  });

  it('reads tools Gemini CLI left out as failed calls, and the answer after them', () => {
    const events = parse('gemini-tools-not-allowed.jsonl');
    const results = events.filter((event) => event.kind === 'tool-result');
    expect(results).toHaveLength(2);
    expect(results.every((event) => event.isError && event.text.includes('not found'))).toBe(true);
    expect(events.at(-1)).toMatchObject({ kind: 'final', text: 'done gmix', isError: false });
  });

  it('reports a 401 as a login the stage needs and ends with an error', () => {
    const events = parse('gemini-unauthorized.jsonl');
    expect(events.slice(1)).toEqual([
      { kind: 'error', message: expect.stringContaining('"code":401') as string, loginRequired: true },
      {
        kind: 'final',
        text: expect.stringContaining('invalid api key') as string,
        isError: true,
        usage: { inputTokens: 0, outputTokens: 0 },
      },
    ]);
  });

  it('takes the answer from the text after the last tool result, and marks other lines malformed', () => {
    const parser = geminiStreamParser();
    parser.line('{"type":"message","role":"assistant","content":"Let me look.","delta":true}');
    parser.line('{"type":"tool_use","tool_name":"glob","tool_id":"g1","parameters":{"pattern":"*"}}');
    parser.line('{"type":"tool_result","tool_id":"g1","status":"success","output":"a.txt"}');
    parser.line('{"type":"message","role":"assistant","content":"One file.","delta":true}');
    expect(parser.line('{"type":"result","status":"success"}')).toEqual([{ kind: 'final', text: 'One file.', isError: false }]);
    expect(parser.line('Loaded cached credentials.')).toEqual([
      { kind: 'malformed', line: 'Loaded cached credentials.', reason: 'not a JSON object' },
    ]);
    expect(parser.line('{"type":"error","severity":"warning","message":"Loop detected"}')).toEqual([]);
  });
});
