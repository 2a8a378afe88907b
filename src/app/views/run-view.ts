/**
 * What runs, questions and events look like to MCP and HTTP clients: snake_case fields, ISO
 * timestamps, `null` for "none" — and the zod output schemas that describe exactly that,
 * shared by the tools and the resources.
 */
import { redactGitText } from '../../runs/workspace/git.js';
import * as z from 'zod';
import type { QuestionRecord } from '../../runs/model/question.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import type { PairSession, RunRecord } from '../../runs/model/run-record.js';
import { costOf, type TokenUsage } from '../../runs/model/token-usage.js';
import { isTerminal, RUN_STATUSES } from '../../runs/model/run-status.js';

const iso = (at: number | undefined): string | null => (at === undefined ? null : isoTime(at));

/** An epoch-ms time as MCP clients see it. */
export const isoTime = (at: number): string => new Date(at).toISOString();
const timestamp = z.string().describe('ISO 8601 time');
const optionalTimestamp = timestamp.nullable();
const failedOptionalStages = z
  .number()
  .int()
  .describe(
    'Stages that failed for good while the run went on past them (an edge taken on failure): a succeeded run with some is not a clean success',
  );

export const runStatusSchema = z
  .enum(RUN_STATUSES as [string, ...string[]])
  .describe('Run state; succeeded, failed and cancelled are terminal');

export const pairSessionSchema = z.object({
  session_id: z.string().describe('Pair session id (ULID)'),
  stage_id: z.string().describe('The agent stage, e.g. implement@1'),
  by: z.string().describe('Who started it'),
  started_at: timestamp,
  started_seq: z.number().int().describe('Seq of its pair-started event'),
});
export type PairSessionView = z.infer<typeof pairSessionSchema>;

export const tokenUsageSchema = z.object({
  input: z.number().int().describe('Input (prompt) tokens'),
  output: z.number().int().describe('Output tokens'),
  total: z.number().int(),
  cached_input: z.number().int().nullable().describe('Input tokens read from the prompt cache; null when the provider did not report it'),
  cache_write: z.number().int().nullable().describe('Input tokens written to the prompt cache; null when the provider did not report it'),
  reasoning: z.number().int().nullable().describe('Output tokens spent on reasoning; null when the provider did not report it'),
});
export type TokenUsageView = z.infer<typeof tokenUsageSchema>;

export function tokenUsageView(usage: TokenUsage): TokenUsageView {
  return {
    input: usage.inputTokens,
    output: usage.outputTokens,
    total: usage.totalTokens,
    cached_input: usage.cachedInputTokens ?? null,
    cache_write: usage.cacheWriteTokens ?? null,
    reasoning: usage.reasoningTokens ?? null,
  };
}

export const costSchema = z
  .object({
    reported_usd: z
      .number()
      .nullable()
      .describe('US dollars the provider or CLI backend reported (Claude Code does); null when none reported'),
    estimated_usd: z
      .number()
      .nullable()
      .describe(
        'US dollars estimated from the price table ([llm.prices], else the bundled one) for turns nobody reported a cost for; null when none',
      ),
    total_usd: z.number().describe('reported_usd + estimated_usd: check both to see how much is an estimate'),
    unpriced_turns: z.number().int().describe('Model turns with no known price, in neither figure'),
  })
  .describe('What the model turns cost; reported and estimated figures are kept apart');
export type CostView = z.infer<typeof costSchema>;

/** The cost of `usage`, or null when no turn ran. */
export function costView(usage: TokenUsage | undefined): CostView | null {
  if (usage === undefined) return null;
  const cost = costOf(usage);
  if (!cost.priced && cost.unpricedTurns === 0) return null;
  return {
    reported_usd: usage.reportedCostUsd ?? null,
    estimated_usd: usage.estimatedCostUsd ?? null,
    total_usd: cost.reportedUsd + cost.estimatedUsd,
    unpriced_turns: cost.unpricedTurns,
  };
}

