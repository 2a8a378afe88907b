/**
 * The run page of the HTTP API and the dashboard: the run summary plus what the summary
 * does not keep — every stage with its state, timings and the first line of its output,
 * and the model's token totals — read from the log in one pass over the stage and
 * model-turn events, folded on from where the last read stopped when the run was read
 * recently (`RunDetails`). Same snake_case view conventions as `run-view.ts`.
 */
import * as z from 'zod';
import { AGENT_EVENT, ENGINE_EVENT } from '../runs/model/event-types.js';
import type { RunEvent } from '../runs/model/run-event.js';
import type { RunService } from './services/run-service.js';
import { eventsOf } from '../runs/store/event-pages.js';
import { isoTime, questionSchema, questionView, runSummary, runSummarySchema } from './run-view.js';

const OUTPUT_PREVIEW_LENGTH = 200;

export const stageSchema = z.object({
  stage_id: z.string().describe('node@attempt, e.g. implement@1'),
  node: z.string(),
  kind: z.string().describe('Node kind: agent, prompt, command, tool, human, …'),
  status: z.string().describe('running, or how it ended: succeeded, failed, cancelled, abandoned, interrupted'),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  output_preview: z.string().nullable().describe('First line of the output, at most 200 characters'),
  error: z.string().nullable(),
});
export type StageView = z.infer<typeof stageSchema>;

export const tokenTotalsSchema = z.object({ input: z.number().int(), output: z.number().int(), total: z.number().int() });

export const runDetailSchema = z.object({
  run: runSummarySchema,
  stages: z.array(stageSchema).describe('Every stage in start order'),
  pending_questions: z.array(questionSchema),
  tokens: tokenTotalsSchema.describe("Model tokens of the run's agent and prompt stages"),
});
export type RunDetail = z.infer<typeof runDetailSchema>;

function firstLine(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = text.trim().split('\n', 1)[0] ?? '';
  if (line === '') return null;
  return line.length > OUTPUT_PREVIEW_LENGTH ? `${line.slice(0, OUTPUT_PREVIEW_LENGTH - 1)}…` : line;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * One run's stages and token totals folded from its log up to `seq`. The fold is a left
 * fold in seq order, so it goes on from where it stopped: reading the run again costs the
 * events appended since, not the whole log again.
 */
class StageFold {
  readonly stages = new Map<string, StageView>();
  readonly tokens = { input: 0, output: 0, total: 0 };
  /** Every event up to this seq is folded in. */
  seq = 0;

  apply(event: RunEvent): void {
    this.seq = Math.max(this.seq, event.seq);
    const payload = event.payload;
    if (event.type === AGENT_EVENT.modelTurnFinished) {
      const usage = payload.usage !== null && typeof payload.usage === 'object' && !Array.isArray(payload.usage) ? payload.usage : {};
      this.tokens.input += count(usage.inputTokens);
      this.tokens.output += count(usage.outputTokens);
      this.tokens.total += count(usage.totalTokens);
      return;
    }
    const stageId = event.stageId;
    if (stageId === undefined) return;
    if (event.type === ENGINE_EVENT.stageStarted) {
      const node = typeof payload.node === 'string' ? payload.node : stageId.slice(0, stageId.lastIndexOf('@'));
      this.stages.set(stageId, { stage_id: stageId, node, kind: typeof payload.kind === 'string' ? payload.kind : 'unknown', status: 'running', started_at: isoTime(event.at), finished_at: null, duration_ms: null, output_preview: null, error: null });
      return;
    }
    const stage = this.stages.get(stageId);
    if (stage === undefined) return;
    stage.status = typeof payload.status === 'string' ? payload.status : 'finished';
    stage.finished_at = isoTime(event.at);
    stage.duration_ms = typeof payload.durationMs === 'number' ? payload.durationMs : null;
    stage.output_preview = firstLine(payload.output);
    stage.error = typeof payload.error === 'string' ? payload.error : null;
  }
}

const FOLDED_TYPES = [ENGINE_EVENT.stageStarted, ENGINE_EVENT.stageFinished, AGENT_EVENT.modelTurnFinished];

/** How many runs' folds a cache keeps (a few hundred bytes each per stage). */
const CACHED_RUNS = 1000;

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
    if (fold === undefined || fold.seq < run.counts.events) {
      fold ??= new StageFold();
      for await (const event of eventsOf(runs.store, run.id, { types: FOLDED_TYPES, afterSeq: fold.seq })) fold.apply(event);
    }
    // Events up to the summary's head are folded in (later ones too, when they came meanwhile).
    fold.seq = Math.max(fold.seq, run.counts.events);
    this.#folds.set(run.id, fold);
    if (this.#folds.size > this.#capacity) this.#folds.delete(this.#folds.keys().next().value!);
    const questions = run.counts.questionsPending > 0 ? await runs.questions(run.id, true) : [];
    return { run: runSummary(run), stages: [...fold.stages.values()].map((stage) => ({ ...stage })), pending_questions: questions.map(questionView), tokens: { ...fold.tokens } };
  }
}

/** @example const detail = await readRunDetail(runs, id); detail.stages.map((stage) => stage.status) */
export function readRunDetail(runs: RunService, id: string): Promise<RunDetail> {
  return new RunDetails(0).read(runs, id);
}
