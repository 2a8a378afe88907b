/**
 * The argument schemas of run requests, shared by the MCP tools and the HTTP API so a run
 * id, a label filter, a new run or an answer is described and checked the same way on
 * both surfaces (one definition each), plus the mapping of a new run's fields to the
 * run service's request.
 */
import { resolve } from 'node:path';
import * as z from 'zod';
import type { CreateRunRequest } from '../services/run-service.js';
import { parseDuration } from '../../core/duration.js';
import type { RunBudgetPayload } from '../../runs/model/event-types.js';
import { MAX_PRIORITY, MIN_PRIORITY } from '../../runs/model/run-record.js';
import type { WorkspaceSpec } from '../../runs/model/run-workspace.js';
import type { SandboxSpec } from '../../core/sandbox/sandbox-rules.js';

/** A run id, a unique prefix of one or `@last`: RunService resolves it (INVALID_ID, RUN_NOT_FOUND otherwise). */
export function runIdArg(description: string): z.ZodString {
  return z
    .string()
    .min(1)
    .max(64)
    .describe(`${description} (a 26-character ULID run id, any unique prefix of one, or "@last" for the newest run)`);
}

export const labelsArg = z.record(z.string(), z.string()).describe('Labels as string key/value pairs, e.g. {"team": "docs"}');

export const budgetArg = z
  .object({
    max_cost_usd: z.number().min(0).optional().describe('US dollars (reported + estimated) the run and its children may spend'),
    max_tokens: z.number().int().min(1).optional().describe('Tokens (input + output) the run and its children may use'),
    max_duration: z
      .union([
        z.string().refine((value) => parseDuration(value) !== undefined, { message: 'must be a duration such as "30m" or "2h"' }),
        z.number().min(0),
      ])
      .optional()
      .describe('Time since the run started: "30m", "2h", or milliseconds'),
    on_exceeded: z.enum(['pause', 'fail']).optional().describe('pause (default): ask to raise or cancel; fail: the stage and run fail'),
  })
  .strict()
  .describe("The run's budget; each field given wins over the workflow's [run.budget]");

/** The run service's budget for `budget`. */
export function budgetRequest(budget: z.output<typeof budgetArg>): RunBudgetPayload {
  const duration = budget.max_duration === undefined ? undefined : parseDuration(budget.max_duration);
  return {
    ...(budget.max_cost_usd === undefined ? {} : { maxCostUsd: budget.max_cost_usd }),
    ...(budget.max_tokens === undefined ? {} : { maxTokens: budget.max_tokens }),
    ...(duration === undefined ? {} : { maxDurationMs: duration }),
    ...(budget.on_exceeded === undefined ? {} : { onExceeded: budget.on_exceeded }),
  };
}

export const reasonArg = z.string().max(2000).describe('Why (recorded on the run)');
export const messageTextArg = z
  .string()
  .min(1)
  .max(64 * 1024)
  .describe("Text the run's agents see on their next turn");
export const answerArg = z
  .unknown()
  .describe(
    'true/false for yes_no and confirmation, one option for choice, an array of options for multi_select, text for freeform; text like "yes" or "a,b" is converted',
  );

export const workflowArg = z.string().min(1).describe('Workflow file (TOML), relative to cwd and inside it');

/** Where a new run works: a mode, or the fields of `[run.workspace]` (snake_case). */
export const workspaceArg = z
  .union([
    z.enum(['worktree', 'in-place', 'clone']),
    z
      .object({
        mode: z.enum(['worktree', 'in-place', 'clone']).optional(),
        base: z
          .string()
          .min(1)
          .max(256)
          .optional()
          .describe('Commit, branch or tag the run branch starts from (default: the checked-out commit)'),
        include_uncommitted: z.boolean().optional().describe("Carry the tree's uncommitted changes in as the run's first checkpoint"),
        remote: z.string().min(1).max(2048).optional().describe('Git remote (name or URL) each checkpoint is pushed to'),
        repo: z.string().min(1).max(2048).optional().describe('mode "clone": the repository to clone'),
        keep_branch: z.boolean().optional().describe('Keep the run branch when the run is removed'),
      })
      .strict(),
  ])
  .describe(
    'Where the run works: "worktree" (its own git worktree on branch weft/runs/<id>; the default inside a git repository), "in-place" (the cwd itself; the only mode outside git) or "clone", or an object with mode, base, include_uncommitted, remote, repo, keep_branch',
  );

/** The run service's workspace request for `value`. */
export function workspaceRequest(value: z.output<typeof workspaceArg>): WorkspaceSpec {
  if (typeof value === 'string') return { mode: value };
  return {
    ...(value.mode === undefined ? {} : { mode: value.mode }),
    ...(value.base === undefined ? {} : { base: value.base }),
    ...(value.include_uncommitted === undefined ? {} : { includeUncommitted: value.include_uncommitted }),
    ...(value.remote === undefined ? {} : { remote: value.remote }),
    ...(value.repo === undefined ? {} : { repo: value.repo }),
    ...(value.keep_branch === undefined ? {} : { keepBranch: value.keep_branch }),
  };
}

