/**
 * A run's results as MCP clients see them: the final output and each stage's status with
 * the head of its output, bounded so one get or gather never floods the client; the
 * whole output is one weft_run_events `details` call away (its finished_seq).
 */
import * as z from 'zod';
import type { JsonValue } from '../../runs/model/json.js';
import type { RunResults, StageRecord } from '../../runs/stage-fold.js';
import { costSchema, costView, tokenUsageSchema, tokenUsageView } from '../../app/views/run-view.js';

export const stageResultSchema = z.object({
  stage_id: z.string().describe('e.g. build@1'),
  node: z.string(),
  kind: z.string().describe('agent, prompt, command, tool, human, wait, …'),
  attempt: z.number().int(),
  status: z.string().describe('running, or how it ended: succeeded, failed, cancelled, …'),
  duration_ms: z.number().nullable(),
  output_head: z.string().nullable().describe('The start of its output (text, or JSON for other values); null when it had none'),
  output_truncated: z
    .boolean()
    .describe('True when output_head is cut: read the whole output with weft_run_events action "details" and seq finished_seq'),
  error: z.string().nullable().describe('Why it failed, in full'),
  finished_seq: z.number().int().nullable().describe('Seq of its stage-finished event, which holds the whole output'),
  tokens: tokenUsageSchema.nullable().describe('Model tokens of its turns; null for stages that ran no model'),
  cost: costSchema.nullable().describe('What its turns cost; null for stages that ran no model'),
});

export const runResultsSchema = z.object({
  final_output_head: z
    .string()
    .nullable()
    .describe("The start of the output of the stage that succeeded last (the run's answer); null when none did"),
  final_output_truncated: z.boolean(),
  final_stage_id: z.string().nullable(),
  stages: z.array(stageResultSchema).describe('The latest stages, in start order'),
  stages_omitted: z.number().int().describe('Earlier stages left out to keep the result small (read them with weft_run_events)'),
  tokens: tokenUsageSchema.describe('Model tokens of every turn of the run'),
  cost: costSchema.nullable().describe('What every turn of the run cost; null when no model ran'),
});
export type RunResultsView = z.infer<typeof runResultsSchema>;

export interface ResultBounds {
  /** Characters of each output kept. */
  headChars: number;
  /** Stages kept (the latest). */
  maxStages: number;
}

function head(value: JsonValue | undefined, max: number): { text: string | null; truncated: boolean } {
  if (value === undefined || value === null) return { text: null, truncated: false };
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length <= max ? { text, truncated: false } : { text: `${text.slice(0, max)}…`, truncated: true };
}

function stageView(stage: StageRecord, bounds: ResultBounds): z.infer<typeof stageResultSchema> {
  const output = head(stage.output, bounds.headChars);
  return {
    stage_id: stage.stageId,
    node: stage.node,
    kind: stage.kind,
    attempt: stage.attempt,
    status: stage.status,
    duration_ms: stage.durationMs ?? null,
    output_head: output.text,
    output_truncated: output.truncated,
    error: stage.error ?? null,
    finished_seq: stage.finishedSeq ?? null,
    tokens: stage.usage === undefined ? null : tokenUsageView(stage.usage),
    cost: costView(stage.usage),
  };
}

export function runResultsView(results: RunResults, bounds: ResultBounds): RunResultsView {
  const final = head(results.finalOutput, bounds.headChars);
  const kept = results.stages.slice(-bounds.maxStages);
  return {
    final_output_head: final.text,
    final_output_truncated: final.truncated,
    final_stage_id: results.finalStageId ?? null,
    stages: kept.map((stage) => stageView(stage, bounds)),
    stages_omitted: results.stages.length - kept.length,
    tokens: tokenUsageView(results.usage),
    cost: costView(results.usage),
  };
}

/** How to read the outputs the view cut. */
export function readWholeOutputSteps(runId: string, view: RunResultsView): string[] {
  return view.stages
    .filter((stage) => stage.output_truncated && stage.finished_seq !== null)
    .map(
      (stage) =>
        `Read the whole output of ${stage.stage_id} with weft_run_events ${JSON.stringify({ run_id: runId, action: 'details', seq: stage.finished_seq })}.`,
    );
}
