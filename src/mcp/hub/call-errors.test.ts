import { InsufficientScopeError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { callFailure } from './call-errors.js';

const context = { server: 'remote', what: "tool 'publish'", timeoutMs: 60_000 };

describe('callFailure', () => {
  it('turns a 403 insufficient_scope into an error that says which login asks for the scope', () => {
    const refused = new Error('tool call failed', { cause: new InsufficientScopeError({ requiredScope: 'mcp:write' }) });
    const failure = callFailure(refused, context);
    expect(failure).toMatchObject({ code: 'MCP_SERVER_UNAVAILABLE', data: { server: 'remote', scope: 'mcp:write' } });
    expect(failure.message).toBe(
      `[remote] tool 'publish' needs more authorization (scope 'mcp:write') — run 'weft mcp login remote --scope "mcp:write"'`,
    );
  });

  it('names timeouts and cancellations as such', () => {
    expect(callFailure(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'), context).message).toBe(
      "[remote] tool 'publish' timed out after 1m; the server was told to cancel it",
    );
    const aborted = { aborted: true, reason: 'stop', addEventListener: () => {}, removeEventListener: () => {} };
    expect(callFailure(new Error('x'), { ...context, signal: aborted })).toMatchObject({ code: 'TOOL_CANCELLED' });
  });
});
