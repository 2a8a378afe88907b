/**
 * The MCP surface's one error table: every weft error code (plus the two this surface
 * adds) mapped to the JSON-RPC code used where MCP wants a protocol error (resources,
 * prompts), whether trying again later can help, and what the caller should do next.
 * Tool failures are `isError` results whose text starts with the stable code.
 */
import { ProtocolError, type CallToolResult } from '@modelcontextprotocol/server';
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

const invalid = (next: string): ErrorRow => ({ jsonRpc: INVALID_PARAMS, retryable: false, next });
const internal = (next: string): ErrorRow => ({ jsonRpc: INTERNAL, retryable: true, next });

/** Exhaustive: adding a code to `WeftErrorCode` fails the type check until it is mapped here. */
const TABLE: Record<McpErrorCode, ErrorRow> = {
  USAGE: invalid('Check the arguments against the tool description.'),
  INVALID_ARGUMENTS: invalid("Fix the named arguments; the tool's inputSchema lists every parameter."),
  SETTINGS_INVALID: invalid("Fix the settings file named in the message (the server's storage dir)."),
  CONFIG_INVALID: invalid('Fix the config file named in the message.'),
  TOOL_NOT_FOUND: invalid('Check the tool name in the workflow file.'),
  TOOL_INVALID_ARGS: invalid('Fix the tool arguments in the workflow file.'),
  TOOL_DENIED: invalid('An approval rule refused the call; change the rule or the workflow.'),
  TOOL_TIMEOUT: internal('Try again, or raise the timeout.'),
  TOOL_CANCELLED: internal('The call was cancelled; call again if still needed.'),
  TOOL_FAILED: internal('See the message for the cause.'),
  PATH_OUTSIDE_WORKSPACE: invalid("Use a path inside the run's directory (cwd)."),
  FILE_NOT_READ: invalid('Check the file exists and is readable.'),
  FILE_NOT_FOUND: invalid('Check the path; relative paths resolve from the run cwd, else the server cwd.'),
  EDIT_NO_MATCH: invalid('Read the file again and retry with text that matches.'),
  EDIT_AMBIGUOUS: invalid('Give more context so the text matches once.'),
  FETCH_FAILED: internal('Check the URL and the network, then retry.'),
  MCP_SERVER_NOT_FOUND: invalid("Check the server name ('weft mcp list')."),
  MCP_SERVER_EXISTS: invalid('Pick another name, or remove the server with that name first.'),
  MCP_SERVER_UNAVAILABLE: internal("Check the server with 'weft mcp test <name>'."),
  MCP_SERVER_FAILED: internal("Check the server with 'weft mcp test <name>'."),
  INVALID_ID: invalid('Use a run or question id exactly as weft_run_create, weft_run_search or get_questions returned it.'),
  WORKFLOW_INVALID: invalid("Fix the workflow file; 'weft workflow validate <file>' lists every problem."),
  RUN_NOT_FOUND: invalid('Find runs with weft_run_search (archived runs need archived: true or "any").'),
  RUN_INVALID_TRANSITION: invalid("Read the run's current status with weft_run_get; the message says which states allow this."),
  RUN_NOT_TERMINAL: invalid('Wait for the run to end (weft_run_gather) or cancel it first.'),
  RUN_PARENT_CYCLE: invalid('Pick a parent that is not the run itself or one of its descendants.'),
  RUN_INVALID_PARAMS: invalid('Fix the parameters named in the message.'),
  RUN_LEASE_LOST: internal('Another runner took the run over; read the run again.'),
  QUESTION_NOT_FOUND: invalid('List the pending questions with weft_run_interact action "get_questions".'),
  QUESTION_NOT_PENDING: invalid('The question is already answered; list pending ones with action "get_questions".'),
  STORE_FAILED: internal("Retry; if it keeps failing, check the storage dir's disk space and permissions."),
  MODEL_CONFIG_INVALID: invalid('Fix the [llm] settings or the model name named in the message.'),
  MODEL_KEY_MISSING: invalid('Set the API key variable named in the message for the runner, then retry the run.'),
  MODEL_AUTH_FAILED: invalid('Check the API key of the provider named in the message, then retry the run.'),
  MODEL_REQUEST_FAILED: internal('The model provider failed; retry the run later.'),
  STAGE_NOT_FOUND: invalid('Use a stage id of this run, e.g. implement@1 (weft_run_pair action "status" lists the running agent stages).'),
  NO_ACTIVE_AGENT_STAGE: invalid('Pair with a run while one of its agent stages is running (weft_run_pair action "status").'),
  PAIR_SESSION_OPEN: invalid('Use the open session (action "message"), or end it (action "end") before starting another.'),
  NO_PAIR_SESSION: invalid('Start a session with action "start" (weft_run_pair action "status" shows what is open).'),
  WORKSPACE_INVALID: invalid('Fix the [run.workspace] field named in the message.'),
  WORKSPACE_NOT_A_REPOSITORY: invalid('Create the run inside a git repository, or use workspace mode "in-place" or "clone".'),
  WORKSPACE_BASE_NOT_FOUND: invalid('Use a base that exists (git branch -a, git tag and git log list them).'),
  WORKSPACE_BRANCH_EXISTS: invalid('Delete or rename the existing weft/runs/<run-id> branch, then create the run again.'),
  WORKSPACE_BRANCH_NOT_FOUND: invalid('Use a branch that exists (git branch lists them).'),
  WORKSPACE_NOT_ON_HOST: invalid("Run this on the host that holds the run's repository, or give the run a remote."),
  WORKSPACE_HISTORY_REWRITTEN: internal("The stage moved the run's branch away from its last checkpoint; its files are kept under the ref named in the message."),
  WORKSPACE_PUSH_REFUSED: internal("The remote refused the run's checkpoint; fix the remote (message quoted), then resume the run."),
  WORKSPACE_FETCH_FAILED: internal("Check the run's remote is reachable from this host, then resume the run."),
  WORKSPACE_MERGE_CONFLICT: invalid('Resolve the listed files by merging the run branch yourself, or rewind the run and try again.'),
  WORKSPACE_GIT_FAILED: internal("git failed; its message is quoted. Fix what it names, then retry."),
  RESOURCE_NOT_FOUND: invalid('Use weft://runs, weft://runs/{run_id} or weft://runs/{run_id}/events.'),
  INTERNAL: internal('This is a bug in weft; retry, and report it if it persists.'),
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

export function errorRow(code: McpErrorCode): ErrorRow {
  return TABLE[code];
}

/** `CODE: message Next step.` with secrets redacted. */
export function describeFailure(failed: McpFailure): string {
  return redactSecrets(`${failed.code}: ${failed.message} ${TABLE[failed.code].next}`);
}

/**
 * The `isError` result for a failed tool call. No `structuredContent`: clients built on
 * the v1 SDK validate it against the output schema even on errors. The code travels in
 * the text and in `_meta['weft/error']`.
 *
 * @example toolErrorResult(toFailure(new WeftError('RUN_NOT_FOUND', 'No run …'))).content[0].text // → 'RUN_NOT_FOUND: No run … Find runs with …'
 */
export function toolErrorResult(failed: McpFailure): CallToolResult {
  const row = TABLE[failed.code];
  return {
    isError: true,
    content: [{ type: 'text', text: describeFailure(failed) }],
    _meta: { 'weft/error': { code: failed.code, retryable: row.retryable, data: JSON.parse(redactSecrets(JSON.stringify(failed.data))) as Record<string, unknown> } },
  };
}

/** The JSON-RPC error for a failure where MCP wants a protocol error (resources/read, prompts/get). */
export function toProtocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const failed = toFailure(error);
  return new ProtocolError(TABLE[failed.code].jsonRpc, describeFailure(failed), { code: failed.code });
}
