/**
 * The one reading of a run's stages from its log: which stages started, how each ended,
 * its timings, output, failure, model turns and tokens, and the run's token totals. The
 * run summary keeps only the latest stage, and parallel branches run several at once, so
 * every view of stages (inspect, get/gather, the run page, pairing, the graph) folds the
 * same events here. The fold is a left fold in seq order, so it can go on from where it
 * stopped when the log grows.
 */
import { AGENT_EVENT, ENGINE_EVENT } from './model/event-types.js';
import type { JsonValue } from './model/json.js';
import type { RunEvent } from './model/run-event.js';
import { NO_TOKENS, withPayloadUsage, type TokenUsage } from './model/token-usage.js';
import type { RunStore } from './store/run-store.js';
import { eventsOf } from './store/event-pages.js';

export interface StageRecord {
  stageId: string;
  node: string;
  /** The node kind: `agent`, `prompt`, `command`, … */
  kind: string;
  /** 1 for the node's first stage, +1 for every retry or revisit (the number after `@`). */
  attempt: number;
  /** `running` until the stage finishes, then how it ended (succeeded, failed, …). */
  status: string;
  startedAt: number;
  startedSeq: number;
  finishedAt?: number;
  /** Seq of the stage-finished event (read the whole output from it). */
  finishedSeq?: number;
  durationMs?: number;
  /** A command stage's exit code, once it finished. */
  exitCode?: number;
  output?: JsonValue;
  error?: string;
  /** Model turns finished so far (counted only when turns are folded). */
  turns: number;
  /** Model tokens of those turns; absent for stages that ran no model. */
  usage?: TokenUsage;
  /** The commit the stage's changes went into; absent when it changed no file (or the run works in place). */
  checkpoint?: { commit: string; filesChanged: number; linesAdded: number; linesRemoved: number };
}

const STAGE_TYPES = [ENGINE_EVENT.stageStarted, ENGINE_EVENT.stageFinished, ENGINE_EVENT.checkpointCreated];
const WITH_TURNS = [...STAGE_TYPES, AGENT_EVENT.modelTurnFinished];

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const number = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** The node and attempt a stage id names (`node@attempt`), for events that do not say. */
function fromStageId(stageId: string): { node: string; attempt: number } {
  const at = stageId.lastIndexOf('@');
  return { node: stageId.slice(0, at), attempt: Number(stageId.slice(at + 1)) || 1 };
}

export class StageFold {
  readonly stages = new Map<string, StageRecord>();
  /** Model tokens of every turn folded in. */
  usage: TokenUsage = NO_TOKENS;
  /** The stage that succeeded last. */
  final: StageRecord | undefined;
  /** Every event up to this seq is folded in. */
  seq = 0;

  /** The event types to read for this fold; without turns, the larger part of an agent's log is skipped. */
  static types(countTurns: boolean): readonly string[] {
    return countTurns ? WITH_TURNS : STAGE_TYPES;
  }

  apply(event: RunEvent): void {
    this.seq = Math.max(this.seq, event.seq);
    const { payload, stageId } = event;
    if (event.type === AGENT_EVENT.modelTurnFinished) {
      this.usage = withPayloadUsage(this.usage, payload) ?? this.usage;
      const stage = stageId === undefined ? undefined : this.stages.get(stageId);
      if (stage === undefined) return;
      stage.turns += 1;
      const usage = withPayloadUsage(stage.usage, payload);
      if (usage !== undefined) stage.usage = usage;
      return;
    }
    if (stageId === undefined) return;
    if (event.type === ENGINE_EVENT.stageStarted) {
      const named = fromStageId(stageId);
      this.stages.set(stageId, {
        stageId,
        node: text(payload.node) ?? named.node,
        kind: text(payload.kind) ?? 'unknown',
        attempt: number(payload.attempt) ?? named.attempt,
        status: 'running',
        startedAt: event.at,
        startedSeq: event.seq,
        turns: 0,
      });
      return;
    }
    const stage = this.stages.get(stageId);
    if (stage !== undefined && event.type === ENGINE_EVENT.checkpointCreated) {
      stage.checkpoint = {
        commit: text(payload.commit) ?? '',
        filesChanged: number(payload.filesChanged) ?? 0,
        linesAdded: number(payload.linesAdded) ?? 0,
        linesRemoved: number(payload.linesRemoved) ?? 0,
      };
      return;
    }
    if (stage === undefined || event.type !== ENGINE_EVENT.stageFinished) return;
    stage.status = text(payload.status) ?? 'finished';
    stage.finishedAt = event.at;
    stage.finishedSeq = event.seq;
    const durationMs = number(payload.durationMs);
    if (durationMs !== undefined) stage.durationMs = durationMs;
    const exitCode = number(payload.exitCode);
    if (exitCode !== undefined) stage.exitCode = exitCode;
    if (payload.output !== undefined && payload.output !== null) stage.output = payload.output;
    const error = text(payload.error);
    if (error !== undefined && error !== '') stage.error = error;
    if (stage.status === 'succeeded') this.final = stage;
  }

  /** Folds in the run's events after `this.seq`. */
  async readFrom(store: Pick<RunStore, 'listEvents'>, runId: string, countTurns = true): Promise<this> {
    for await (const event of eventsOf(store, runId, { types: StageFold.types(countTurns), afterSeq: this.seq })) this.apply(event);
    return this;
  }
}

/**
 * Every stage of a run in start order. `countTurns: false` skips the model-turn events
 * when only the stages' states matter (no turns, no tokens).
 *
 * @example (await foldStages(store, runId)).stages
 */
export function foldStages(store: Pick<RunStore, 'listEvents'>, runId: string, options: { countTurns?: boolean } = {}): Promise<StageFold> {
  return new StageFold().readFrom(store, runId, options.countTurns !== false);
}

/** A running `agent` or `prompt` stage. */
export interface ActiveAgentStage {
  stageId: string;
  node: string;
  kind: 'agent' | 'prompt';
  turns: number;
  startedAt: number;
}

/** The running `agent` and `prompt` stages among `stages`. */
export function activeAgentStages(stages: readonly StageRecord[]): ActiveAgentStage[] {
  return stages.flatMap((stage) =>
    stage.status === 'running' && (stage.kind === 'agent' || stage.kind === 'prompt')
      ? [{ stageId: stage.stageId, node: stage.node, kind: stage.kind, turns: stage.turns, startedAt: stage.startedAt }]
      : [],
  );
}

/** What a run did, for a reader that asks "did it work and what did it say" in one call. */
export interface RunResults {
  /** Stages in start order. */
  stages: StageRecord[];
  /** The output of the stage that succeeded last, or undefined when none did. */
  finalOutput?: JsonValue;
  finalStageId?: string;
  /** Model tokens of every turn of the run. */
  usage: TokenUsage;
}

export function runResults(fold: StageFold): RunResults {
  const final = fold.final;
  return {
    stages: [...fold.stages.values()],
    usage: fold.usage,
    ...(final ? { finalOutput: final.output ?? null, finalStageId: final.stageId } : {}),
  };
}
