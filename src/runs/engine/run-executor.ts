/**
 * Executes one run that this runner has claimed: replays its log to find where it
 * stands, then starts every runnable token's stage (concurrently for parallel branches),
 * records each stage's start and end, follows edges, retries with backoff, and ends the
 * run — or stops when asked to cancel or interrupt. Every step is an event, written
 * before the run moves on, so another runner can pick up from the log alone.
 */
import { BudgetGuard, combineBudgets, effectiveBudget, type BudgetGuardDeps } from './budget-guard.js';
import { ENGINE_EVENT, RUN_EVENT, type SandboxViolationPayload, type StageStartedPayload } from '../model/event-types.js';
import { errorMessage, WeftError } from '../../core/errors.js';
import type { ApprovalPrompt } from '../../tools/tool-executor.js';
import type { CallOrigin } from '../../tools/tool.js';
import type { JsonValue } from '../model/json.js';
import type { NewRunEvent, RunEvent } from '../model/run-event.js';
import type { RunRecord } from '../model/run-record.js';
import type { RunStatus } from '../model/run-status.js';
import { loadWorkflow, type StageOutcome, type Workflow, type WorkflowContext, type WorkflowNode } from '../workflow/index.js';
import { replay, stageId as makeStageId, type ExecutionState, type InflightStage, type Token } from './execution-state.js';
import { dryRunNode, executeNode } from './node-executors.js';
import { nextNodes, retryDelayMs } from './next-nodes.js';
import { abortableDelay } from './nodes/abortable-delay.js';
import { HeldStarts } from './held-starts.js';
import { RunControl } from './run-control.js';
import type { EngineServices, RunBridge, RunSandboxFactory, RunToolbox, RunToolboxFactory, StageResult, StageRun } from './stage-context.js';
import { describeViolation, type PreparedSandbox, type SandboxViolation } from '../../core/sandbox/index.js';
import { askApprovalQuestion } from './approval-question.js';
import { endAbandonedGroup } from './abandoned-group.js';
import { askStageQuestion, type StageQuestionDeps } from './stage-question.js';
import { eventsOf } from '../store/event-pages.js';
import { RunTracing } from './run-tracing.js';
import { CHECKPOINTED_KINDS, inPlaceFiles, openRunFiles, type RunFiles, type WorkspaceHost } from './run-files.js';
import { stageFinishedEvents, type StageFinish } from './stage-finish.js';
import { stageRuns } from './stage-runs.js';
import type { RunStore } from '../store/run-store.js';

export interface RunExecutorDeps extends Omit<EngineServices, 'toolbox' | 'runs' | 'sandbox'> {
  /** The executor's own: stages get `stageRuns` over it, never the store. */
  store: RunStore;
  toolboxFactory: RunToolboxFactory;
  /** Absent: runs are never sandboxed (tests of the engine alone). */
  sandboxFactory?: RunSandboxFactory;
  /** Aborts when the runner lost its lease: stop at once and write nothing more. */
  leaseLost: AbortSignal;
  /** The runner whose lease every append is made under; the store refuses it once another runner took the run over. */
  leaseOwner?: string;
  /** Where this host keeps run workspaces; without it every run works in its cwd (in place). */
  workspaces?: WorkspaceHost;
}

/** Kinds whose in-flight stage a new runner continues in place instead of starting again. */
const RESUMED_IN_PLACE = new Set(['human', 'child', 'wait']);

type StopReason = 'cancel' | 'interrupt';



/** Why the run loop stops waiting for control events: a stage ended. */
const LOOP_WOKEN = 'a stage ended';

export class RunExecutor {
  readonly #deps: RunExecutorDeps;
  #run: RunRecord;
  #status: RunStatus;
  #workflow!: Workflow;
  #state!: ExecutionState;
  #control!: RunControl;
  #toolbox: Promise<RunToolbox> | undefined;
  #sandbox: PreparedSandbox | undefined;
  readonly #running = new Map<string, { promise: Promise<void>; controller: AbortController }>();
  // A plain copy: templates read only plain objects, and Node 20's `process.env` is not one.
  readonly #env: Record<string, string | undefined> = { ...process.env };
  #blockedStages = 0;
  #stopReason: StopReason | undefined;
  #tracing!: RunTracing;
  /** Why the run ended, for the attempt's span. */
  #endReason: string | undefined;
  readonly #heldStarts = new HeldStarts();
  #files!: RunFiles;

