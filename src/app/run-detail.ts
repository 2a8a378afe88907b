/**
 * The run page of the HTTP API and the dashboard: the run summary plus what the summary
 * does not keep — every stage with its state, timings and the first line of its output,
 * and the model's token totals — read from the log in one pass over the stage and
 * model-turn events. Same snake_case view conventions as `run-view.ts`.
 */
import * as z from 'zod';
import { AGENT_EVENT, ENGINE_EVENT } from '../runs/model/event-types.js';
import type { RunService } from './services/run-service.js';
import { eventsOf } from '../runs/store/event-pages.js';
import { isoTime, questionSchema, questionView, runSummary, runSummarySchema, tokenUsageSchema, tokenUsageView } from './run-view.js';
import { NO_TOKENS, withPayloadUsage, type TokenUsage } from '../runs/model/token-usage.js';

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
  tokens: tokenUsageSchema.nullable().describe('Model tokens of its turns; null for stages that ran no model'),
});
export type StageView = z.infer<typeof stageSchema>;

export const runDetailSchema = z.object({
  run: runSummarySchema,
  stages: z.array(stageSchema).describe('Every stage in start order'),
  pending_questions: z.array(questionSchema),
  tokens: tokenUsageSchema.describe("Model tokens of the run's agent and prompt stages"),
});
export type RunDetail = z.infer<typeof runDetailSchema>;

function firstLine(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = text.trim().split('\n', 1)[0] ?? '';
  if (line === '') return null;
  return line.length > OUTPUT_PREVIEW_LENGTH ? `${line.slice(0, OUTPUT_PREVIEW_LENGTH - 1)}…` : line;
}

/** @example const detail = await readRunDetail(runs, id); detail.stages.map((stage) => stage.status) */
export async function readRunDetail(runs: RunService, id: string): Promise<RunDetail> {
  const run = await runs.get(id);
  const stages = new Map<string, StageView>();
  let tokens: TokenUsage = NO_TOKENS;
  const stageTokens = new Map<string, TokenUsage>();
  for await (const event of eventsOf(runs.store, id, { types: [ENGINE_EVENT.stageStarted, ENGINE_EVENT.stageFinished, AGENT_EVENT.modelTurnFinished] })) {
    const payload = event.payload;
    const stageId = event.stageId;
    if (event.type === AGENT_EVENT.modelTurnFinished) {
      tokens = withPayloadUsage(tokens, payload) ?? tokens;
      const stage = stageId === undefined ? undefined : stages.get(stageId);
      const usage = stage && withPayloadUsage(stageTokens.get(stage.stage_id), payload);
      if (stage && usage) {
        stageTokens.set(stage.stage_id, usage);
        stage.tokens = tokenUsageView(usage);
      }
      continue;
    }
    if (stageId === undefined) continue;
    if (event.type === ENGINE_EVENT.stageStarted) {
      const node = typeof payload.node === 'string' ? payload.node : stageId.slice(0, stageId.lastIndexOf('@'));
      stages.set(stageId, { stage_id: stageId, node, kind: typeof payload.kind === 'string' ? payload.kind : 'unknown', status: 'running', started_at: isoTime(event.at), finished_at: null, duration_ms: null, output_preview: null, error: null, tokens: null });
      continue;
    }
    const stage = stages.get(stageId);
    if (stage === undefined) continue;
    stage.status = typeof payload.status === 'string' ? payload.status : 'finished';
    stage.finished_at = isoTime(event.at);
    stage.duration_ms = typeof payload.durationMs === 'number' ? payload.durationMs : null;
    stage.output_preview = firstLine(payload.output);
    stage.error = typeof payload.error === 'string' ? payload.error : null;
  }
  const questions = run.counts.questionsPending > 0 ? await runs.questions(id, true) : [];
  return { run: runSummary(run), stages: [...stages.values()], pending_questions: questions.map(questionView), tokens: tokenUsageView(tokens) };
}