/** The run's own sandbox: a mode, or the fields of `[run.sandbox]` (snake_case); checked further by the run service (host names, paths). */
export const sandboxArg = z
  .union([
    z.enum(['os', 'none']),
    z
      .object({
        mode: z.enum(['os', 'none']).optional(),
        allow_write: z
          .array(z.string().min(1).max(4096))
          .max(100)
          .optional()
          .describe('Folders writable besides the workspace (relative to the workspace, or absolute, or ~/…)'),
        deny_read: z
          .array(z.string().min(1).max(4096))
          .max(100)
          .optional()
          .describe("Paths hidden besides the credential folders and weft's storage"),
        network: z
          .union([z.literal('none'), z.object({ allow: z.array(z.string().min(1).max(260)).max(100) }).strict()])
          .optional()
          .describe('"none", or { allow: ["registry.npmjs.org", "*.example.com", "localhost:8080"] } reached through weft\'s proxy'),
        max_processes: z.number().int().optional().describe('Processes and threads at once (at least 300)'),
      })
      .strict(),
  ])
  .describe(
    'The OS sandbox for everything the run executes, over [run.sandbox] of the settings and the workflow: "os", "none", or an object with mode, allow_write, deny_read, network, max_processes',
  );

/** The run service's sandbox for `value`. */
export function sandboxRequest(value: z.output<typeof sandboxArg>): SandboxSpec {
  if (typeof value === 'string') return { mode: value };
  return {
    ...(value.mode === undefined ? {} : { mode: value.mode }),
    ...(value.allow_write === undefined ? {} : { allowWrite: value.allow_write }),
    ...(value.deny_read === undefined ? {} : { denyRead: value.deny_read }),
    ...(value.network === undefined ? {} : { network: value.network }),
    ...(value.max_processes === undefined ? {} : { maxProcesses: value.max_processes }),
  };
}

/** The fields of one new run (`weft_run_create`'s run object, the body of `POST /api/v1/runs`). */
export const newRunFields = {
  workflow: workflowArg,
  goal: z
    .string()
    .max(64 * 1024)
    .optional()
    .describe("What the run is for (inline text). Exclusive with goal_file; default: the workflow's [run] goal"),
  goal_file: z.string().min(1).optional().describe('File holding the goal, relative to cwd and inside it. Exclusive with goal'),
  cwd: z
    .string()
    .min(1)
    .optional()
    .describe("Directory the run works in; relative paths resolve from the server's working directory (the default)"),
  inputs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Workflow inputs by name, e.g. {"version": "1.2.0"}; checked against the workflow\'s [inputs]'),
  labels: labelsArg.optional(),
  parent_id: runIdArg('Make the new run a child of this run').optional(),
  dry_run: z.boolean().optional().describe('Walk the graph and check every stage without side effects'),
  auto_approve: z.boolean().optional().describe('Skip approval: the run is queued at once instead of waiting in pending'),
  model: z.string().min(1).optional().describe('Model for agent stages, e.g. anthropic:claude-sonnet-4-5'),
  budget: budgetArg.optional(),
  priority: z
    .number()
    .int()
    .min(MIN_PRIORITY)
    .max(MAX_PRIORITY)
    .optional()
    .describe(
      `Claim order, higher first (${MIN_PRIORITY} to ${MAX_PRIORITY}, default 0): a queued run is claimed as if created a minute earlier per step, so no run waits behind later ones for more than a minute per step of difference`,
    ),
  start: z.boolean().default(true).describe('Start the run (default true). false leaves it submitted until it is started'),
  workspace: workspaceArg.optional(),
  sandbox: sandboxArg.optional(),
};

export const newRunSchema = z.object(newRunFields).strict();
export type NewRunArgs = z.output<typeof newRunSchema>;

/** The run service's request for `item`; relative paths resolve from `serverCwd`. */
export function createRunRequest(item: NewRunArgs, serverCwd: string): CreateRunRequest {
  return {
    workflow: item.workflow,
    workflowInsideCwd: true,
    cwd: resolve(serverCwd, item.cwd ?? '.'),
    ...(item.goal !== undefined ? { goal: item.goal } : {}),
    ...(item.goal_file !== undefined ? { goalFile: item.goal_file } : {}),
    ...(item.inputs !== undefined ? { inputs: item.inputs } : {}),
    ...(item.labels !== undefined ? { labels: item.labels } : {}),
    ...(item.parent_id !== undefined ? { parentId: item.parent_id } : {}),
    ...(item.dry_run !== undefined ? { dryRun: item.dry_run } : {}),
    ...(item.auto_approve !== undefined ? { autoApprove: item.auto_approve } : {}),
    ...(item.model !== undefined ? { model: item.model } : {}),
    ...(item.budget !== undefined ? { budget: budgetRequest(item.budget) } : {}),
    ...(item.priority !== undefined ? { priority: item.priority } : {}),
    ...(item.workspace !== undefined ? { workspace: workspaceRequest(item.workspace) } : {}),
    ...(item.sandbox !== undefined ? { sandbox: sandboxRequest(item.sandbox) } : {}),
    start: item.start,
  };
}
