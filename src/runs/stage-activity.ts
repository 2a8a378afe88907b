/**
 * Which stages of a run have started, which finished, and how many model turns each
 * took — read from the log, because the run summary keeps only the latest stage and
 * parallel branches can run several agent stages at once. Pairing uses it to find the
 * agent stages that are running now.
 */
import { AGENT_EVENT, ENGINE_EVENT } from './model/event-types.js';
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
  /** How the stage ended; absent while it runs. */
  finished?: string;
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
      stages.set(stageId, { stageId, node, kind, startedAt: event.at, startedSeq: event.seq, turns: 0 });
      continue;
    }
    const stage = stages.get(stageId);
    if (stage === undefined) continue;
    if (event.type === ENGINE_EVENT.stageFinished) stage.finished = typeof event.payload.status === 'string' ? event.payload.status : 'finished';
    else stage.turns += 1;
  }
  return [...stages.values()];
}

/** The running `agent` and `prompt` stages among `stages`. */
export function activeAgentStages(stages: readonly StageActivity[]): ActiveAgentStage[] {
  return stages.flatMap((stage) =>
    stage.finished === undefined && (stage.kind === 'agent' || stage.kind === 'prompt') ? [{ stageId: stage.stageId, node: stage.node, kind: stage.kind, turns: stage.turns, startedAt: stage.startedAt }] : [],
  );
}
