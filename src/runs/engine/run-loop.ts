/**
 * The scheduling loop of one attempt: continues the stages a lost runner left in flight,
 * starts every runnable token's stage (concurrently for parallel branches, a join once all
 * its branches arrived), records each stage's end, follows edges, retries with backoff,
 * stops on cancel or interrupt, and ends the run when nothing is left to run.
 */
import { linkedAbort } from '../../core/linked-abort.js';
import { errorMessage, WeftError } from '../../core/errors.js';
import { ENGINE_EVENT, type StageStartedPayload } from '../model/event-types.js';
import type { NewRunEvent } from '../model/run-event.js';
import type { StageOutcome, WorkflowNode } from '../workflow/index.js';
import { endAbandonedGroup } from './abandoned-group.js';
import { stageId as makeStageId, type InflightStage, type Token } from './execution-state.js';
import { nextNodes, retryDelayMs } from './next-nodes.js';
import { abortableDelay } from './nodes/abortable-delay.js';
import type { RunAttempt } from './run-attempt.js';
import { CHECKPOINTED_KINDS } from './run-files.js';
import type { StageResult } from './stage-context.js';
import { stageFinishedEvents, type StageFinish } from './stage-finish.js';
import { StagePorts } from './stage-ports.js';
import { withDiskFullNote } from './disk-full.js';

/** Kinds whose in-flight stage a new runner continues in place instead of starting again. */
const RESUMED_IN_PLACE = new Set(['human', 'child', 'wait']);

/**
 * A stage whose runner was lost this many times in a row fails instead of running again: a
 * stage that takes its runner down (or whose end cannot be recorded, a full disk) must not
 * be rerun by every runner that takes the run over.
 */
export const MAX_STAGE_TAKEOVERS = 3;

/** Why the run loop stops waiting for control events: a stage ended. */
const LOOP_WOKEN = 'a stage ended';

type StopReason = 'cancel' | 'interrupt';

export class RunLoop {
  readonly #attempt: RunAttempt;
  readonly #ports: StagePorts;
  readonly #running = new Map<string, { promise: Promise<void>; controller: AbortController }>();
  #stopReason: StopReason | undefined;
  /**
   * A stage's end the store refused (a full disk, a store gone): the log no longer says what
   * happened, and concluding from it would end the run without that stage. The run stops here,
   * records nothing more, and whoever resumes it replays the log and runs the stage again.
   */
  #unrecorded: WeftError | undefined;

  constructor(attempt: RunAttempt) {
    this.#attempt = attempt;
    this.#ports = new StagePorts(attempt);
  }

