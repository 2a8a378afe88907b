/**
 * The HTTP surface's errors: each weft error code's status follows from its fault class in
 * the catalogue (`core/error-catalogue.ts`), but for a short named list; its hint is the
 * catalogue's unless this surface names its own routes. This surface's own codes have
 * rows here. Every error leaves the server as `{ "error": { "code", "message", "hint" } }`,
 * secrets redacted.
 */
import { catalogueEntry, ERROR_CODES, type FaultClass } from '../../core/error-catalogue.js';
import { errorMessage, WeftError, type WeftErrorCode } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';

/** Codes of this surface that the layers below do not have. */
export type HttpSurfaceErrorCode = 'INVALID_JSON' | 'INVALID_ARGUMENTS' | 'UNAUTHORIZED' | 'FORBIDDEN_HOST' | 'NOT_FOUND' | 'TOO_LARGE';
export type HttpErrorCode = WeftErrorCode | HttpSurfaceErrorCode;

export type HttpStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 500 | 502 | 503;

interface ErrorRow {
  status: HttpStatus;
  hint: string;
}

/** Each fault class's status: what the request named is wrong (422), clashes with the run's state, is missing, a dependency failed, a bug. */
const STATUS_OF_FAULT: Record<FaultClass, HttpStatus> = { caller: 422, state: 409, missing: 404, upstream: 502, internal: 500 };

/** Codes whose status is not their class's, and why. */
const STATUS_EXCEPTIONS: Partial<Record<WeftErrorCode, HttpStatus>> = {
  // The request itself is malformed (not what it names): 400.
  USAGE: 400,
  TOOL_INVALID_ARGS: 400,
  PATH_OUTSIDE_WORKSPACE: 400,
  INVALID_ID: 400,
  RUN_INVALID_PARAMS: 400,
  WORKSPACE_INVALID: 400,
  // Refused by an approval rule, not mistaken.
  TOOL_DENIED: 403,
  // A malformed webhook delivery.
  DELIVERY_ID_MISSING: 400,
  // A webhook's signature is its authentication.
  SIGNATURE_MISSING: 401,
  SIGNATURE_INVALID: 401,
  // The database is unavailable for now, or the server cannot check a webhook's signature
  // until its secret is set: a client should come back, not blame a gateway.
  STORE_FAILED: 503,
  TRIGGER_SECRET_MISSING: 503,
};

/** Hints that name this surface's routes in place of the catalogue's. */
const HINTS: Partial<Record<WeftErrorCode, string>> = {
  USAGE: 'Check the request against GET /api/v1/openapi.json.',
  PATH_OUTSIDE_WORKSPACE: "Use a path inside the server's workspace.",
  FILE_NOT_FOUND: "Check the path; relative paths resolve from the server's workspace.",
  MCP_SERVER_NOT_FOUND: 'GET /api/v1/mcp/servers lists the servers.',
  MCP_SERVER_EXISTS: 'Pick another name, or DELETE /api/v1/mcp/servers/{name} first.',
  MCP_SERVER_UNAVAILABLE: 'Check the server with GET /api/v1/mcp/servers or weft mcp test <name>.',
  MCP_SERVER_FAILED: 'Check the server with GET /api/v1/mcp/servers or weft mcp test <name>.',
  INVALID_ID: 'Use an id exactly as the API returned it (a 26-character ULID).',
  WORKFLOW_INVALID: 'Fix the workflow; POST /api/v1/workflows/validate lists every problem.',
  RUN_NOT_FOUND: 'GET /api/v1/runs lists the runs (archived ones with archived=any).',
  RUN_INVALID_TRANSITION: "Read the run's status with GET /api/v1/runs/{id}; the message says which states allow this.",
  RUN_INVALID_PARAMS: 'Fix the fields named in the message.',
  QUESTION_NOT_FOUND: 'GET /api/v1/runs/{id}/questions lists the pending questions.',
  QUESTION_NOT_PENDING: 'The question is already answered; GET /api/v1/runs/{id}/questions lists the pending ones.',
};

/** This surface's own codes, which the layers below do not have. */
const SURFACE_TABLE: Record<HttpSurfaceErrorCode, ErrorRow> = {
  INVALID_JSON: { status: 400, hint: 'Send a JSON object with Content-Type: application/json.' },
  INVALID_ARGUMENTS: { status: 400, hint: 'Fix the named fields; GET /api/v1/openapi.json lists every field of every route.' },
  UNAUTHORIZED: {
    status: 401,
    hint: 'Send "Authorization: Bearer <token>" or log in with POST /api/v1/login; the token is printed by weft serve and kept in the storage dir.',
  },
  FORBIDDEN_HOST: {
    status: 403,
    hint: 'Use the address weft serve listens on (127.0.0.1 or localhost), or start it with --host for another name.',
  },
  NOT_FOUND: { status: 404, hint: 'GET /api/v1/openapi.json lists every route.' },
  TOO_LARGE: { status: 413, hint: 'Send a smaller body (at most 1 MiB).' },
};

/** The status and hint of a code, from the catalogue's fault class unless named above. */
export function httpErrorRow(code: HttpErrorCode): ErrorRow {
  if (code in SURFACE_TABLE) return SURFACE_TABLE[code as HttpSurfaceErrorCode];
  const weftCode = code as WeftErrorCode;
  const entry = catalogueEntry(weftCode);
  return { status: STATUS_EXCEPTIONS[weftCode] ?? STATUS_OF_FAULT[entry.fault], hint: HINTS[weftCode] ?? entry.hint };
}

/** Thrown by a route to fail with one of this surface's own codes. */
export class HttpFailure extends Error {
  constructor(
    readonly code: HttpSurfaceErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  error: { code: HttpErrorCode; message: string; hint: string };
}

/** The status and JSON body for anything thrown; unknown errors become INTERNAL (500). */
export function errorResponse(error: unknown): { status: HttpStatus; body: ErrorBody } {
  return error instanceof HttpFailure || WeftError.is(error)
    ? errorAnswer(error.code, error.message)
    : errorAnswer('INTERNAL', `internal error: ${errorMessage(error)}`);
}

/** The status and JSON body of a refusal a service returns rather than throws (a webhook delivery's). */
export function errorAnswer(code: HttpErrorCode, message: string): { status: HttpStatus; body: ErrorBody } {
  const entry = httpErrorRow(code);
  return { status: entry.status, body: { error: { code, message: redactSecrets(message), hint: entry.hint } } };
}

/** Every status a route can answer with an error, for the OpenAPI document. */
export const ERROR_STATUSES: readonly HttpStatus[] = [
  ...new Set([...ERROR_CODES, ...(Object.keys(SURFACE_TABLE) as HttpSurfaceErrorCode[])].map((code) => httpErrorRow(code).status)),
].sort();
