/** Unit tests of the startup failure lines and their hints. */
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { StartupProblem, StartupTimeout, describeStartupFailure, withStderrTail } from './startup-failure.js';

function spawnError(code: string, command: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`spawn ${command} ${code}`), { code, syscall: `spawn ${command}`, path: command });
}

describe('describeStartupFailure', () => {
  it('says which runtime is missing when the command is not found', () => {
    expect(describeStartupFailure(spawnError('ENOENT', 'npx'), { command: 'npx' })).toBe('command not found: npx — is Node.js on PATH?');
    expect(describeStartupFailure(spawnError('ENOENT', 'uvx'), { command: 'uvx' })).toBe(
      'command not found: uvx — is uv installed and on PATH?',
    );
    expect(describeStartupFailure(spawnError('ENOENT', 'python3'), { command: 'python3' })).toBe(
      'command not found: python3 — is Python on PATH?',
    );
    expect(describeStartupFailure(spawnError('ENOENT', 'my-server'), { command: 'my-server' })).toBe(
      'command not found: my-server — is it installed and on PATH?',
    );
    expect(describeStartupFailure(spawnError('EACCES', './srv'), { command: './srv' })).toMatch(
      /^permission denied: \.\/srv — make it executable/,
    );
  });

  it('tells how to raise the startup timeout', () => {
    expect(describeStartupFailure(new StartupTimeout(10_000), { command: 'node' })).toMatch(/^timed out after 10s — raise startup_timeout/);
  });

  it('reports an exit during startup and a closed connection', () => {
    expect(
      describeStartupFailure(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), {
        command: 'node',
        exit: 'exited with code 2',
      }),
    ).toBe('the server exited with code 2 during startup — see its stderr below');
    expect(describeStartupFailure(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), {})).toMatch(
      /closed the connection during the handshake/,
    );
  });

  it('explains refused connections and handshake errors', () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(describeStartupFailure(refused, { url: 'http://127.0.0.1:1/mcp' })).toBe(
      'connection refused: http://127.0.0.1:1/mcp — is the server running?',
    );
    const sse = new Error('SSE error: TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:1');
    expect(describeStartupFailure(sse, { url: 'http://127.0.0.1:1/sse' })).toBe(
      'connection refused: http://127.0.0.1:1/sse — is the server running?',
    );
    expect(describeStartupFailure(new ProtocolError(ProtocolErrorCode.InvalidRequest, 'bad version'), {})).toMatch(
      /^handshake failed: .*bad version — is this an MCP server\?$/,
    );
    expect(describeStartupFailure(new StartupProblem('no url — set url'), {})).toBe('no url — set url');
  });
});

describe('withStderrTail', () => {
  it('appends the last stderr lines, indented', () => {
    expect(withStderrTail('failed', ['a', 'b'])).toBe('failed\n  stderr (last 2 lines):\n    a\n    b');
    expect(withStderrTail('failed', [])).toBe('failed');
  });
});
