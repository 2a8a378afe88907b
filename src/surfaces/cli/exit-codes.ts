/**
 * The one table from error codes to process exit codes: 2 for a usage or config mistake,
 * 1 for a failure of the thing asked.
 */
import type { WeftErrorCode } from '../../core/errors.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** 128 + SIGINT, as a shell reports a command stopped with Ctrl-C. */
export const EXIT_INTERRUPTED = 130;

export function exitCodeFor(code: WeftErrorCode): number {
  switch (code) {
    case 'USAGE':
    case 'SETTINGS_INVALID':
    case 'CONFIG_INVALID':
    case 'TOOL_NOT_FOUND':
    case 'TOOL_INVALID_ARGS':
    case 'MCP_SERVER_NOT_FOUND':
    case 'MCP_SERVER_EXISTS':
    case 'INVALID_ID':
    case 'WORKFLOW_INVALID':
    case 'FILE_NOT_FOUND':
    case 'RUN_NOT_FOUND':
    case 'STAGE_NOT_FOUND':
    case 'RUN_INVALID_PARAMS':
    case 'QUESTION_NOT_FOUND':
    case 'RUN_PARENT_CYCLE':
    case 'MODEL_CONFIG_INVALID':
    case 'MODEL_KEY_MISSING':
    case 'WORKSPACE_INVALID':
    case 'WORKSPACE_NOT_A_REPOSITORY':
    case 'WORKSPACE_BASE_NOT_FOUND':
    case 'WORKSPACE_BRANCH_NOT_FOUND':
      return EXIT_USAGE;
    default:
      return EXIT_FAILURE;
  }
}
