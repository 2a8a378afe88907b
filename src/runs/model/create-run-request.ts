/** The request that creates a run, the same from every surface. */
import type { RunBudgetPayload } from './event-types.js';

/**
 * What creating a run takes (`weft run`, `weft_run_create`, `Weft.createRun`): one shape for
 * every surface, read by the run service.
 */
import type { RunOrigin, WorkspaceSpec } from './run-workspace.js';
import type { SandboxSpec } from '../../core/sandbox/sandbox-rules.js';

/** What creating a run takes, on every surface. */
export interface CreateRunRequest {
  /** The run's id, chosen by the caller (a schedule's fire or a webhook delivery records it before the run exists); default a new ULID. */
  id?: string;
  /** A workflow `.toml` file or workflow module (`.mjs`, `.js`, `.ts`), relative to `cwd`. */
  workflow: string;
  /**
   * The workflow file must lie inside `cwd` by real path. Surfaces acting for a remote
   * client set it (the MCP server, the HTTP API); a person at the CLI may name any workflow they can read.
   */
  workflowInsideCwd?: boolean;
  goal?: string;
  /** A file holding the goal; relative to `cwd`, and never outside it. */
  goalFile?: string;
  cwd: string;
  inputs?: Record<string, unknown>;
  labels?: Record<string, string>;
  parentId?: string;
  dryRun?: boolean;
  autoApprove?: boolean;
  model?: string;
  /** Limits for this run; each field given wins over the workflow's `[run.budget]`. */
  budget?: RunBudgetPayload;
  /** Claim order, higher first (-100 … 100, default 0); see `PRIORITY_STEP_MS` for the starvation bound. */
  priority?: number;
  /** Where the run works; over the workflow's `[run.workspace]` field by field. Default: a worktree inside a git repository, else in place. */
  workspace?: WorkspaceSpec;
  /** The run's own `[run.sandbox]`, over the settings' and the workflow's: `mode` and `network` replace, path lists add up. */
  sandbox?: SandboxSpec;
  /** Set by `weft fork`: the run and stage this run continues from. */
  origin?: RunOrigin;
  /** Default true: the run goes to `pending` (or `queued` with auto-approve); false leaves it `submitted`. */
  start?: boolean;
}