  async run(): Promise<void> {
    const { deps, control, log } = this.#attempt;
    await this.#resumeInflight();
    for (;;) {
      if (deps.leaseLost.aborted) return;
      if (this.#unrecorded) throw this.#unrecorded;
      await control.catchUp();
      if (control.cancelRequested) return this.#stop('cancel');
      if (control.interruptRequested && log.status !== 'paused') {
        await this.#stop('interrupt');
        if (control.cancelRequested) return this.#stop('cancel');
        continue;
      }
      if (log.status === 'paused') {
        if (!control.interruptRequested) await log.moveTo(log.blocked ? 'blocked' : 'running');
        else {
          await control.next(deps.leaseLost);
          continue;
        }
      }
      this.#startRunnable();
      if (this.#running.size === 0) return this.#conclude();
      // Every turn of the loop waits here: the attempt's lost-lease signal must not gather a dependant each time.
      const waker = linkedAbort(deps.leaseLost);
      try {
        await Promise.race([...[...this.#running.values()].map((entry) => entry.promise), control.next(waker.signal)]);
      } finally {
        waker.dispose();
        // A reason of our own: without one, every abort builds a DOMException.
        waker.abort(LOOP_WOKEN);
      }
    }
  }

  /** Aborts the stages still running, waits for them, and closes the toolbox. */
  async close(): Promise<void> {
    for (const { controller } of this.#running.values()) controller.abort();
    await Promise.allSettled([...this.#running.values()].map((entry) => entry.promise));
    await this.#ports.close();
  }

  /** Continues stages a lost runner left in flight: some in place, the rest as a new attempt. */
  async #resumeInflight(): Promise<void> {
    const { workflow, state, deps } = this.#attempt;
    for (const stage of [...state.inflight.values()]) {
      const node = workflow.nodes[stage.node];
      if (node && RESUMED_IN_PLACE.has(node.kind)) {
        this.#launch(stage, node, true);
        continue;
      }
      const takeovers = (state.abandoned.get(stage.node) ?? 0) + 1;
      if (takeovers > MAX_STAGE_TAKEOVERS) {
        const error = `the runner of ${stage.node} was lost ${takeovers} times in a row while the stage ran (a stage that takes its runner down, or whose end could not be recorded: a full disk?); it is not run again`;
        await this.#recordFinish(stage, {
          result: { status: 'failed', error },
          status: 'failed',
          apply: () => this.#failToken(stage, error),
        });
        continue;
      }
      if (stage.process && !(await endAbandonedGroup(stage.stageId, stage.process, deps.logger))) {
        const error = `runner lost, and its process group ${stage.process.pgid} survived SIGKILL; the stage is not run again while it lives`;
        await this.#recordFinish(stage, {
          result: { status: 'failed', error },
          status: 'failed',
          apply: () => this.#failToken(stage, error),
        });
        continue;
      }
      await this.#recordFinish(stage, { result: { status: 'failed', error: 'runner lost; the stage runs again' }, status: 'abandoned' });
      state.pending.push({ node: stage.node, from: stage.from });
    }
  }

  #startRunnable(): void {
    const { workflow, state } = this.#attempt;
    const waiting: Token[] = [];
    for (const token of state.pending.splice(0)) {
      const node = workflow.nodes[token.node];
      if (!node) {
        state.failed.push({
          ...token,
          stageId: `${token.node}@0`,
          error: `node '${token.node}' is not in the workflow (was the file changed?)`,
        });
        continue;
      }
      if (node.kind === 'join') {
        const expected = this.#joinArrivals(node.name);
        const arrived = [...waiting, token].filter((entry) => entry.node === node.name).length;
        if (arrived < expected) {
          waiting.push(token);
          continue;
        }
        for (let index = waiting.length - 1; index >= 0; index -= 1) if (waiting[index]!.node === node.name) waiting.splice(index, 1);
        this.#begin(node, token.from, expected);
        continue;
      }
      this.#begin(node, token.from, 1);
    }
    state.pending.push(...waiting);
  }

  #joinArrivals(join: string): number {
    const parallel = Object.values(this.#attempt.workflow.nodes).find((node) => node.kind === 'parallel' && node.join === join);
    return parallel?.kind === 'parallel' ? parallel.branches.length : 1;
  }

  #begin(node: WorkflowNode, from: string | null, consumed: number): void {
    const { state } = this.#attempt;
    const attempt = (state.attempts.get(node.name) ?? 0) + 1;
    state.attempts.set(node.name, attempt);
    const stage: InflightStage = {
      stageId: makeStageId(node.name, attempt),
      node: node.name,
      attempt,
      firstAttempt: attempt,
      from,
      consumed,
    };
    state.inflight.set(stage.stageId, stage);
    this.#launch(stage, node, false);
  }

  #launch(stage: InflightStage, node: WorkflowNode, resumed: boolean): void {
    const controller = new AbortController();
    const promise = this.#runStage(stage, node, resumed, controller.signal)
      .catch((error: unknown) => {
        const { deps, run } = this.#attempt;
        deps.logger.error(`stage ${stage.stageId} of run ${run.id} could not be recorded: ${errorMessage(error)}`);
        if (deps.leaseLost.aborted || WeftError.is(error, 'RUN_LEASE_LOST')) return;
        this.#unrecorded ??= new WeftError(
          'STORE_FAILED',
          `stage ${stage.stageId} of run ${run.id} could not be recorded: ${errorMessage(error)} This runner stops the run here and records nothing more; a runner started once the store can be written again takes it over.`,
        );
      })
      .finally(() => this.#running.delete(stage.stageId));
    this.#running.set(stage.stageId, { promise, controller });
  }

