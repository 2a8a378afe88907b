/**
 * The one catalogue of weft's error codes: per code its fault class, whether the same call
 * may succeed later unchanged, the shape of its `data` (checked by tsc wherever a
 * `WeftError` is built, as `EventPayloads` is for events) and its hint. The surfaces map
 * the fault class to an HTTP status, a JSON-RPC error and an exit code, each with a short
 * named list of exceptions (`surfaces/*`), so they cannot disagree about a code again.
 *
 * Adding a code: one line here (`CODE: entry<{ …data }>('class', retryable, 'hint')`)
 * beside the code in `WeftErrorCode`; the type check fails until both are there.
 */
import type { WeftErrorCode } from './errors.js';

/**
 * Whose fault an error is: `caller` (the request, its arguments or the files it names are
 * wrong), `state` (right request, wrong moment: the run or question is not in a state that
 * allows it), `missing` (what it names does not exist), `upstream` (a server, model,
 * network or database weft depends on failed), `internal` (a bug in weft).
 */
export type FaultClass = 'caller' | 'state' | 'missing' | 'upstream' | 'internal';

/** One code's line in the catalogue. */
export interface ErrorEntry<Data extends object = object> {
  fault: FaultClass;
  /** True when the same call may succeed later without changing it. */
  retryable: boolean;
  /** What to do next; a surface may say it in its own terms (its routes, its tools). */
  hint: string;
  /** Never set: carries the type of the code's `data`. */
  readonly data?: Data;
}

type NoData = Record<never, never>;

/** What the git layer of run workspaces says about a failure (`runs/workspace/`). */
type WorkspaceErrorData = Partial<{
  runId: string;
  stageId: string;
  attempt: number;
  branch: string;
  from: string;
  to: string;
  into: string;
  worktree: string;
  files: string[];
  expected: string;
  found: string;
  rescuedRef: string;
  rescuedCommit: string;
  remote: string;
  base: string;
  repo: string;
  path: string;
  mode: string;
  field: string;
  stage: string;
  prefix: string;
  dir: string;
  sourceRepo: string;
  local: string;
  cwd: string;
  head: string;
  commit: string;
  gitMessage: string;
  url: string;
}>;

function entry<Data extends object = NoData>(fault: FaultClass, retryable: boolean, hint: string): ErrorEntry<Data> {
  return { fault, retryable, hint };
}

/**
 * Every code's fault class, retryability, data shape and hint. Exhaustive: a code in
 * `WeftErrorCode` without a line here fails the type check.
 */
