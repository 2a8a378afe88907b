/**
 * What a failed request to a server becomes for weft: a timeout, a cancellation, a
 * server that went away mid-call, or the server's own error — each a `WeftError` whose
 * message names the server and, where it helps, what happens next.
 */
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { formatDuration } from '../../core/duration.js';
import { WeftError, errorMessage } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';
import type { AbortLike } from '../../tools/call-abort.js';
import { stepUpScope } from '../oauth/auth-challenge.js';

export interface CallFailureContext {
  server: string;
  /** `tool 'echo'`, `resources/read of 'mem://a'`… */
  what: string;
  signal?: AbortLike;
  timeoutMs: number;
  maxTimeoutMs?: number;
  /** `exited with code 3`, when the server process ended. */
  exit?: string;
}

export function offlineError(server: string): WeftError {
  return new WeftError('MCP_SERVER_UNAVAILABLE', `[${server}] is offline — reconnecting`, { data: { server } });
}

/** Whether the failure says the connection itself is gone (as opposed to one request failing). */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof SdkError)
    return (
      error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected || error.code === SdkErrorCode.SendFailed
    );
  if (error instanceof ProtocolError) return false;
  return (
    error instanceof TypeError ||
    (error instanceof Error && /ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|fetch failed/i.test(errorMessage(error)))
  );
}

/** A request that ran out of `tool_timeout` (and `max_tool_timeout`, with progress). */
export function timeoutError(context: Pick<CallFailureContext, 'server' | 'what' | 'timeoutMs' | 'maxTimeoutMs'>): WeftError {
  const limit = context.maxTimeoutMs
    ? `${formatDuration(context.timeoutMs)} without progress (at most ${formatDuration(context.maxTimeoutMs)} with progress)`
    : formatDuration(context.timeoutMs);
  return new WeftError('TOOL_TIMEOUT', `[${context.server}] ${context.what} timed out after ${limit}; the server was told to cancel it`, {
    data: { server: context.server },
  });
}

export function callFailure(error: unknown, context: CallFailureContext): WeftError {
  const { server, what, signal } = context;
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    if (WeftError.is(reason)) return reason;
    return new WeftError('TOOL_CANCELLED', `[${server}] ${what} was cancelled`, { data: { server } });
  }
  if (WeftError.is(error)) return error;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return timeoutError(context);
  const neededScope = stepUpScope(error);
  if (neededScope !== undefined) {
    return new WeftError(
      'MCP_SERVER_UNAVAILABLE',
      `[${server}] ${what} needs more authorization (scope '${neededScope}') — run 'weft mcp login ${server} --scope "${neededScope}"'`,
      {
        data: { server, scope: neededScope },
        cause: error,
      },
    );
  }
  if (isConnectionLoss(error)) {
    const cause = context.exit ? `the server ${context.exit}` : 'the connection was lost';
    return new WeftError('MCP_SERVER_UNAVAILABLE', `[${server}] ${what} failed: ${cause} — reconnecting`, {
      data: { server },
      cause: error,
    });
  }
  return new WeftError('TOOL_FAILED', `[${server}] ${what} failed: ${redactSecrets(errorMessage(error))}`, {
    data: { server },
    cause: error,
  });
}