  async #runStage(first: InflightStage, node: WorkflowNode, resumed: boolean, signal: AbortSignal): Promise<void> {
    const { deps, state, log, heldStarts, tracing } = this.#attempt;
    let stage = first;
    let skipStart = resumed;
    for (;;) {
      if (!skipStart) {
        const payload: StageStartedPayload = {
          node: node.name,
          kind: node.kind,
          attempt: stage.attempt,
          from: stage.from,
          consumed: stage.consumed,
        };
        const started: NewRunEvent = { type: ENGINE_EVENT.stageStarted, stageId: stage.stageId, payload };
        if (!heldStarts.hold(node.kind, started)) await log.append([started]);
      }
      skipStart = false;
      tracing.stageStarted(stage.stageId, node, stage.attempt);
      const startedAt = deps.clock();
      const executed = await this.#ports.execute(stage, node, signal);
      const interrupted = signal.aborted && this.#stopReason === 'interrupt';
      const result = interrupted ? executed : await this.#checkpoint(stage, node, executed);
      const durationMs = deps.clock() - startedAt;
      if (interrupted) {
        return this.#recordFinish(stage, {
          result,
          status: 'interrupted',
          durationMs,
          apply: () => state.pending.push({ node: node.name, from: stage.from }),
        });
      }
      const retry = 'retry' in node ? node.retry : undefined;
      // The attempt number a retry series began with (loops reuse a node with higher numbers).
      const firstAttempt = stage.firstAttempt;
      if (result.status === 'failed' && retry && stage.attempt < firstAttempt + retry.attempts - 1 && !signal.aborted) {
        await this.#recordFinish(stage, { result, status: 'failed', retrying: true, durationMs });
        if (!(await abortableDelay(retryDelayMs(retry, stage.attempt - firstAttempt + 1), signal))) {
          return this.#recordFinish(stage, {
            result: { status: 'cancelled', error: 'Cancelled' },
            status: 'cancelled',
            apply: () => this.#failToken(stage, 'Cancelled'),
          });
        }
        const attempt = (state.attempts.get(node.name) ?? stage.attempt) + 1;
        state.attempts.set(node.name, attempt);
        state.inflight.delete(stage.stageId);
        stage = { ...stage, stageId: makeStageId(node.name, attempt), attempt };
        state.inflight.set(stage.stageId, stage);
        continue;
      }
      const outcome = outcomeOf(result);
      // A branch routes on the stage that led to it: `status` in its conditions is that stage's.
      const incoming = stage.from ? state.outcomes.get(stage.from) : undefined;
      const routing = node.kind === 'branch' && incoming ? { ...outcome, status: incoming.status } : outcome;
      const step = nextNodes(node, result, routing, this.#ports.context());
      const apply = () => {
        state.outcomes.set(node.name, outcome);
        for (const next of step.next) state.pending.push({ node: next, from: node.name });
        if (step.error !== null) this.#failToken(stage, step.error);
      };
      return this.#recordFinish(stage, { result, status: result.status, next: step.next, durationMs, apply, runError: step.error });
    }
  }

  /**
   * Commits what the stage changed, recorded just before its `stage-finished` in the same
   * append: a finished stage always names its checkpoint, and a runner lost in between runs
   * the stage again on the reset files. A checkpoint that fails (history rewritten, push
   * refused) fails the stage with git's message.
   */
  async #checkpoint(stage: InflightStage, node: WorkflowNode, result: StageResult): Promise<StageResult> {
    if (!CHECKPOINTED_KINDS.has(node.kind) || this.#attempt.deps.leaseLost.aborted) return result;
    try {
      const made = await this.#attempt.files.checkpoint(node.name, stage.attempt);
      return made === null ? result : { ...result, finalEvents: [...(result.finalEvents ?? []), made] };
    } catch (error) {
      const errorCode = error instanceof WeftError ? error.code : undefined;
      return {
        ...result,
        status: 'failed',
        error: `checkpoint of ${stage.stageId} failed: ${await withDiskFullNote(this.#attempt.files.workDir, error)}`,
        ...(errorCode === undefined ? {} : { errorCode }),
      };
    }
  }

  #failToken(stage: InflightStage, error: string): void {
    this.#attempt.state.failed.push({ node: stage.node, from: stage.from, stageId: stage.stageId, error });
  }

  async #recordFinish(stage: InflightStage, finish: StageFinish): Promise<void> {
    const { events, error } = stageFinishedEvents(stage, finish);
    await this.#attempt.log.append(events);
    this.#attempt.tracing.stageFinished(stage.stageId, finish.status, error);
    if (!finish.retrying) this.#attempt.state.inflight.delete(stage.stageId);
    finish.apply?.();
  }

  /** Stops every stage for a cancel (the run ends) or an interrupt (the run pauses; stages rerun on resume). */
  async #stop(reason: StopReason): Promise<void> {
    this.#stopReason = reason;
    for (const { controller } of this.#running.values()) controller.abort();
    await Promise.allSettled([...this.#running.values()].map((entry) => entry.promise));
    this.#stopReason = undefined;
    const { log, control } = this.#attempt;
    if (reason === 'interrupt') return log.moveTo('paused', 'interrupted');
    return log.finish('cancelled', control.cancelReason ?? 'cancelled on request');
  }

  async #conclude(): Promise<void> {
    const { state, log } = this.#attempt;
    if (state.failed.length > 0) {
      const failure = state.failed[0]!;
      return log.finish(failure.error === 'Cancelled' ? 'cancelled' : 'failed', failure.error ?? `stage ${failure.stageId} failed`);
    }
    if (state.pending.length > 0) {
      const stuck = [...new Set(state.pending.map((token) => token.node))].join(', ');
      return log.finish('failed', `the run cannot go on: ${stuck} waits for branches that ended elsewhere`);
    }
    return log.finish('succeeded');
  }
}

function outcomeOf(result: StageResult): StageOutcome {
  return { status: result.status, output: result.output, exit_code: result.exitCode ?? null, answer: result.answer };
}
