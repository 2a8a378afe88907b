/**
 * What each stage of a run did — status, attempt, duration, output, failure — and the
 * run's final output, read from the stage events of its log. A reader that asks "did it
 * work and what did it say" gets the answer in one call, without paging the log.
 */
import { AGENT_EVENT, ENGINE_EVENT } from './model/event-types.js';
import type { JsonValue } from './model/json.js';
import { NO_TOKENS, withPayloadUsage, type TokenUsage } from './model/token-usage.js';
import type { RunStore } from './store/run-store.js';
import { eventsOf } from './store/event-pages.js';

export interface StageResult {
  stageId: string;
  node: string;
  kind: string;
  attempt: number;
  /** `running` until the stage finishes, then how it ended (succeeded, failed, …). */
  status: string;
  startedAt: number;
  durationMs?: number;
  output?: JsonValue;
  error?: string;
  /** Seq of the stage-finished event (read the whole output from it). */
  finishedSeq?: number;
  /** Model tokens of its turns; absent for stages that ran no model. */
  usage?: TokenUsage;
}

export interface RunResults {
  /** Stages in start order. */
  stages: StageResult[];
  /** The output of the stage that succeeded last, or undefined when none did. */
  finalOutput?: JsonValue;
  finalStageId?: string;
  /** Model tokens of every turn of the run. */
  usage: TokenUsage;
}

const field = <T>(value: unknown, check: (item: unknown) => item is T): T | undefined => (check(value) ? value : undefined);
const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number';

export async function readRunResults(store: Pick<RunStore, 'listEvents'>, runId: string): Promise<RunResults> {
  const stages = new Map<string, StageResult>();
  let final: StageResult | undefined;
  let usage = NO_TOKENS;
  for await (const event of eventsOf(store, runId, { types: [ENGINE_EVENT.stageStarted, ENGINE_EVENT.stageFinished, AGENT_EVENT.modelTurnFinished] })) {
    const stageId = event.stageId;
    const { payload } = event;
    if (event.type === AGENT_EVENT.modelTurnFinished) {
      usage = withPayloadUsage(usage, payload) ?? usage;
      const stage = stageId === undefined ? undefined : stages.get(stageId);
      const stageUsage = stage && withPayloadUsage(stage.usage, payload);
      if (stage && stageUsage) stage.usage = stageUsage;
      continue;
    }
    if (stageId === undefined) continue;
    if (event.type === ENGINE_EVENT.stageStarted) {
      stages.set(stageId, {
        stageId,
        node: field(payload.node, isString) ?? stageId.slice(0, stageId.lastIndexOf('@')),
        kind: field(payload.kind, isString) ?? 'unknown',
        attempt: field(payload.attempt, isNumber) ?? 1,
        status: 'running',
        startedAt: event.at,
      });
      continue;
    }
    const stage = stages.get(stageId);
    if (stage === undefined) continue;
    stage.status = field(payload.status, isString) ?? 'finished';
    stage.finishedSeq = event.seq;
    const duration = field(payload.durationMs, isNumber);
    if (duration !== undefined) stage.durationMs = duration;
    if (payload.output !== undefined && payload.output !== null) stage.output = payload.output;
    const error = field(payload.error, isString);
    if (error !== undefined) stage.error = error;
    if (stage.status === 'succeeded') final = stage;
  }
  return { stages: [...stages.values()], usage, ...(final ? { finalOutput: final.output ?? null, finalStageId: final.stageId } : {}) };
}
