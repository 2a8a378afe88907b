/**
 * The run summary: what `run_get` and `run_search` return. The spec is fixed at creation,
 * the state is a projection of the run's events (see `project-run.ts`), and the lease is
 * coordination state owned by the store.
 */
import type { JsonObject } from './json.js';
import type { RunStatus } from './run-status.js';
import type { RunBudgetPayload, TokenUsagePayload as TokenUsage } from './event-types.js';
import type { RunOrigin, RunWorkspace } from './run-workspace.js';
import type { SandboxSpec } from '../../core/sandbox/sandbox-rules.js';
import type { ConcurrencySlot } from './run-concurrency.js';

/** How many stages, events and pending questions a run has. */
export interface RunCounts {
  events: number;
  stages: number;
  toolCalls: number;
  questionsPending: number;
  /**
   * Stages that failed for good and the run went on past them (an edge taken on failure):
   * a run that succeeds with some is not a clean success. Absent in summaries stored before
   * it was counted (read as 0).
   */
  failedOptionalStages?: number;
}

/** Which runner holds the run, until when (epoch ms). Absent when nobody holds it. */
export interface RunLease {
  workerId: string;
  expiresAt: number;
}

/** The open pair session of a run: someone talks to one of its running agent stages. */
export interface PairSession {
  /** ULID. */
  sessionId: string;
  /** The agent stage, e.g. `implement@1`. */
  stageId: string;
  by: string;
  startedAt: number;
  /** Seq of its `pair-started` event. */
  startedSeq: number;
}

/** What a run was created with; never changes afterwards. */
export interface RunSpec {
  /** ULID. */
  id: string;
  workflow: string;
  workflowPath: string;
  goal: string;
  inputs: JsonObject;
  labels: Record<string, string>;
  autoApprove: boolean;
  dryRun: boolean;
  model?: string;
  cwd: string;
  /**
   * A keyed hash of the creator's environment (never the values): runners started for a
   * creator execute only runs with their own fingerprint. Absent: any runner may.
   */
  envFingerprint?: string;
  /** The budget given at creation; its fields win over the workflow's `[run.budget]`. */
  budget?: RunBudgetPayload;
  /** Claim order: higher first (from -100 to 100; absent is 0); see `claimTime`. */
  priority?: number;
  /** Where the stages work (resolved at creation); absent on runs created before workspaces: in place. */
  workspace?: RunWorkspace;
  /** The run and stage this run was forked from (`weft fork`). */
  origin?: RunOrigin;
  /** The run's own `[run.sandbox]` (`--sandbox`, `sandbox`), layered over the settings' and the workflow's. */
  sandbox?: SandboxSpec;
  /** Resolved concurrency keys (`[run.concurrency]`): the run is claimed only while each has room. */
  concurrency?: ConcurrencySlot[];
  createdAt: number;
}

/** What the events change: the projected part of the summary. */
export interface RunState {
  parentId?: string;
  status: RunStatus;
  /** Only a terminal run can be archived; archived runs are hidden from searches by default. */
  archived: boolean;
  /** 1 for the first attempt, +1 for every retry (failed|cancelled → queued). */
  attempt: number;
  /** The stage that started most recently (kept after the run ends, so a retry knows where it stopped). */
  currentStageId?: string;
  /** Reason given with the latest status change (denial, failure, cancellation). */
  reason?: string;
  updatedAt: number;
  /** First time the run reached `running`. */
  startedAt?: number;
  /** When the run last reached a terminal state; cleared by a retry. */
  finishedAt?: number;
  counts: RunCounts;
  /** Ids of the questions still waiting for an answer, oldest first. */
  pendingQuestionIds: string[];
  /** The open pair session, if any; closed by `pair-ended`, by its stage finishing, or by the run ending. */
  pairSession?: PairSession;
  /** Model tokens and cost of every turn so far (`model-turn-finished`); absent until the first turn. */
  usage?: TokenUsage;
  /** The same by `provider:model` (`unknown` for turns that did not say, such as CLI stages'). */
  usageByModel?: Record<string, TokenUsage>;
}

/** A run as stored: what was asked for (workflow, inputs, goal, labels) and where it is now (status, stages, result). */
export interface RunRecord extends RunSpec, RunState {
  lease?: RunLease;
}

/** Splits a record into its immutable spec and its projected state (the lease is dropped). */
export function splitRun(run: RunRecord): { spec: RunSpec; state: RunState } {
  const {
    id,
    workflow,
    workflowPath,
    goal,
    inputs,
    labels,
    autoApprove,
    dryRun,
    model,
    cwd,
    envFingerprint,
    budget,
    priority,
    workspace,
    origin,
    sandbox,
    concurrency,
    createdAt,
    lease: _lease,
    ...state
  } = run;
  const spec: RunSpec = {
    id,
    workflow,
    workflowPath,
    goal,
    inputs,
    labels,
    autoApprove,
    dryRun,
    ...(model === undefined ? {} : { model }),
    cwd,
    ...(envFingerprint === undefined ? {} : { envFingerprint }),
    ...(budget === undefined ? {} : { budget }),
    ...(priority === undefined ? {} : { priority }),
    ...(workspace === undefined ? {} : { workspace }),
    ...(origin === undefined ? {} : { origin }),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(concurrency === undefined ? {} : { concurrency }),
    createdAt,
  };
  return { spec, state };
}

export const MIN_PRIORITY = -100;
export const MAX_PRIORITY = 100;
/**
 * How much earlier one priority step places a run in the claim order. Runners claim queued
 * runs by `createdAt - priority × PRIORITY_STEP_MS`, oldest first, so a higher priority
 * goes first but a run is never passed over by a run created more than
 * `(its rival's priority - its own) × PRIORITY_STEP_MS` after it: the starvation bound
 * (at most 200 steps, 200 minutes, between the lowest and the highest priority).
 */
export const PRIORITY_STEP_MS = 60_000;

/** The time a queued run is claimed by: its creation, moved earlier by its priority. */
export function claimTime(spec: Pick<RunSpec, 'createdAt' | 'priority'>): number {
  return spec.createdAt - (spec.priority ?? 0) * PRIORITY_STEP_MS;
}

export const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;
export const MAX_LABEL_VALUE_LENGTH = 256;
export const MAX_LABELS = 32;
