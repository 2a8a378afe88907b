/**
 * One error catalogue, three surfaces: for every code, the HTTP status, the MCP error
 * (JSON-RPC code and retryable) and the CLI exit code say the same fault class the
 * catalogue gives it, and its `data` is checked by the type checker.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, ERROR_CODES, type FaultClass } from '../src/core/error-catalogue.js';
import { WeftError, type WeftErrorCode } from '../src/core/errors.js';
import { errorResponse, type HttpStatus } from '../src/surfaces/http/error-response.js';
import { errorRow, toolErrorResult, toFailure } from '../src/surfaces/mcp-server/error-codes.js';
import { EXIT_FAILURE, EXIT_USAGE, exitCodeFor } from '../src/surfaces/cli/exit-codes.js';

/** The fault class an HTTP status tells a client. */
const FAULT_OF_STATUS: Partial<Record<HttpStatus, FaultClass>> = {
  400: 'caller',
  401: 'caller',
  403: 'caller',
  422: 'caller',
  404: 'missing',
  409: 'state',
  502: 'upstream',
  503: 'upstream',
  500: 'internal',
};

function error(code: WeftErrorCode): WeftError {
  return new WeftError(code, `failed with ${code}`);
}

describe('the error catalogue across surfaces', () => {
  it.each(ERROR_CODES)('%s: HTTP, MCP and the CLI agree with the catalogue', (code) => {
    const { fault, retryable } = ERROR_CATALOGUE[code];
    const http = errorResponse(error(code));
    expect(FAULT_OF_STATUS[http.status]).toBe(fault);
    expect(http.body.error.code).toBe(code);
    expect(http.body.error.hint).toMatch(/\S.*[.)]$/);

    const mcp = errorRow(code);
    expect(mcp.jsonRpc).toBe(fault === 'upstream' || fault === 'internal' ? -32603 : -32602);
    expect(mcp.retryable).toBe(retryable);
    expect(toolErrorResult(toFailure(error(code)))._meta).toEqual({ 'weft/error': { code, retryable, data: {} } });

    expect(exitCodeFor(code)).toBe(fault === 'caller' || fault === 'missing' ? EXIT_USAGE : EXIT_FAILURE);
  });

  it('settles the disagreements the surfaces had: a lost lease is a state conflict everywhere, a path outside the workspace a usage error', () => {
    expect([errorResponse(error('RUN_LEASE_LOST')).status, errorRow('RUN_LEASE_LOST').retryable, exitCodeFor('RUN_LEASE_LOST')]).toEqual([
      409,
      false,
      EXIT_FAILURE,
    ]);
    expect([
      errorResponse(error('PATH_OUTSIDE_WORKSPACE')).status,
      errorRow('PATH_OUTSIDE_WORKSPACE').retryable,
      exitCodeFor('PATH_OUTSIDE_WORKSPACE'),
    ]).toEqual([400, false, EXIT_USAGE]);
  });

  it("carries each code's typed data to the surfaces", () => {
    const failed = new WeftError('RUN_NOT_FOUND', 'No run 01J', { data: { runId: '01J' } });
    expect(failed.data.runId).toBe('01J');
    expect(toolErrorResult(toFailure(failed))._meta).toEqual({
      'weft/error': { code: 'RUN_NOT_FOUND', retryable: false, data: { runId: '01J' } },
    });
    // @ts-expect-error: RUN_NOT_FOUND's data names the run, not a server.
    expect(new WeftError('RUN_NOT_FOUND', 'No run', { data: { server: 'docs' } }).data).toEqual({ server: 'docs' });
  });
});
