/**
 * The spans of one run attempt: `invoke_workflow <workflow>` for the attempt (one runner
 * executing the run until it ends, pauses or the runner stops) and `stage <node>` for each
 * stage attempt under it. The first traced attempt records its `traceparent` in the run's
 * log (`run-trace-started`); later attempts — another runner after a crash, a resume after
 * an interrupt — start as its children, so the whole run is one trace.
 */
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_WORKFLOW_NAME,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
} from '../../core/telemetry/gen-ai.js';
import {
  contextOfTraceparent,
  contextWith,
  recordFailure,
  safeAttributes,
  setSpanAttributes,
  startSpan,
  traceparentOf,
  type Span,
  type TraceContext,
} from '../../core/telemetry/tracing.js';
import { ENGINE_EVENT, type StageStatus } from '../model/event-types.js';
import type { RunEvent } from '../model/run-event.js';
import type { RunRecord } from '../model/run-record.js';
import type { RunStatus } from '../model/run-status.js';

/** The label a child run carries with its creating stage's `traceparent`, so the child joins the parent's trace. */
export const PARENT_TRACE_LABEL = 'weft/traceparent';

/** Run statuses an attempt may end in that mean it went wrong. */
const FAILED_RUN: ReadonlySet<RunStatus> = new Set(['failed', 'cancelled']);
/** Stage statuses that mark the stage's span as an error (abandoned/interrupted stages run again). */
const FAILED_STAGE: ReadonlySet<StageStatus> = new Set(['failed', 'cancelled']);

export class RunTracing {
  readonly #attempt: Span;
  readonly #context: TraceContext;
  readonly #stages = new Map<string, { span: Span; context: TraceContext }>();
  /** Set when this attempt starts the run's trace: the executor records it in the log. */
  readonly newTraceparent: string | undefined;

  /**
   * Starts the attempt's span: under the run's recorded trace when `events` hold one, else (a
   * child run's first attempt) under the stage that created the run.
   */
  constructor(run: RunRecord, events: readonly RunEvent[]) {
    const recorded = events.findLast((event) => event.type === ENGINE_EVENT.traceStarted)?.payload.traceparent;
    const parent = contextOfTraceparent(typeof recorded === 'string' ? recorded : run.labels[PARENT_TRACE_LABEL]);
    this.#attempt = startSpan(
      `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW} ${run.workflow}`,
      {
        attributes: {
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
          [ATTR_GEN_AI_WORKFLOW_NAME]: run.workflow,
          'weft.run.id': run.id,
          'weft.run.attempt': run.attempt,
          'weft.run.resumed': typeof recorded === 'string',
          ...(run.parentId === undefined ? {} : { 'weft.run.parent_id': run.parentId }),
          ...(run.lease ? { 'weft.runner.id': run.lease.workerId } : {}),
        },
      },
      parent,
    );
    this.#context = contextWith(this.#attempt, parent);
    this.newTraceparent = typeof recorded === 'string' ? undefined : traceparentOf(this.#attempt);
  }

  stageStarted(stageId: string, node: { name: string; kind: string }, attempt: number): void {
    const span = startSpan(
      `stage ${node.name}`,
      {
        attributes: { 'weft.stage.id': stageId, 'weft.stage.node': node.name, 'weft.stage.kind': node.kind, 'weft.stage.attempt': attempt },
      },
      this.#context,
    );
    this.#stages.set(stageId, { span, context: contextWith(span, this.#context) });
  }

  /** Where a stage's own spans (agent, model turns, tool calls) go. */
  contextOf(stageId: string): TraceContext {
    return this.#stages.get(stageId)?.context ?? this.#context;
  }

  /** A sandbox refusal, as an event on the stage's span (else the attempt's). */
  violation(stageId: string | undefined, attributes: Record<string, string | number>): void {
    const span = (stageId === undefined ? undefined : this.#stages.get(stageId)?.span) ?? this.#attempt;
    span.addEvent('weft.sandbox.violation', safeAttributes(attributes));
  }

  stageFinished(stageId: string, status: StageStatus, error: string | null): void {
    const stage = this.#stages.get(stageId);
    if (!stage) return;
    this.#stages.delete(stageId);
    setSpanAttributes(stage.span, { 'weft.stage.status': status });
    if (FAILED_STAGE.has(status)) recordFailure(stage.span, `stage_${status}`, error ?? status);
    stage.span.end();
  }

  /** Ends the attempt (and any stage span a lost lease left open) with the status the run reached. */
  end(status: RunStatus, reason: string | undefined): void {
    for (const stageId of [...this.#stages.keys()]) this.stageFinished(stageId, 'abandoned', null);
    setSpanAttributes(this.#attempt, { 'weft.run.status': status });
    if (FAILED_RUN.has(status)) recordFailure(this.#attempt, `run_${status}`, reason ?? status);
    this.#attempt.end();
  }
}
