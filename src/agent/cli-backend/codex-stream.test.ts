import { describe, expect, it } from 'vitest';
import { parseStream } from '../../../test/fixtures/cli-streams/stream-lines.js';
import type { CliEvent } from './cli-adapter.js';
import { codexStreamParser } from './codex-stream.js';

function parse(fixture: string): CliEvent[] {
  return parseStream(fixture, codexStreamParser());
}

describe('codexStreamParser on real codex exec --json lines', () => {
  it('reads the session, a command, an MCP tool call with its structured result, the answer and the usage', () => {
    const events = parse('codex-shell-and-mcp.jsonl');
    expect(events).toEqual([
      { kind: 'session-started', sessionId: '01a221ca-dcab-7130-ab89-171905339958' },
      {
        kind: 'tool-call-requested',
        callId: 'item_1',
        tool: 'exec_command',
        arguments: { command: "/bin/bash -lc 'echo hi > out.txt; cat out.txt'" },
      },
      { kind: 'tool-result', callId: 'item_1', isError: false, text: 'hi\n' },
      {
        kind: 'tool-call-requested',
        callId: 'item_2',
        tool: 'mcp__memory__create_entities',
        arguments: { entities: [{ name: 'weft', entityType: 'project', observations: ['runs agents'] }] },
      },
      {
        kind: 'tool-result',
        callId: 'item_2',
        isError: false,
        // The memory graph already held the entity, so the server created none.
        text: '[]',
        structuredContent: { entities: [] },
      },
      { kind: 'text', text: 'done mix' },
      { kind: 'final', text: 'done mix', isError: false, usage: { inputTokens: 300, outputTokens: 60 } },
    ]);
  });

  it('reports a missing key as a login the stage needs, and ends with an error', () => {
    const events = parse('codex-missing-key.jsonl');
    expect(events.slice(1)).toEqual([
      { kind: 'error', message: 'Missing environment variable: `WEFT_CODEX_KEY`.', loginRequired: true },
      { kind: 'final', text: 'Missing environment variable: `WEFT_CODEX_KEY`.', isError: true },
    ]);
  });

  it('does not report the retries before a 401 as failures, only the 401 itself as a login', () => {
    const events = parse('codex-unauthorized.jsonl');
    const errors = events.filter((event) => event.kind === 'error');
    expect(errors).toEqual([{ kind: 'error', message: expect.stringContaining('401 Unauthorized') as string, loginRequired: true }]);
    expect(events.at(-1)).toMatchObject({ kind: 'final', isError: true });
  });

  it('reads a resumed session with the same thread id', () => {
    const events = parse('codex-resumed.jsonl');
    expect(events[0]).toEqual({ kind: 'session-started', sessionId: '01a221dd-c63c-78e3-9595-3c472b18e106' });
    expect(events.at(-1)).toEqual({ kind: 'final', text: 'extra', isError: false, usage: { inputTokens: 200, outputTokens: 40 } });
  });

  it('marks lines that are not its JSON as malformed and a failed command as an error result', () => {
    const parser = codexStreamParser();
    expect(parser.line('Reading additional input from stdin...')).toEqual([
      { kind: 'malformed', line: 'Reading additional input from stdin...', reason: 'not a JSON object' },
    ]);
    expect(parser.line('{"item":{}}')).toEqual([{ kind: 'malformed', line: '{"item":{}}', reason: 'no "type" field' }]);
    const failed = parser.line(
      '{"type":"item.completed","item":{"id":"item_9","type":"command_execution","command":"false","aggregated_output":"","exit_code":1,"status":"failed"}}',
    );
    expect(failed).toEqual([
      { kind: 'tool-call-requested', callId: 'item_9', tool: 'exec_command', arguments: { command: 'false' } },
      { kind: 'tool-result', callId: 'item_9', isError: true, text: '' },
    ]);
    const mcpError = parser.line(
      '{"type":"item.completed","item":{"id":"item_10","type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"result":null,"error":{"message":"boom"},"status":"failed"}}',
    );
    expect(mcpError.at(-1)).toEqual({ kind: 'tool-result', callId: 'item_10', isError: true, text: 'boom' });
  });
});
