/**
 * The HTTP surface's one error table: every weft error code (plus the ones this surface
 * adds) mapped to an HTTP status and a hint saying what to do next. Every error leaves
 * the server as `{ "error": { "code", "message", "hint" } }`, secrets redacted.
 */
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

const row = (status: HttpStatus, hint: string): ErrorRow => ({ status, hint });

/** Exhaustive: adding a code to `WeftErrorCode` fails the type check until it is mapped here. */
const TABLE: Record<HttpErrorCode, ErrorRow> = {
  INVALID_JSON: row(400, 'Send a JSON object with Content-Type: application/json.'),
  INVALID_ARGUMENTS: row(400, 'Fix the named fields; GET /api/v1/openapi.json lists every field of every route.'),
  UNAUTHORIZED: row(401, 'Send "Authorization: Bearer <token>" or log in with POST /api/v1/login; the token is printed by weft serve and kept in the storage dir.'),
  FORBIDDEN_HOST: row(403, 'Use the address weft serve listens on (127.0.0.1 or localhost), or start it with --host for another name.'),
  NOT_FOUND: row(404, 'GET /api/v1/openapi.json lists every route.'),
  TOO_LARGE: row(413, 'Send a smaller body (at most 1 MiB).'),
  USAGE: row(400, 'Check the request against GET /api/v1/openapi.json.'),
  SETTINGS_INVALID: row(422, "Fix the settings file named in the message (the server's storage dir)."),
  CONFIG_INVALID: row(422, 'Fix the config named in the message.'),
  TOOL_NOT_FOUND: row(422, 'Check the tool name in the workflow file.'),
  TOOL_INVALID_ARGS: row(400, 'Fix the tool arguments in the workflow file.'),
  TOOL_DENIED: row(403, 'An approval rule refused the call; change the rule or the workflow.'),
  TOOL_TIMEOUT: row(500, 'Try again, or raise the timeout.'),
  TOOL_CANCELLED: row(500, 'The call was cancelled; call again if still needed.'),
  TOOL_FAILED: row(500, 'See the message for the cause.'),
  PATH_OUTSIDE_WORKSPACE: row(400, "Use a path inside the server's workspace."),
  FILE_NOT_READ: row(422, 'Check the file exists and is readable.'),
  FILE_NOT_FOUND: row(404, "Check the path; relative paths resolve from the server's workspace."),
  EDIT_NO_MATCH: row(422, 'Read the file again and retry with text that matches.'),
  EDIT_AMBIGUOUS: row(422, 'Give more context so the text matches once.'),
  FETCH_FAILED: row(502, 'Check the URL and the network, then retry.'),
  MCP_SERVER_NOT_FOUND: row(404, 'GET /api/v1/mcp/servers lists the servers.'),
  MCP_SERVER_EXISTS: row(409, 'Pick another name, or DELETE /api/v1/mcp/servers/{name} first.'),
  MCP_SERVER_UNAVAILABLE: row(502, 'Check the server with GET /api/v1/mcp/servers or weft mcp test <name>.'),
  MCP_SERVER_FAILED: row(502, 'Check the server with GET /api/v1/mcp/servers or weft mcp test <name>.'),
  INVALID_ID: row(400, 'Use an id exactly as the API returned it (a 26-character ULID).'),
  WORKFLOW_INVALID: row(422, 'Fix the workflow; POST /api/v1/workflows/validate lists every problem.'),
  RUN_NOT_FOUND: row(404, 'GET /api/v1/runs lists the runs (archived ones with archived=any).'),
  RUN_INVALID_TRANSITION: row(409, "Read the run's status with GET /api/v1/runs/{id}; the message says which states allow this."),
  RUN_LEASE_LOST: row(409, 'Another runner took the run over; read the run again.'),
  RUN_NOT_TERMINAL: row(409, 'Wait for the run to end or cancel it first.'),
  RUN_PARENT_CYCLE: row(409, 'Pick a parent that is not the run itself or one of its descendants.'),
  RUN_INVALID_PARAMS: row(400, 'Fix the fields named in the message.'),
  QUESTION_NOT_FOUND: row(404, 'GET /api/v1/runs/{id}/questions lists the pending questions.'),
  QUESTION_NOT_PENDING: row(409, 'The question is already answered; GET /api/v1/runs/{id}/questions lists the pending ones.'),
  STORE_FAILED: row(503, "Retry; if it keeps failing, check the storage dir's disk space and permissions."),
  MODEL_CONFIG_INVALID: row(422, 'Fix the [llm] settings or the model name named in the message.'),
  MODEL_KEY_MISSING: row(422, 'Set the API key variable named in the message for the runner, then retry the run.'),
  MODEL_AUTH_FAILED: row(422, 'Check the API key of the provider named in the message, then retry the run.'),
  MODEL_REQUEST_FAILED: row(502, 'The model provider failed; retry the run later.'),
  STAGE_NOT_FOUND: row(404, 'Use a stage id of this run, e.g. implement@1.'),
  NO_ACTIVE_AGENT_STAGE: row(409, 'Pair with a run while one of its agent stages is running.'),
  PAIR_SESSION_OPEN: row(409, 'Use the open session, or end it before starting another.'),
  NO_PAIR_SESSION: row(409, 'Start a pair session first.'),
  WORKSPACE_INVALID: row(400, 'Fix the workspace field named in the message.'),
  WORKSPACE_NOT_A_REPOSITORY: row(422, 'Create the run inside a git repository, or use workspace mode "in-place" or "clone".'),
  WORKSPACE_BASE_NOT_FOUND: row(422, 'Use a base that exists (git branch -a, git tag and git log list them).'),
  WORKSPACE_BRANCH_EXISTS: row(409, 'Delete or rename the existing weft/runs/<run-id> branch, then create the run again.'),
  WORKSPACE_BRANCH_NOT_FOUND: row(404, 'Use a branch that exists.'),
  WORKSPACE_NOT_ON_HOST: row(409, "Ask the host that holds the run's repository, or give the run a remote."),
  WORKSPACE_HISTORY_REWRITTEN: row(409, "The stage moved the run's branch away from its last checkpoint; its files are kept under the ref named in the message."),
  WORKSPACE_PUSH_REFUSED: row(502, "The remote refused the run's checkpoint; fix the remote, then resume the run."),
  WORKSPACE_FETCH_FAILED: row(502, "Check the run's remote is reachable, then resume the run."),
  WORKSPACE_MERGE_CONFLICT: row(409, 'Resolve the listed files by merging the run branch yourself, or rewind the run and try again.'),
  WORKSPACE_GIT_FAILED: row(500, "git failed; its message is quoted. Fix what it names, then retry."),
  INTERNAL: row(500, 'This is a bug in weft; retry, and report it if it persists.'),
};

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
  const { code, message } = error instanceof HttpFailure || WeftError.is(error) ? { code: error.code, message: error.message } : { code: 'INTERNAL' as const, message: `internal error: ${errorMessage(error)}` };
  const entry = TABLE[code];
  return { status: entry.status, body: { error: { code, message: redactSecrets(message), hint: entry.hint } } };
}

/** Every status a route can answer with an error, for the OpenAPI document. */
export const ERROR_STATUSES: readonly HttpStatus[] = [...new Set(Object.values(TABLE).map((entry) => entry.status))].sort();
