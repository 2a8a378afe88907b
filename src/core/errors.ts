/**
 * The one error type weft throws across layers. Every code has one line in the catalogue
 * (`error-catalogue.ts`: fault class, retryable, data shape, hint), which the surfaces map
 * to exit codes, HTTP statuses and JSON-RPC errors; nothing branches on `message`.
 */
import type { WeftErrorDataOf } from './error-catalogue.js';

/** Every stable error code; the catalogue (`error-catalogue.ts`) gives each its fault class, retryability, data and hint. */
export type WeftErrorCode =
  | 'USAGE'
  | 'SETTINGS_INVALID'
  | 'CONFIG_INVALID'
  | 'TOOL_NOT_FOUND'
  | 'TOOL_INVALID_ARGS'
  | 'TOOL_DENIED'
  | 'TOOL_TIMEOUT'
  | 'TOOL_CANCELLED'
  | 'TOOL_FAILED'
  | 'PATH_OUTSIDE_WORKSPACE'
  | 'FILE_NOT_READ'
  | 'FILE_NOT_FOUND'
  | 'EDIT_NO_MATCH'
  | 'EDIT_AMBIGUOUS'
  | 'FETCH_FAILED'
  | 'MCP_SERVER_NOT_FOUND'
  | 'MCP_SERVER_EXISTS'
  | 'MCP_SERVER_UNAVAILABLE'
  | 'MCP_SERVER_FAILED'
  | 'INVALID_ID'
  | 'WORKFLOW_INVALID'
  | 'RUN_NOT_FOUND'
  | 'RUN_INVALID_TRANSITION'
  | 'RUN_NOT_TERMINAL'
  | 'RUN_PARENT_CYCLE'
  | 'RUN_INVALID_PARAMS'
  | 'RUN_LEASE_LOST'
  | 'QUESTION_NOT_FOUND'
  | 'QUESTION_NOT_PENDING'
  | 'STORE_FAILED'
  | 'MODEL_CONFIG_INVALID'
  | 'MODEL_KEY_MISSING'
  | 'MODEL_AUTH_FAILED'
  | 'MODEL_REQUEST_FAILED'
  | 'STAGE_NOT_FOUND'
  | 'NO_ACTIVE_AGENT_STAGE'
  | 'PAIR_SESSION_OPEN'
  | 'NO_PAIR_SESSION'
  | 'WORKSPACE_INVALID'
  | 'WORKSPACE_NOT_A_REPOSITORY'
  | 'WORKSPACE_BASE_NOT_FOUND'
  | 'WORKSPACE_BRANCH_EXISTS'
  | 'WORKSPACE_BRANCH_NOT_FOUND'
  | 'WORKSPACE_NOT_ON_HOST'
  | 'WORKSPACE_HISTORY_REWRITTEN'
  | 'WORKSPACE_PUSH_REFUSED'
  | 'WORKSPACE_FETCH_FAILED'
  | 'WORKSPACE_MERGE_CONFLICT'
  | 'WORKSPACE_GIT_FAILED'
  | 'SCHEDULE_INVALID'
  | 'SCHEDULE_NOT_FOUND'
  | 'SCHEDULE_EXISTS'
  | 'TRIGGER_INVALID'
  | 'TRIGGER_NOT_FOUND'
  | 'TRIGGER_EXISTS'
  | 'TRIGGER_SECRET_MISSING'
  | 'SIGNATURE_MISSING'
  | 'SIGNATURE_INVALID'
  | 'DELIVERY_ID_MISSING'
  | 'INTERNAL';

/** What a `WeftError` carries besides its code and message: `data` of the shape the catalogue gives its code. */
export interface WeftErrorOptions<C extends WeftErrorCode = WeftErrorCode> {
  data?: WeftErrorDataOf<C>;
  cause?: unknown;
}

/**
 * Every error weft throws on purpose: branch on `code` (stable across releases), show `message` (says what was wrong and how to fix it), read details from `data`.
 * @example
 * try { await weft.getRun(id); } catch (error) { if (WeftError.is(error, 'RUN_NOT_FOUND')) return undefined; throw error; }
 */
export class WeftError<C extends WeftErrorCode = WeftErrorCode> extends Error {
  readonly code: C;
  /** Fields may be absent: an error built without `data` has none. */
  readonly data: Partial<WeftErrorDataOf<C>>;

  /** Builds an error with a stable `code` and a message for people. */
  constructor(code: C, message: string, options: WeftErrorOptions<C> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WeftError';
    this.code = code;
    this.data = options.data ?? {};
  }

  /** Whether `value` is a `WeftError` (with this `code`, when given); works across copies of the package in one process only if they share the class. */
  static is<C extends WeftErrorCode = WeftErrorCode>(value: unknown, code?: C): value is WeftError<C> {
    return value instanceof WeftError && (code === undefined || value.code === code);
  }
}

/** The message of anything thrown, for places that must report but not rethrow. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