  readonly #services: EngineServices;

  constructor(run: RunRecord, deps: RunExecutorDeps) {
    this.#run = run;
    this.#status = run.status;
    this.#deps = deps;
    const { logger, clock, newId, agent, wakeRunners, pollMs } = deps;
    this.#services = { runs: stageRuns(deps.store, run.id, clock), logger, clock, newId, agent, wakeRunners, pollMs, toolbox: () => this.#toolboxFor(), sandbox: () => this.#sandbox };
  }

  async execute(): Promise<void> {
    const events: RunEvent[] = [];
    for await (const event of eventsOf(this.#deps.store, this.#run.id)) events.push(event);
    this.#tracing = new RunTracing(this.#run, events);
    try {
      await this.#attempt(events);
    } finally {
      this.#tracing.end(this.#status, this.#endReason);
    }
  }

  async #attempt(events: RunEvent[]): Promise<void> {
    try {
      this.#workflow = await loadWorkflow(this.#run.workflowPath);
    } catch (error) {
      await this.#moveTo('starting');
      await this.#finishRun('failed', `workflow ${this.#run.workflowPath} cannot be loaded: ${errorMessage(error)}`);
      return;
    }
    this.#state = replay(events, this.#workflow.start);
    // Control requests count from the start of this attempt: a cancel before a retry is history.
    this.#control = new RunControl(this.#deps.store, this.#run.id, this.#state.attemptStartSeq, this.#deps.pollMs);
    this.#control.start(events);
    try {
      const traceparent = this.#tracing.newTraceparent;
      if (traceparent !== undefined) await this.#append([{ type: ENGINE_EVENT.traceStarted, payload: { traceparent } }]);
      // A new run goes queued → starting → running; a resumed one carries on from where it was
      // (a blocked stage blocks the run again itself; a paused run waits for resume).
      if (this.#status === 'queued') {
        // Both moves in one commit: nothing happens between them.
        await this.#append([{ type: RUN_EVENT.runStatusChanged, payload: { from: 'queued', to: 'starting' } }, { type: RUN_EVENT.runStatusChanged, payload: { from: 'starting', to: 'running' } }]);
        this.#status = 'running';
      }
      else if (this.#status === 'starting' || this.#status === 'blocked') await this.#moveTo('running');
      if (!(await this.#openFiles(events))) return;
      if (!(await this.#prepareSandbox())) return;
      await this.#loop();
    } finally {
      this.#control.stop();
      for (const { controller } of this.#running.values()) controller.abort();
      await Promise.allSettled([...this.#running.values()].map((entry) => entry.promise));
      if (this.#toolbox) await (await this.#toolbox.catch(() => undefined))?.close().catch(() => undefined);
      await this.#sandbox?.dispose();
    }
  }

  /** The run's sandbox around its workspace; one that cannot be made fails the run before any stage, never running it unsandboxed. */
  async #prepareSandbox(): Promise<boolean> {
    try {
      this.#sandbox = await this.#deps.sandboxFactory?.(this.#run, this.#workflow, (violation) => void this.#reportViolation(violation), this.#files.workDir);
      return true;
    } catch (error) {
      if (this.#deps.leaseLost.aborted) return false;
      await this.#finishRun('failed', errorMessage(error));
      return false;
    }
  }

  /** The run's files on this host, reset to the last checkpoint before any stage runs; a workspace that cannot be opened fails the run. */
  async #openFiles(events: RunEvent[]): Promise<boolean> {
    const host = this.#deps.workspaces;
    if (host === undefined || this.#run.dryRun) {
      this.#files = inPlaceFiles(this.#run);
      return true;
    }
    try {
      this.#files = await openRunFiles(this.#run, events, host, (recorded) => this.#append(recorded));
      return true;
    } catch (error) {
      if (this.#deps.leaseLost.aborted) return false;
      await this.#finishRun('failed', `the run's workspace cannot be opened on this host: ${errorMessage(error)}`);
      return false;
    }
  }

  /** A sandbox refusal, on the stage started last (the proxy cannot tell which process asked). */
  async #reportViolation(violation: SandboxViolation): Promise<void> {
    const { kind, setting } = violation;
    const payload: SandboxViolationPayload = { kind, setting, message: describeViolation(violation), ...(violation.kind === 'network' ? { host: violation.host, port: violation.port } : { path: violation.path }) };
    this.#tracing.violation(this.#stageOf(undefined), { 'weft.sandbox.kind': kind, 'weft.sandbox.setting': setting, 'weft.sandbox.refused': violation.kind === 'network' ? `${violation.host}:${violation.port}` : violation.path });
    await this.#bridge()
      .emit([{ type: ENGINE_EVENT.sandboxViolation, payload }])
      .catch((error: unknown) => this.#deps.logger.warn(`could not record a sandbox violation of ${this.#run.id}: ${errorMessage(error)}`));
  }

  async #loop(): Promise<void> {
    await this.#resumeInflight();
    for (;;) {
      if (this.#deps.leaseLost.aborted) return;
      await this.#control.catchUp();
      if (this.#control.cancelRequested) return this.#stop('cancel');
      if (this.#control.interruptRequested && this.#status !== 'paused') {
        await this.#stop('interrupt');
        if (this.#control.cancelRequested) return this.#stop('cancel');
        continue;
      }
      if (this.#status === 'paused') {
        if (!this.#control.interruptRequested) await this.#moveTo(this.#blockedStages > 0 ? 'blocked' : 'running');
        else {
          await this.#control.next(this.#deps.leaseLost);
          continue;
        }
      }
      this.#startRunnable();
      if (this.#running.size === 0) return this.#conclude();
      const waker = new AbortController();
      await Promise.race([...[...this.#running.values()].map((entry) => entry.promise), this.#control.next(AbortSignal.any([waker.signal, this.#deps.leaseLost]))]);
      // A reason of our own: without one, every abort builds a DOMException.
      waker.abort(LOOP_WOKEN);
    }
  }

  /** Continues stages a lost runner left in flight: some in place, the rest as a new attempt. */
  async #resumeInflight(): Promise<void> {
    for (const stage of [...this.#state.inflight.values()]) {
      const node = this.#workflow.nodes[stage.node];
      if (node && RESUMED_IN_PLACE.has(node.kind)) {
        this.#launch(stage, node, true);
        continue;
      }
      if (stage.process && !(await endAbandonedGroup(stage.stageId, stage.process, this.#deps.logger))) {
        const error = `runner lost, and its process group ${stage.process.pgid} survived SIGKILL; the stage is not run again while it lives`;
        await this.#recordFinish(stage, { result: { status: 'failed', error }, status: 'failed', apply: () => this.#failToken(stage, error) });
        continue;
      }
      await this.#recordFinish(stage, { result: { status: 'failed', error: 'runner lost; the stage runs again' }, status: 'abandoned' });
      this.#state.pending.push({ node: stage.node, from: stage.from });
    }
  }

  #startRunnable(): void {
    const waiting: Token[] = [];
    for (const token of this.#state.pending.splice(0)) {
      const node = this.#workflow.nodes[token.node];
      if (!node) {
        this.#state.failed.push({ ...token, stageId: `${token.node}@0`, error: `node '${token.node}' is not in the workflow (was the file changed?)` });
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
    this.#state.pending.push(...waiting);
  }

  #joinArrivals(join: string): number {
    const parallel = Object.values(this.#workflow.nodes).find((node) => node.kind === 'parallel' && node.join === join);
    return parallel?.kind === 'parallel' ? parallel.branches.length : 1;
  }

  #begin(node: WorkflowNode, from: string | null, consumed: number): void {
    const attempt = (this.#state.attempts.get(node.name) ?? 0) + 1;
    this.#state.attempts.set(node.name, attempt);
    const stage: InflightStage = { stageId: makeStageId(node.name, attempt), node: node.name, attempt, firstAttempt: attempt, from, consumed };
    this.#state.inflight.set(stage.stageId, stage);
    this.#launch(stage, node, false);
  }

  #launch(stage: InflightStage, node: WorkflowNode, resumed: boolean): void {
    const controller = new AbortController();
    const promise = this.#runStage(stage, node, resumed, controller.signal)
      .catch((error: unknown) => this.#deps.logger.error(`stage ${stage.stageId} of run ${this.#run.id} could not be recorded: ${errorMessage(error)}`))
      .finally(() => this.#running.delete(stage.stageId));
    this.#running.set(stage.stageId, { promise, controller });
  }

  async #runStage(first: InflightStage, node: WorkflowNode, resumed: boolean, signal: AbortSignal): Promise<void> {
    let stage = first;
    let skipStart = resumed;
    for (;;) {
      if (!skipStart) {
        const payload: StageStartedPayload = { node: node.name, kind: node.kind, attempt: stage.attempt, from: stage.from, consumed: stage.consumed };
        const started: NewRunEvent = { type: ENGINE_EVENT.stageStarted, stageId: stage.stageId, payload };
        if (!this.#heldStarts.hold(node.kind, started)) await this.#append([started]);
      }
      skipStart = false;
      this.#tracing.stageStarted(stage.stageId, node, stage.attempt);
      const startedAt = this.#deps.clock();
      const executed = await this.#execute(stage, node, signal);
      const interrupted = signal.aborted && this.#stopReason === 'interrupt';
      const result = interrupted ? executed : await this.#checkpoint(stage, node, executed);
      const durationMs = this.#deps.clock() - startedAt;
      if (interrupted) {
        return this.#recordFinish(stage, { result, status: 'interrupted', durationMs, apply: () => this.#state.pending.push({ node: node.name, from: stage.from }) });
      }
      const retry = 'retry' in node ? node.retry : undefined;
      if (result.status === 'failed' && retry && stage.attempt < this.#firstAttempt(stage) + retry.attempts - 1 && !signal.aborted) {
        await this.#recordFinish(stage, { result, status: 'failed', retrying: true, durationMs });
        if (!(await abortableDelay(retryDelayMs(retry, stage.attempt - this.#firstAttempt(stage) + 1), signal))) {
          return this.#recordFinish(stage, { result: { status: 'cancelled', error: 'Cancelled' }, status: 'cancelled', apply: () => this.#failToken(stage, 'Cancelled') });
        }
        const attempt = (this.#state.attempts.get(node.name) ?? stage.attempt) + 1;
        this.#state.attempts.set(node.name, attempt);
        this.#state.inflight.delete(stage.stageId);
        stage = { ...stage, stageId: makeStageId(node.name, attempt), attempt };
        this.#state.inflight.set(stage.stageId, stage);
        continue;
      }
      const outcome = this.#outcome(result);
      // A branch routes on the stage that led to it: `status` in its conditions is that stage's.
      const incoming = stage.from ? this.#state.outcomes.get(stage.from) : undefined;
      const routing = node.kind === 'branch' && incoming ? { ...outcome, status: incoming.status } : outcome;
      const step = nextNodes(node, result, routing, this.#context());
      const apply = () => {
        this.#state.outcomes.set(node.name, outcome);
        for (const next of step.next) this.#state.pending.push({ node: next, from: node.name });
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
    if (!CHECKPOINTED_KINDS.has(node.kind) || this.#deps.leaseLost.aborted) return result;
    try {
      const made = await this.#files.checkpoint(node.name, stage.attempt);
      return made === null ? result : { ...result, finalEvents: [...(result.finalEvents ?? []), made] };
    } catch (error) {
      const errorCode = error instanceof WeftError ? error.code : undefined;
      return { ...result, status: 'failed', error: `checkpoint of ${stage.stageId} failed: ${errorMessage(error)}`, ...(errorCode === undefined ? {} : { errorCode }) };
    }
  }

  /** The attempt number a retry series began with (loops reuse a node with higher numbers). */
  #firstAttempt(stage: InflightStage): number {
    return stage.firstAttempt;
  }

  #failToken(stage: InflightStage, error: string): void {
    this.#state.failed.push({ node: stage.node, from: stage.from, stageId: stage.stageId, error });
  }

  async #execute(stage: InflightStage, node: WorkflowNode, signal: AbortSignal): Promise<StageResult> {
    const timeoutMs = node.kind !== 'command' && 'timeoutMs' in node ? node.timeoutMs : undefined;
    const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const stageSignal = timeout ? AbortSignal.any([signal, timeout]) : signal;
    const stageRun = this.#stageRun(stage, node, stageSignal);
    try {
      const result = await (this.#run.dryRun ? dryRunNode(stageRun) : executeNode(stageRun));
      if (timeout?.aborted && !signal.aborted) return { ...result, status: 'failed', error: `Stage timed out after ${Math.round(timeoutMs! / 1000)}s` };
      return result;
    } catch (error) {
      if (signal.aborted) return { status: 'cancelled', error: 'Cancelled' };
      if (timeout?.aborted) return { status: 'failed', error: `Stage timed out after ${Math.round(timeoutMs! / 1000)}s` };
      return { status: 'failed', error: errorMessage(error) };
    }
  }

  #stageRun(stage: InflightStage, node: WorkflowNode, signal: AbortSignal): StageRun {
    const question = this.#state.questions.get(stage.stageId);
    const emit = (events: NewRunEvent[]) => this.#append(events.map((event) => ({ ...event, stageId: event.stageId ?? stage.stageId })));
    const runBudget = effectiveBudget(this.#workflow.run.budget, this.#run.budget);
    const stageBudget = 'budget' in node ? node.budget : undefined;
    const guardDeps: BudgetGuardDeps = {
      store: this.#deps.store,
      clock: this.#deps.clock,
      question: { append: emit, control: this.#control, newId: this.#deps.newId, whileBlocked: (work) => this.#whileBlocked(work), stageId: stage.stageId },
    };
    const budget = combineBudgets([
      runBudget && new BudgetGuard(this.#run, runBudget, guardDeps),
      stageBudget && new BudgetGuard(this.#run, stageBudget, guardDeps, { kind: 'stage', node: node.name }),
    ]);
    return {
      ...(budget === undefined ? {} : { budget }),
      run: this.#run,
      workDir: this.#files.workDir,
      workflow: this.#workflow,
      node,
      stageId: stage.stageId,
      attempt: stage.attempt,
      context: { ...this.#context(), last: stage.from ? this.#state.outcomes.get(stage.from) : undefined },
      signal,
      control: this.#control,
      services: this.#services,
      emit,
      hold: (events) => this.#heldStarts.holdAlong(stage.stageId, events),
      whileBlocked: (work) => this.#whileBlocked(work),
      traceContext: this.#tracing.contextOf(stage.stageId),
      resume: {
        childId: this.#state.children.get(stage.stageId),
        questionId: question?.questionId,
        ...(question && 'answer' in question ? { answer: question.answer as JsonValue } : {}),
      },
    };
  }

  #toolboxFor(): Promise<RunToolbox> {
    const ask: ApprovalPrompt = (call, tool, signal, origin) => askApprovalQuestion(call, tool, signal, this.#questionDeps(origin));
    this.#toolbox ??= this.#deps.toolboxFactory(this.#run, this.#workflow, ask, this.#bridge(), this.#files.workDir, this.#sandbox);
    return this.#toolbox;
  }

  /** Questions of tools (approvals, elicitation, sampling) land on the stage whose call asks. */
  #questionDeps(origin: CallOrigin | undefined): StageQuestionDeps {
    return { append: (events) => this.#append(events), control: this.#control, newId: this.#deps.newId, whileBlocked: (work) => this.#whileBlocked(work), stageId: this.#stageOf(origin) };
  }

  /**
   * The stage a call's question or event belongs to: the call's own while it is in flight;
   * for a request no call carries (a server asking on its own), the stage started last.
   */
  #stageOf(origin: CallOrigin | undefined): string | undefined {
    if (origin !== undefined && origin.runId === this.#run.id && this.#state.inflight.has(origin.stageId)) return origin.stageId;
    return [...this.#state.inflight.keys()].at(-1);
  }

  #bridge(): RunBridge {
    return {
      ask: (question, signal, origin) => askStageQuestion(question, signal, this.#questionDeps(origin)),
      emit: async (events, origin) => {
        const stageId = this.#stageOf(origin);
        await this.#append(events.map((event) => (event.stageId === undefined && stageId !== undefined ? { ...event, stageId } : event)));
      },
    };
  }

  #context(): WorkflowContext {
    return {
      inputs: this.#run.inputs,
      stages: Object.fromEntries(this.#state.outcomes),
      env: this.#env,
      run: { id: this.#run.id, goal: this.#run.goal },
    };
  }

  #outcome(result: StageResult): StageOutcome {
    return { status: result.status, output: result.output, exit_code: result.exitCode ?? null, answer: result.answer };
  }

  async #recordFinish(stage: InflightStage, finish: StageFinish): Promise<void> {
    const { events, error } = stageFinishedEvents(stage, finish);
    await this.#append(events);
    this.#tracing.stageFinished(stage.stageId, finish.status, error);
    if (!finish.retrying) this.#state.inflight.delete(stage.stageId);
    finish.apply?.();
  }

  async #whileBlocked<T>(work: () => Promise<T>): Promise<T> {
    this.#blockedStages += 1;
    if (this.#blockedStages === 1 && this.#status === 'running') await this.#moveTo('blocked');
    try {
      return await work();
    } finally {
      this.#blockedStages -= 1;
      if (this.#blockedStages === 0 && this.#status === 'blocked' && !this.#deps.leaseLost.aborted) await this.#moveTo('running').catch(() => undefined);
    }
  }

  /** Stops every stage for a cancel (the run ends) or an interrupt (the run pauses; stages rerun on resume). */
  async #stop(reason: StopReason): Promise<void> {
    this.#stopReason = reason;
    for (const { controller } of this.#running.values()) controller.abort();
    await Promise.allSettled([...this.#running.values()].map((entry) => entry.promise));
    this.#stopReason = undefined;
    if (reason === 'interrupt') return this.#moveTo('paused', 'interrupted');
    return this.#finishRun('cancelled', this.#control.cancelReason ?? 'cancelled on request');
  }

  async #conclude(): Promise<void> {
    if (this.#state.failed.length > 0) {
      const failure = this.#state.failed[0]!;
      return this.#finishRun(failure.error === 'Cancelled' ? 'cancelled' : 'failed', failure.error ?? `stage ${failure.stageId} failed`);
    }
    if (this.#state.pending.length > 0) {
      const stuck = [...new Set(this.#state.pending.map((token) => token.node))].join(', ');
      return this.#finishRun('failed', `the run cannot go on: ${stuck} waits for branches that ended elsewhere`);
    }
    return this.#finishRun('succeeded');
  }

  async #finishRun(to: 'succeeded' | 'failed' | 'cancelled', reason?: string): Promise<void> {
    this.#endReason = reason;
    await this.#moveTo(to, reason);
  }

  async #moveTo(to: RunStatus, reason?: string): Promise<void> {
    if (this.#status === to) return;
    if (to === 'starting' && this.#status !== 'queued') return;
    await this.#append([{ type: RUN_EVENT.runStatusChanged, payload: { from: this.#status, to, ...(reason ? { reason } : {}) } }]);
    this.#status = to;
  }

  async #append(events: NewRunEvent[]): Promise<RunEvent[]> {
    if (this.#deps.leaseLost.aborted) throw new WeftError('RUN_LEASE_LOST', `runner lost its lease on run ${this.#run.id}; another runner owns it now`, { data: { runId: this.#run.id } });
    const appended = await this.#deps.store.appendEvents(this.#run.id, this.#heldStarts.placeIn(events), this.#deps.leaseOwner === undefined ? undefined : { leaseOwner: this.#deps.leaseOwner });
    this.#state.lastSeq = appended.at(-1)?.seq ?? this.#state.lastSeq;
    this.#control.skipOwn(appended);
    return appended;
  }
}
