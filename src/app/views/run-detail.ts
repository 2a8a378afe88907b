/**
 * The run page of the HTTP API and the dashboard: the run summary plus what the summary
 * does not keep — every stage with its state, timings and the first line of its output,
 * and the model's token totals — read from the log in one pass over the stage and
 * model-turn events, folded on from where the last read stopped when the run was read
 * recently (`RunDetails`). Same snake_case view conventions as `run-view.ts`.
 */
import * as z from 'zod';
import type { RunService } from '../services/run-service.js';
import { StageFold, type StageRecord } from '../../runs/stage-fold.js';
import { runSandboxJson, runSandboxSchema, type RunSandboxJson } from './sandbox-view.js';
import {
  costSchema,
  costView,
  isoTime,
  questionSchema,
  questionView,
  runSummary,
  runSummarySchema,
  tokenUsageSchema,
  tokenUsageView,
} from './run-view.js';

const OUTPUT_PREVIEW_LENGTH = 200;

export const stageSchema = z.object({
  stage_id: z.string().describe('node@attempt, e.g. implement@1'),
  node: z.string(),
  kind: z.string().describe('Node kind: agent, prompt, command, tool, human, …'),
  status: z.string().describe('running, or how it ended: succeeded, failed, cancelled, abandoned, interrupted'),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  exit_code: z.number().int().nullable().describe("A command stage's exit code; null for other kinds and while it runs"),
  output_preview: z.string().nullable().describe('First line of the output, at most 200 characters'),
  error: z.string().nullable(),
  tokens: tokenUsageSchema.nullable().describe('Model tokens of its turns; null for stages that ran no model'),
  cost: costSchema.nullable().describe('What its turns cost; null for stages that ran no model'),
});
export type StageView = z.infer<typeof stageSchema>;

export const runDetailSchema = z.object({
  run: runSummarySchema,
  stages: z.array(stageSchema).describe('Every stage in start order'),
  pending_questions: z.array(questionSchema),
  tokens: tokenUsageSchema.describe("Model tokens of the run's agent and prompt stages"),
  cost: costSchema.nullable().describe("What the run's model turns cost; null when no model ran"),
  sandbox: runSandboxSchema,
  waiting_for: z
    .array(z.object({ key: z.string(), limit: z.number().int(), held: z.number().int().describe('Runs holding the key now, on any host') }))
    .describe('The concurrency keys a queued run waits for (full now); empty when it waits for none'),
});
export type RunDetail = z.infer<typeof runDetailSchema>;

function firstLine(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = text.trim().split('\n', 1)[0] ?? '';
  if (line === '') return null;
  return line.length > OUTPUT_PREVIEW_LENGTH ? `${line.slice(0, OUTPUT_PREVIEW_LENGTH - 1)}…` : line;
}

function stageView(stage: StageRecord): StageView {
  return {
    stage_id: stage.stageId,
    node: stage.node,
    kind: stage.kind,
    status: stage.status,
    started_at: isoTime(stage.startedAt),
    finished_at: stage.finishedAt === undefined ? null : isoTime(stage.finishedAt),
    duration_ms: stage.durationMs ?? null,
    exit_code: stage.exitCode ?? null,
    output_preview: firstLine(stage.output),
    error: stage.error ?? null,
    tokens: stage.usage ? tokenUsageView(stage.usage) : null,
    cost: costView(stage.usage),
  };
}

/**
 * How many runs' folds a cache keeps (a few hundred bytes each per stage): enough for the runs a
 * dashboard and a few clients watch at once. At 1,000, `weft serve` took the soak's whole hour
 * to fill it, which read as a leak.
 */
const CACHED_RUNS = 256;

/**
 * Reads run details, keeping the stage fold of the runs read most recently: a run read
 * again (a page polling it, a client waiting on it) costs its summary row and, when its
 * log grew, the events since; a run unchanged since costs the summary row alone.
 *
 * @example const details = new RunDetails(); const detail = await details.read(runs, id); detail.stages.map((stage) => stage.status)
 */
export class RunDetails {
  /** By run id, least recently read first. */
  readonly #folds = new Map<string, StageFold>();
  /** Each cached run's sandbox, read again when its log grew (it reads the workflow and settings files). */
  readonly #sandboxes = new Map<string, RunSandboxJson>();
  readonly #capacity: number;

  constructor(capacity = CACHED_RUNS) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#folds.size;
  }

  async read(runs: RunService, id: string): Promise<RunDetail> {
    const run = await runs.get(id);
    let fold = this.#folds.get(run.id);
    this.#folds.delete(run.id);
    let sandbox = this.#sandboxes.get(run.id);
    if (fold === undefined || fold.seq < run.counts.events || sandbox === undefined) {
      fold = await runs.foldInto(fold ?? new StageFold(), run.id);
      sandbox = runSandboxJson(await runs.sandbox(run));
    }
    // Events up to the summary's head are folded in (later ones too, when they came meanwhile).
    fold.seq = Math.max(fold.seq, run.counts.events);
    this.#folds.set(run.id, fold);
    this.#sandboxes.set(run.id, sandbox);
    if (this.#folds.size > this.#capacity) {
      const oldest = this.#folds.keys().next().value!;
      this.#folds.delete(oldest);
      this.#sandboxes.delete(oldest);
    }
    const questions = run.counts.questionsPending > 0 ? await runs.questions(run.id, true) : [];
    const waits = (await runs.concurrencyWaits([run])).get(run.id) ?? [];
    // Views are built anew from the fold, so callers can change them without touching the cache.
    return {
      run: runSummary(run),
      stages: [...fold.stages.values()].map(stageView),
      pending_questions: questions.map(questionView),
      tokens: tokenUsageView(fold.usage),
      cost: costView(fold.usage),
      sandbox: { ...sandbox, rules: sandbox.rules === null ? null : structuredClone(sandbox.rules) },
      waiting_for: waits.map((wait) => ({ ...wait })),
    };
  }
}

/** @example const detail = await readRunDetail(runs, id); detail.stages.map((stage) => stage.status) */
export function readRunDetail(runs: RunService, id: string): Promise<RunDetail> {
  return new RunDetails(0).read(runs, id);
}
