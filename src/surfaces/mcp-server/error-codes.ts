/**
 * The MCP surface's errors: each weft error code's JSON-RPC code (where MCP wants a
 * protocol error: resources, prompts) follows from its fault class in the catalogue
 * (`core/error-catalogue.ts`), whether trying again can help is the catalogue's, and the
 * next step is the catalogue's hint unless this surface names its own tools. Tool failures
 * are `isError` results whose text starts with the stable code.
 */
import { ProtocolError, type CallToolResult } from '@modelcontextprotocol/server';
import { catalogueEntry, type FaultClass } from '../../core/error-catalogue.js';
import { errorMessage, WeftError, type WeftErrorCode } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';

/** Codes of this surface that the layers below do not have. */
export type McpSurfaceErrorCode = 'INVALID_ARGUMENTS' | 'RESOURCE_NOT_FOUND';
export type McpErrorCode = WeftErrorCode | McpSurfaceErrorCode;

interface ErrorRow {
  /** JSON-RPC error code for protocol-level answers (resources/read, prompts/get). */
  jsonRpc: number;
  /** True when the same call may succeed later without changing it. */
  retryable: boolean;
  /** The next step, appended to the message. */
  next: string;
}

const INVALID_PARAMS = -32602;
const INTERNAL = -32603;

/** The request cannot succeed as made (invalid params); a dependency or weft itself failed (internal error). No exceptions. */
const JSON_RPC_OF_FAULT: Record<FaultClass, number> = {
  caller: INVALID_PARAMS,
  state: INVALID_PARAMS,
  missing: INVALID_PARAMS,
  upstream: INTERNAL,
  internal: INTERNAL,
};

/** Next steps that name this surface's tools in place of the catalogue's hint. */
const HINTS: Partial<Record<WeftErrorCode, string>> = {
  USAGE: 'Check the arguments against the tool description.',
  FILE_NOT_FOUND: 'Check the path; relative paths resolve from the run cwd, else the server cwd.',
  INVALID_ID: 'Use a run or question id exactly as weft_run_create, weft_run_search or get_questions returned it.',
  RUN_NOT_FOUND: 'Find runs with weft_run_search (archived runs need archived: true or "any").',
  RUN_INVALID_TRANSITION: "Read the run's current status with weft_run_get; the message says which states allow this.",
  RUN_NOT_TERMINAL: 'Wait for the run to end (weft_run_gather) or cancel it first.',
  QUESTION_NOT_FOUND: 'List the pending questions with weft_run_interact action "get_questions".',
  QUESTION_NOT_PENDING: 'The question is already answered; list pending ones with action "get_questions".',
  STAGE_NOT_FOUND: 'Use a stage id of this run, e.g. implement@1 (weft_run_pair action "status" lists the running agent stages).',
  NO_ACTIVE_AGENT_STAGE: 'Pair with a run while one of its agent stages is running (weft_run_pair action "status").',
  PAIR_SESSION_OPEN: 'Use the open session (action "message"), or end it (action "end") before starting another.',
  NO_PAIR_SESSION: 'Start a session with action "start" (weft_run_pair action "status" shows what is open).',
};

/** This surface's own codes, which the layers below do not have. */
const SURFACE_TABLE: Record<McpSurfaceErrorCode, ErrorRow> = {
  INVALID_ARGUMENTS: {
    jsonRpc: INVALID_PARAMS,
    retryable: false,
    next: "Fix the named arguments; the tool's inputSchema lists every parameter.",
  },
  RESOURCE_NOT_FOUND: {
    jsonRpc: INVALID_PARAMS,
    retryable: false,
    next: 'Use weft://runs, weft://runs/{run_id} or weft://runs/{run_id}/events.',
  },
};

/** A failure in the MCP surface's own terms. */
export interface McpFailure {
  code: McpErrorCode;
  message: string;
  data: Record<string, unknown>;
}

export function failure(code: McpSurfaceErrorCode, message: string, data: Record<string, unknown> = {}): McpFailure {
  return { code, message, data };
}

/** Anything thrown, as a failure with a stable code; unknown errors become INTERNAL. */
export function toFailure(error: unknown): McpFailure {
  if (WeftError.is(error)) return { code: error.code, message: error.message, data: error.data };
  return { code: 'INTERNAL', message: `internal error: ${errorMessage(error)}`, data: {} };
}

/** A code's JSON-RPC error, retryability and next step: from the catalogue, in this surface's terms. */
export function errorRow(code: McpErrorCode): ErrorRow {
  if (code in SURFACE_TABLE) return SURFACE_TABLE[code as McpSurfaceErrorCode];
  const weftCode = code as WeftErrorCode;
  const entry = catalogueEntry(weftCode);
  return { jsonRpc: JSON_RPC_OF_FAULT[entry.fault], retryable: entry.retryable, next: HINTS[weftCode] ?? entry.hint };
}

/** `CODE: message Next step.` with secrets redacted. */
export function describeFailure(failed: McpFailure): string {
  return redactSecrets(`${failed.code}: ${failed.message} ${errorRow(failed.code).next}`);
}

/**
 * The `isError` result for a failed tool call. No `structuredContent`: clients built on
 * the v1 SDK validate it against the output schema even on errors. The code travels in
 * the text and in `_meta['weft/error']`.
 *
 * @example toolErrorResult(toFailure(new WeftError('RUN_NOT_FOUND', 'No run …'))).content[0].text // → 'RUN_NOT_FOUND: No run … Find runs with …'
 */
export function toolErrorResult(failed: McpFailure): CallToolResult {
  const row = errorRow(failed.code);
  return {
    isError: true,
    content: [{ type: 'text', text: describeFailure(failed) }],
    _meta: {
      'weft/error': {
        code: failed.code,
        retryable: row.retryable,
        data: JSON.parse(redactSecrets(JSON.stringify(failed.data))) as Record<string, unknown>,
      },
    },
  };
}

/** The JSON-RPC error for a failure where MCP wants a protocol error (resources/read, prompts/get). */
export function toProtocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const failed = toFailure(error);
  return new ProtocolError(errorRow(failed.code).jsonRpc, describeFailure(failed), { code: failed.code });
}