export const runSummarySchema = z.object({
  id: z.string().describe('Run id (ULID)'),
  workflow: z.string().describe('Workflow name'),
  workflow_path: z.string().describe('Absolute path of the workflow file'),
  goal: z.string().describe('What the run is for'),
  status: runStatusSchema,
  terminal: z.boolean().describe('True when the run has ended (succeeded, failed or cancelled)'),
  reason: z.string().nullable().describe('Reason given with the latest status change (denial, failure, cancellation)'),
  archived: z.boolean(),
  attempt: z.number().int().describe('1 for the first attempt, +1 per retry'),
  parent_id: z.string().nullable().describe('Parent run id, if this is a child run'),
  labels: z.record(z.string(), z.string()),
  inputs: z.record(z.string(), z.unknown()),
  auto_approve: z.boolean(),
  dry_run: z.boolean(),
  model: z.string().nullable(),
  cwd: z.string().describe('Directory the run was created in'),
  workspace: z
    .object({
      mode: z.enum(['worktree', 'clone']),
      branch: z.string().describe('The run branch, weft/runs/<id>: one commit per stage that changed files'),
      base_commit: z.string().describe('The commit the run branch started from'),
      subdir: z.string().describe("Where in the repository the stages work ('' for its top)"),
      source_repo: z.string().nullable().describe('worktree: the repository on the creating host'),
      repo_url: z.string().nullable().describe('clone: what each runner clones'),
      source_branch: z.string().nullable().describe('The branch the run was created from: the default target of a merge'),
      remote: z.string().nullable().describe('Where checkpoints are pushed, for runners on other hosts'),
      keep_branch: z.boolean(),
    })
    .nullable()
    .describe('Where the stages work: the run branch and its base; null when the run works in place (in cwd)'),
  origin: z
    .object({ run_id: z.string(), stage_id: z.string(), commit: z.string().nullable() })
    .nullable()
    .describe('The run and stage this run was forked from; null when it was not forked'),
  concurrency: z
    .array(z.object({ key: z.string(), limit: z.number().int() }))
    .describe("The run's concurrency keys ([run.concurrency], rendered at creation): it is claimed only while each key has room"),
  current_stage_id: z.string().nullable().describe('Stage that started most recently, e.g. implement@1'),
  created_at: timestamp,
  updated_at: timestamp,
  started_at: optionalTimestamp,
  finished_at: optionalTimestamp,
  counts: z.object({
    events: z.number().int(),
    stages: z.number().int(),
    tool_calls: z.number().int(),
    questions_pending: z.number().int(),
    failed_optional_stages: failedOptionalStages,
  }),
  pending_question_ids: z.array(z.string()).describe('Questions waiting for an answer (answer with weft_run_interact action "answer")'),
  pair_session: pairSessionSchema.nullable().describe('The open pair session (weft_run_pair), null when none is open'),
  tokens: tokenUsageSchema.nullable().describe('Model tokens of every turn so far; null before the first'),
  cost: costSchema.nullable().describe('What those turns cost; null before the first turn'),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

export const runPreviewSchema = z.object({
  id: z.string(),
  workflow: z.string(),
  status: runStatusSchema,
  terminal: z.boolean(),
  reason: z.string().nullable(),
  archived: z.boolean(),
  parent_id: z.string().nullable(),
  labels: z.record(z.string(), z.string()),
  goal_preview: z.string().describe('First line of the goal, at most 120 characters'),
  current_stage_id: z.string().nullable(),
  questions_pending: z.number().int(),
  failed_optional_stages: failedOptionalStages,
  created_at: timestamp,
  updated_at: timestamp,
  started_at: optionalTimestamp.describe('When it first ran; from created to started it was waiting (pending, queued)'),
  finished_at: optionalTimestamp,
});
export type RunPreview = z.infer<typeof runPreviewSchema>;

export const questionSchema = z.object({
  id: z.string().describe('Question id (ULID)'),
  run_id: z.string(),
  stage_id: z.string(),
  kind: z.enum(['yes_no', 'choice', 'multi_select', 'freeform', 'confirmation']),
  prompt: z.string(),
  options: z.array(z.string()).nullable(),
  status: z.enum(['pending', 'answered', 'withdrawn']).describe('withdrawn: its stage attempt or run ended before an answer came'),
  answer: z.unknown().describe('The answer, once given'),
  answer_hint: z.string().describe('What the answer must be'),
  asked_at: timestamp,
  answered_at: optionalTimestamp,
});
export type QuestionView = z.infer<typeof questionSchema>;

export const eventSchema = z.object({
  seq: z.number().int().describe("1-based position in the run's log"),
  at: timestamp,
  type: z.string().describe('noun-verb event type, e.g. stage-started'),
  stage_id: z.string().nullable(),
  payload: z.unknown().describe('Event data; long strings may be truncated (see truncated)'),
  truncated: z.boolean().describe('True when strings in the payload were shortened to max_content_length'),
});
export type EventView = z.infer<typeof eventSchema>;

export function runSummary(run: RunRecord): RunSummary {
  return {
    id: run.id,
    workflow: run.workflow,
    workflow_path: run.workflowPath,
    goal: run.goal,
    status: run.status,
    terminal: isTerminal(run.status),
    reason: run.reason ?? null,
    archived: run.archived,
    attempt: run.attempt,
    parent_id: run.parentId ?? null,
    labels: run.labels,
    inputs: run.inputs,
    auto_approve: run.autoApprove,
    dry_run: run.dryRun,
    model: run.model ?? null,
    cwd: run.cwd,
    workspace: workspaceView(run),
    origin: run.origin === undefined ? null : { run_id: run.origin.runId, stage_id: run.origin.stageId, commit: run.origin.commit ?? null },
    concurrency: run.concurrency ?? [],
    current_stage_id: run.currentStageId ?? null,
    created_at: new Date(run.createdAt).toISOString(),
    updated_at: new Date(run.updatedAt).toISOString(),
    started_at: iso(run.startedAt),
    finished_at: iso(run.finishedAt),
    counts: {
      events: run.counts.events,
      stages: run.counts.stages,
      tool_calls: run.counts.toolCalls,
      questions_pending: run.counts.questionsPending,
      failed_optional_stages: run.counts.failedOptionalStages ?? 0,
    },
    pending_question_ids: run.pendingQuestionIds,
    pair_session: pairSessionView(run.pairSession ?? null),
    tokens: run.usage ? tokenUsageView(run.usage) : null,
    cost: costView(run.usage),
  };
}

function workspaceView(run: RunRecord): RunSummary['workspace'] {
  const workspace = run.workspace;
  if (workspace === undefined) return null;
  return {
    mode: workspace.mode,
    branch: workspace.branch,
    base_commit: workspace.baseCommit,
    subdir: workspace.subdir,
    source_repo: workspace.sourceRepo ?? null,
    repo_url: workspace.repoUrl ?? null,
    source_branch: workspace.sourceBranch ?? null,
    remote: workspace.remoteUrl === undefined ? null : redactGitText(workspace.remoteUrl),
    keep_branch: workspace.keepBranch,
  };
}

export function pairSessionView(session: PairSession | null): PairSessionView | null {
  return (
    session && {
      session_id: session.sessionId,
      stage_id: session.stageId,
      by: session.by,
      started_at: isoTime(session.startedAt),
      started_seq: session.startedSeq,
    }
  );
}

/** The goal's first line, whitespace collapsed, at most 120 characters. */
export function goalPreview(goal: string): string {
  const line = goal.trim().split('\n', 1)[0]?.replace(/\s+/g, ' ') ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export function runPreview(run: RunRecord): RunPreview {
  return {
    id: run.id,
    workflow: run.workflow,
    status: run.status,
    terminal: isTerminal(run.status),
    reason: run.reason ?? null,
    archived: run.archived,
    parent_id: run.parentId ?? null,
    labels: run.labels,
    goal_preview: goalPreview(run.goal),
    current_stage_id: run.currentStageId ?? null,
    questions_pending: run.counts.questionsPending,
    failed_optional_stages: run.counts.failedOptionalStages ?? 0,
    created_at: new Date(run.createdAt).toISOString(),
    updated_at: new Date(run.updatedAt).toISOString(),
    started_at: iso(run.startedAt),
    finished_at: iso(run.finishedAt),
  };
}

function answerHint(question: QuestionRecord): string {
  const alternatives = question.alternatives ?? [];
  const hint = kindHint(question);
  return alternatives.length > 0 ? `${hint}; or one of ${alternatives.map((item) => JSON.stringify(item)).join(', ')}` : hint;
}

function kindHint(question: QuestionRecord): string {
  const options = (question.options ?? []).map((option) => JSON.stringify(option)).join(', ');
  switch (question.kind) {
    case 'yes_no':
    case 'confirmation':
      return 'true or false (or the text "yes" / "no")';
    case 'choice':
      return `one of ${options}`;
    case 'multi_select':
      return `an array of distinct values from ${options} (or the text "a,b")`;
    case 'freeform':
      // MCP elicitation forms: the prompt lists the fields the schema asks for.
      return question.schema === undefined
        ? 'any text'
        : 'a value that fits the schema the prompt describes (a JSON object for a form of several fields)';
    default: {
      const unknown: never = question.kind;
      return String(unknown);
    }
  }
}

export function questionView(question: QuestionRecord): QuestionView {
  return {
    id: question.id,
    run_id: question.runId,
    stage_id: question.stageId,
    kind: question.kind,
    prompt: question.prompt,
    options: question.options ?? null,
    status: question.status,
    answer: question.answer ?? null,
    answer_hint: answerHint(question),
    asked_at: new Date(question.askedAt).toISOString(),
    answered_at: iso(question.answeredAt),
  };
}

/** Copies `value` with every string longer than `max` cut to `max` characters plus a marker. */
export function truncateStrings(value: unknown, max: number): { value: unknown; truncated: boolean } {
  let truncated = false;
  const visit = (item: unknown): unknown => {
    if (typeof item === 'string') {
      if (item.length <= max) return item;
      truncated = true;
      return `${item.slice(0, max)}…[${item.length - max} more characters]`;
    }
    if (Array.isArray(item)) return item.map(visit);
    if (item !== null && typeof item === 'object')
      return Object.fromEntries(Object.entries(item).map(([key, child]) => [key, visit(child)]));
    return item;
  };
  const result = visit(value);
  return { value: result, truncated };
}

export function eventView(event: RunEvent, maxContentLength: number): EventView {
  const { value, truncated } = truncateStrings(event.payload, maxContentLength);
  return {
    seq: event.seq,
    at: new Date(event.at).toISOString(),
    type: event.type,
    stage_id: event.stageId ?? null,
    payload: value,
    truncated,
  };
}
