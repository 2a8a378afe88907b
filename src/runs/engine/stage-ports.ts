/**
 * What a stage of one attempt is handed: its `StageRun` (run, node, context, emit, hold,
 * budget, resume state, services) and, shared by the attempt's stages, the toolbox and the
 * bridge its MCP servers ask and emit through. Questions and events of a tool call land on
 * the stage whose call made them. Also runs one stage's node under its timeout.
 */
import { errorMessage } from '../../core/errors.js';
import type { ApprovalPrompt } from '../../tools/tool-executor.js';
import type { CallOrigin } from '../../tools/tool.js';
import type { JsonValue } from '../model/json.js';
import type { NewRunEvent } from '../model/run-event.js';
import type { WorkflowContext, WorkflowNode } from '../workflow/index.js';
import { askApprovalQuestion } from './approval-question.js';
import { BudgetGuard, combineBudgets, effectiveBudget, type BudgetGuardDeps } from './budget-guard.js';
import type { ExecutionState, InflightStage } from './execution-state.js';
import { dryRunNode, executeNode } from './node-executors.js';
import type { RunAttempt } from './run-attempt.js';
import type { EngineServices, RunBridge, RunToolbox, StageResult, StageRun } from './stage-context.js';
import { askStageQuestion, type StageQuestionDeps } from './stage-question.js';
import { stageRuns } from './stage-runs.js';
import { modelCallGate } from './model-call-gate.js';

export class StagePorts {
  readonly #attempt: RunAttempt;
  readonly #services: EngineServices;
  // A plain copy: templates read only plain objects, and Node 20's `process.env` is not one.
  readonly #env: Record<string, string | undefined> = { ...process.env };
  #toolbox: Promise<RunToolbox> | undefined;

  constructor(attempt: RunAttempt) {
    this.#attempt = attempt;
    const { run, deps, sandbox } = attempt;
    const { logger, clock, newId, agent, wakeRunners, pollMs } = deps;
    this.#services = {
      runs: stageRuns(deps.store, run.id, clock),
      logger,
      clock,
      newId,
      agent,
      wakeRunners,
      pollMs,
      toolbox: () => this.#toolboxFor(),
      sandbox: () => sandbox,
      ...(deps.modelCalls === undefined || deps.leaseOwner === undefined
        ? {}
        : {
            modelCalls: modelCallGate({
              store: deps.modelCalls,
              runId: run.id,
              leaseOwner: deps.leaseOwner,
              clock,
              newId,
              logger,
            }),
          }),
    };
  }

  /** Runs the stage's node (or its dry run); a timeout or an error becomes a failed result, an abort a cancelled one. */
  async execute(stage: InflightStage, node: WorkflowNode, signal: AbortSignal): Promise<StageResult> {
    const timeoutMs = node.kind !== 'command' && 'timeoutMs' in node ? node.timeoutMs : undefined;
    const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const stageSignal = timeout ? AbortSignal.any([signal, timeout]) : signal;
    const stageRun = this.#stageRun(stage, node, stageSignal);
    try {
      const result = await (this.#attempt.run.dryRun ? dryRunNode(stageRun) : executeNode(stageRun));
      if (timeout?.aborted && !signal.aborted)
        return { ...result, status: 'failed', error: `Stage timed out after ${Math.round(timeoutMs! / 1000)}s` };
      return result;
    } catch (error) {
      if (signal.aborted) return { status: 'cancelled', error: 'Cancelled' };
      if (timeout?.aborted) return { status: 'failed', error: `Stage timed out after ${Math.round(timeoutMs! / 1000)}s` };
      return { status: 'failed', error: errorMessage(error) };
    }
  }

  context(): WorkflowContext {
    const { run, state } = this.#attempt;
    return { inputs: run.inputs, stages: Object.fromEntries(state.outcomes), env: this.#env, run: { id: run.id, goal: run.goal } };
  }

  /**
   * The stage a call's question or event belongs to: the call's own while it is in flight;
   * for a request no call carries (a server asking on its own), the stage started last.
   */
  stageOf(origin: CallOrigin | undefined): string | undefined {
    const { run, state } = this.#attempt;
    if (origin !== undefined && origin.runId === run.id && state.inflight.has(origin.stageId)) return origin.stageId;
    return lastStarted(state);
  }

  /** Closes the toolbox if a stage opened one. */
  async close(): Promise<void> {
    if (this.#toolbox) await (await this.#toolbox.catch(() => undefined))?.close().catch(() => undefined);
  }

  #stageRun(stage: InflightStage, node: WorkflowNode, signal: AbortSignal): StageRun {
    const { run, deps, workflow, state, control, log, heldStarts, tracing, files } = this.#attempt;
    const question = state.questions.get(stage.stageId);
    const emit = (events: NewRunEvent[]) => log.append(events.map((event) => ({ ...event, stageId: event.stageId ?? stage.stageId })));
    const whileBlocked = <T>(work: () => Promise<T>) => log.whileBlocked(work);
    const runBudget = effectiveBudget(workflow.run.budget, run.budget);
    const stageBudget = 'budget' in node ? node.budget : undefined;
    const guardDeps: BudgetGuardDeps = {
      store: deps.store,
      clock: deps.clock,
      question: { append: emit, control, newId: deps.newId, whileBlocked, stageId: stage.stageId },
    };
    const budget = combineBudgets([
      runBudget && new BudgetGuard(run, runBudget, guardDeps),
      stageBudget && new BudgetGuard(run, stageBudget, guardDeps, { kind: 'stage', node: node.name }),
    ]);
    return {
      ...(budget === undefined ? {} : { budget }),
      run,
      workDir: files.workDir,
      workflow,
      node,
      stageId: stage.stageId,
      attempt: stage.attempt,
      context: { ...this.context(), last: stage.from ? state.outcomes.get(stage.from) : undefined },
      signal,
      control,
      services: this.#services,
      emit,
      hold: (events) => heldStarts.holdAlong(stage.stageId, events),
      whileBlocked,
      traceContext: tracing.contextOf(stage.stageId),
      resume: {
        childId: state.children.get(stage.stageId),
        questionId: question?.questionId,
        ...(question && 'answer' in question ? { answer: question.answer as JsonValue } : {}),
      },
    };
  }

  #toolboxFor(): Promise<RunToolbox> {
    const { run, deps, workflow, files, sandbox } = this.#attempt;
    const ask: ApprovalPrompt = (call, tool, signal, origin) => askApprovalQuestion(call, tool, signal, this.#questionDeps(origin));
    this.#toolbox ??= deps.toolboxFactory(run, workflow, ask, this.#bridge(), files.workDir, sandbox);
    return this.#toolbox;
  }

  /** Questions of tools (approvals, elicitation, sampling) land on the stage whose call asks. */
  #questionDeps(origin: CallOrigin | undefined): StageQuestionDeps {
    const { deps, control, log } = this.#attempt;
    return {
      append: (events) => log.append(events),
      control,
      newId: deps.newId,
      whileBlocked: (work) => log.whileBlocked(work),
      stageId: this.stageOf(origin),
    };
  }

  #bridge(): RunBridge {
    return {
      ask: (question, signal, origin) => askStageQuestion(question, signal, this.#questionDeps(origin)),
      emit: async (events, origin) => {
        const stageId = this.stageOf(origin);
        await this.#attempt.log.append(
          events.map((event) => (event.stageId === undefined && stageId !== undefined ? { ...event, stageId } : event)),
        );
      },
    };
  }
}

/** The stage started last that is still in flight. */
export function lastStarted(state: ExecutionState): string | undefined {
  return [...state.inflight.keys()].at(-1);
}