export const ERROR_CATALOGUE = {
  USAGE: entry<Partial<{ server: string } & { field: string }>>(
    'caller',
    false,
    'Check the arguments against the command or tool description.',
  ),
  SETTINGS_INVALID: entry<{ file: string; line?: number; column?: number; problems?: string[] }>(
    'caller',
    false,
    "Fix the settings file named in the message (the server's storage dir).",
  ),
  CONFIG_INVALID: entry<
    Partial<
      { problems: unknown[] } & { server: string } & { file: string; field: string; storageDir: string; missing: string[]; install: string }
    >
  >('caller', false, 'Fix the config file named in the message.'),
  TOOL_NOT_FOUND: entry<{ tool?: string }>('missing', false, 'Check the tool name in the workflow file.'),
  TOOL_INVALID_ARGS: entry<{ pattern?: string }>('caller', false, 'Fix the tool arguments in the workflow file.'),
  TOOL_DENIED: entry('caller', false, 'An approval rule refused the call; change the rule or the workflow.'),
  TOOL_TIMEOUT: entry<Partial<{ server: string }>>('upstream', true, 'Try again, or raise the timeout.'),
  TOOL_CANCELLED: entry<Partial<{ server: string }>>('state', true, 'The call was cancelled; call again if still needed.'),
  TOOL_FAILED: entry<Partial<{ server: string }>>('upstream', true, 'See the message for the cause.'),
  PATH_OUTSIDE_WORKSPACE: entry<{ path?: string }>('caller', false, "Use a path inside the run's directory (cwd)."),
  FILE_NOT_READ: entry<{ file?: string; path?: string }>('caller', false, 'Check the file exists and is readable.'),
  FILE_NOT_FOUND: entry<{ file?: string; path?: string }>('missing', false, 'Check the path; relative paths resolve from the workspace.'),
  EDIT_NO_MATCH: entry('caller', false, 'Read the file again and retry with text that matches.'),
  EDIT_AMBIGUOUS: entry('caller', false, 'Give more context so the text matches once.'),
  FETCH_FAILED: entry<{ url?: string; status?: number; host?: string; address?: string; addressClass?: string }>(
    'upstream',
    true,
    'Check the URL and the network, then retry.',
  ),
  MCP_SERVER_NOT_FOUND: entry<{ server: string }>('missing', false, "Check the server name ('weft mcp list')."),
  MCP_SERVER_EXISTS: entry<{ server: string }>('state', false, 'Pick another name, or remove the server with that name first.'),
  MCP_SERVER_UNAVAILABLE: entry<{ server: string } & { reason?: string; scope?: string }>(
    'upstream',
    true,
    "Check the server with 'weft mcp test <name>'.",
  ),
  MCP_SERVER_FAILED: entry<Partial<{ server: string } & { servers: string[]; status: unknown }>>(
    'upstream',
    true,
    "Check the server with 'weft mcp test <name>'.",
  ),
  INVALID_ID: entry<{ value: string; candidates?: string[] }>('caller', false, 'Use an id exactly as weft printed it.'),
  WORKFLOW_INVALID: entry<{ file?: string; problems?: unknown[] }>(
    'caller',
    false,
    "Fix the workflow file; 'weft workflow validate <file>' lists every problem.",
  ),
  RUN_NOT_FOUND: entry<{ runId: string }>('missing', false, "List runs with 'weft ps --all'."),
  RUN_INVALID_TRANSITION: entry<{ runId?: string; status?: string; from?: string; expected?: string; to?: string; allowed?: string[] }>(
    'state',
    false,
    "Read the run's current status; the message says which states allow this.",
  ),
  RUN_NOT_TERMINAL: entry<{ runId?: string; status?: string; runIds?: string[] }>(
    'state',
    false,
    'Wait for the run to end or cancel it first.',
  ),
  RUN_PARENT_CYCLE: entry<{ runId: string } & { parentId: string }>(
    'caller',
    false,
    'Pick a parent that is not the run itself or one of its descendants.',
  ),
  RUN_INVALID_PARAMS: entry<
    Partial<
      { runId: string } & {
        awaited: string[];
        server: string;
        questionId: string;
        kind: string;
        path: string;
        cwd: string;
        problems: string[];
        stage: string;
      }
    >
  >('caller', false, 'Fix the parameters named in the message.'),
  RUN_LEASE_LOST: entry<{ runId: string } & { holder?: string | null; status?: string; leaseOwner?: string }>(
    'state',
    false,
    'Another runner took the run over; read the run again.',
  ),
  QUESTION_NOT_FOUND: entry<{ runId: string } & { questionId: string }>('missing', false, "List the run's pending questions."),
  QUESTION_NOT_PENDING: entry<{ runId: string } & { questionId: string; status?: string }>(
    'state',
    false,
    "The question is already answered; list the run's pending questions.",
  ),
  STORE_FAILED: entry<{ file?: string; database?: string; reason?: string }>(
    'upstream',
    true,
    "Retry; if it keeps failing, check the storage dir's disk space and permissions.",
  ),
  MODEL_CONFIG_INVALID: entry<{ provider?: string; model?: string; status?: number | null; errno?: string }>(
    'caller',
    false,
    'Fix the [llm] settings or the model name named in the message.',
  ),
  MODEL_KEY_MISSING: entry<{ provider: string; variable: string | null }>(
    'caller',
    false,
    'Set the API key variable named in the message for the runner, then retry the run.',
  ),
  MODEL_AUTH_FAILED: entry<{ provider?: string; model?: string; status?: number | null; errno?: string }>(
    'caller',
    false,
    'Check the API key of the provider named in the message, then retry the run.',
  ),
  MODEL_REQUEST_FAILED: entry<{ provider?: string; model?: string; status?: number | null; errno?: string }>(
    'upstream',
    true,
    'The model provider failed; retry the run later.',
  ),
  STAGE_NOT_FOUND: entry<{ runId: string } & { stageId: string }>('missing', false, 'Use a stage id of this run, e.g. implement@1.'),
  NO_ACTIVE_AGENT_STAGE: entry<{ runId: string } & { stageId?: string; status?: string; cli?: string }>(
    'state',
    false,
    'Pair with a run while one of its agent stages is running.',
  ),
  PAIR_SESSION_OPEN: entry<{ runId: string } & { sessionId?: string; stageId?: string }>(
    'state',
    false,
    'Use the open session, or end it before starting another.',
  ),
  NO_PAIR_SESSION: entry<{ runId: string } & { sessionId?: string }>('state', false, 'Start a pair session first.'),
  WORKSPACE_INVALID: entry<WorkspaceErrorData>('caller', false, 'Fix the workspace field named in the message.'),
  WORKSPACE_NOT_A_REPOSITORY: entry<WorkspaceErrorData>(
    'caller',
    false,
    'Create the run inside a git repository, or use workspace mode "in-place" or "clone".',
  ),
  WORKSPACE_BASE_NOT_FOUND: entry<WorkspaceErrorData>(
    'caller',
    false,
    "Use a base that exists ('git branch -a', 'git tag' and 'git log' list them).",
  ),
  WORKSPACE_BRANCH_EXISTS: entry<WorkspaceErrorData>(
    'state',
    false,
    'Delete or rename the existing weft/runs/<run-id> branch, then create the run again.',
  ),
  WORKSPACE_BRANCH_NOT_FOUND: entry<WorkspaceErrorData>('missing', false, 'Use a branch that exists.'),
  WORKSPACE_NOT_ON_HOST: entry<WorkspaceErrorData>(
    'state',
    false,
    "Ask the host that holds the run's repository, or give the run a remote.",
  ),
  WORKSPACE_HISTORY_REWRITTEN: entry<WorkspaceErrorData>(
    'state',
    false,
    "The stage moved the run's branch away from its last checkpoint; its files are kept under the ref named in the message.",
  ),
  WORKSPACE_PUSH_REFUSED: entry<WorkspaceErrorData>(
    'upstream',
    true,
    "The remote refused the run's checkpoint; fix the remote, then resume the run.",
  ),
  WORKSPACE_FETCH_FAILED: entry<WorkspaceErrorData>('upstream', true, "Check the run's remote is reachable, then resume the run."),
  WORKSPACE_MERGE_CONFLICT: entry<WorkspaceErrorData>(
    'state',
    false,
    'Resolve the listed files by merging the run branch yourself, or rewind the run and try again.',
  ),
  WORKSPACE_GIT_FAILED: entry<WorkspaceErrorData>('upstream', false, 'git failed; its message is quoted. Fix what it names, then retry.'),
  SCHEDULE_INVALID: entry<Partial<{ schedule: string; field: string; value: string }>>(
    'caller',
    false,
    'Fix the schedule field named in the message (docs/schedules.md).',
  ),
  SCHEDULE_NOT_FOUND: entry<{ schedule: string }>('missing', false, "List the schedules ('weft schedule list')."),
  SCHEDULE_EXISTS: entry<{ schedule: string }>('state', false, 'Pick another name, or remove the schedule with that name first.'),
  TRIGGER_INVALID: entry<Partial<{ trigger: string; field: string; value: string }>>(
    'caller',
    false,
    'Fix the trigger field named in the message (docs/schedules.md).',
  ),
  TRIGGER_NOT_FOUND: entry<{ trigger: string }>('missing', false, "List the triggers ('weft trigger list')."),
  TRIGGER_EXISTS: entry<{ trigger: string }>('state', false, 'Pick another name, or remove the trigger with that name first.'),
  // A webhook delivery's refusals (docs/schedules.md); the sender reads them, not the operator.
  TRIGGER_SECRET_MISSING: entry<{ trigger: string; variable: string }>(
    'upstream',
    true,
    "The server cannot check signatures yet: set the trigger's secret variable in weft serve's environment and restart it; a retried delivery then succeeds.",
  ),
  SIGNATURE_MISSING: entry<{ trigger: string }>(
    'caller',
    false,
    "Sign the delivery: X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the trigger's secret> (docs/schedules.md).",
  ),
  SIGNATURE_INVALID: entry<{ trigger: string }>(
    'caller',
    false,
    "Sign with the trigger's secret and send the body byte for byte as signed (docs/schedules.md).",
  ),
  DELIVERY_ID_MISSING: entry<{ trigger: string }>(
    'caller',
    false,
    'Send X-GitHub-Delivery or X-Weft-Delivery (1–200 visible ASCII characters) so a retried delivery makes no second run.',
  ),
  INTERNAL: entry('internal', true, 'This is a bug in weft; retry, and report it if it persists.'),
} satisfies Record<WeftErrorCode, ErrorEntry>;

/** The `data` of each code's errors. */
export type WeftErrorData = { [C in WeftErrorCode]: (typeof ERROR_CATALOGUE)[C] extends ErrorEntry<infer Data> ? Data : never };

/** The `data` of an error whose code is `C`; a plain record while the code is not known. */
export type WeftErrorDataOf<C extends WeftErrorCode> = WeftErrorCode extends C ? Record<string, unknown> : WeftErrorData[C];

export function catalogueEntry(code: WeftErrorCode): ErrorEntry {
  return ERROR_CATALOGUE[code];
}

/** Every code, for the surfaces' agreement test and their tables. */
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as WeftErrorCode[];
