/**
 * Which stages of a run have started, which finished, and how many model turns each
 * took — read from the log, because the run summary keeps only the latest stage and
 * parallel branches can run several agent stages at once. Pairing uses it to find the
 * agent stages that are running now.
 */
import { AGENT_EVENT, ENGINE_EVENT } from './model/event-types.js';
import type { JsonValue } from './model/json.js';
import { withPayloadUsage, type TokenUsage } from './model/token-usage.js';
import type { RunStore } from './store/run-store.js';
import { eventsOf } from './store/event-pages.js';


export interface StageActivity {
  stageId: string;
  node: string;
  /** The node kind: `agent`, `prompt`, `command`, … */
  kind: string;
  startedAt: number;
  startedSeq: number;
  /** Model turns finished so far (counted only when asked for). */
  turns: number;
  /** Model tokens of those turns; absent for stages that ran no model (or when turns are not counted). */
  usage?: TokenUsage;
  /** 1 for the node's first stage, +1 for every retry or revisit (the number after `@`). */
  attempt: number;
  /** How the stage ended; absent while it runs. */
  finished?: string;
  /** From its `stage-finished` event: how long it took, what it produced, why it failed. */
  durationMs?: number;
  output?: JsonValue;
  error?: string;
}

/** A running `agent` or `prompt` stage. */
export interface ActiveAgentStage {
  stageId: string;
  node: string;
  kind: 'agent' | 'prompt';
  turns: number;
  startedAt: number;
}

/**
 * Every stage of a run in start order. `countTurns: false` skips the model-turn events
 * (the larger part of an agent's log) when only the stages' states matter.
 *
 * @example (await readStageActivity(store, runId)).filter((stage) => stage.finished === undefined)
 */
export async function readStageActivity(store: RunStore, runId: string, options: { countTurns?: boolean } = {}): Promise<StageActivity[]> {
  const types: string[] = [ENGINE_EVENT.stageStarted, ENGINE_EVENT.stageFinished];
  if (options.countTurns !== false) types.push(AGENT_EVENT.modelTurnFinished);
  const stages = new Map<string, StageActivity>();
  for await (const event of eventsOf(store, runId, { types })) {
    const stageId = event.stageId;
    if (stageId === undefined) continue;
    if (event.type === ENGINE_EVENT.stageStarted) {
      const node = typeof event.payload.node === 'string' ? event.payload.node : stageId.slice(0, stageId.lastIndexOf('@'));
      const kind = typeof event.payload.kind === 'string' ? event.payload.kind : 'unknown';
      const attempt = typeof event.payload.attempt === 'number' ? event.payload.attempt : Number(stageId.slice(stageId.lastIndexOf('@') + 1)) || 1;
      stages.set(stageId, { stageId, node, kind, attempt, startedAt: event.at, startedSeq: event.seq, turns: 0 });
      continue;
    }
    const stage = stages.get(stageId);
    if (stage === undefined) continue;
    if (event.type !== ENGINE_EVENT.stageFinished) {
      stage.turns += 1;
      const usage = withPayloadUsage(stage.usage, event.payload);
      if (usage !== undefined) stage.usage = usage;
      continue;
    }
    const { status, durationMs, output, error } = event.payload;
    stage.finished = typeof status === 'string' ? status : 'finished';
    if (typeof durationMs === 'number') stage.durationMs = durationMs;
    if (output !== undefined && output !== null) stage.output = output;
    if (typeof error === 'string' && error !== '') stage.error = error;
  }
  return [...stages.values()];
}

/** The running `agent` and `prompt` stages among `stages`. */
export function activeAgentStages(stages: readonly StageActivity[]): ActiveAgentStage[] {
  return stages.flatMap((stage) =>
    stage.finished === undefined && (stage.kind === 'agent' || stage.kind === 'prompt') ? [{ stageId: stage.stageId, node: stage.node, kind: stage.kind, turns: stage.turns, startedAt: stage.startedAt }] : [],
  );
}
