/**
 * The run's and the stage's budgets inside a CLI-backend stage. A CLI runs its own loop, so
 * weft cannot decline its next model call; what it can tell is a turn boundary in the CLI's
 * stream — a turn was recorded and every tool call of it has its result — and there it
 * freezes the CLI's process group (SIGSTOP), runs the same check an API agent runs before
 * each turn (warning, exceeded, the raise-or-cancel question), then thaws it (SIGCONT) to
 * go on, or ends it and the stage takes the budget's verdict. So a CLI stage is never
 * stopped in the middle of a tool call, and never runs on while its budget question waits.
 *
 *     line → events → a turn ended, no call running, no final answer yet?
 *        freeze → budget.beforeTurn → go on: thaw | stop: end the CLI (stage = the stop)
 */
import type { BudgetCheck, BudgetStop } from '../../runs/engine/budget-guard.js';
import { AGENT_EVENT } from '../../runs/model/event-types.js';
import type { NewRunEvent } from '../../runs/model/run-event.js';

/** What the watch needs of the CLI process. */
export interface Freezable {
  freeze(): void;
  thaw(): void;
}

/**
 * @example
 * const watch = new CliBudgetWatch(stage.budget, stage.signal);
 * startCliProcess({ …, signal: watch.signal });   // a budget stop ends the CLI
 * await watch.afterLine(events, transcript.runningCalls, transcript.final !== undefined, cli);
 * if (watch.stop) return { status: watch.stop.status, error: watch.stop.reason };
 */
export class CliBudgetWatch {
  readonly #budget: BudgetCheck | undefined;
  readonly #stageSignal: AbortSignal;
  readonly #ended = new AbortController();
  #stop: BudgetStop;
  /** The stage's signal, also aborted when the budget stops the stage. */
  readonly signal: AbortSignal;

  constructor(budget: BudgetCheck | undefined, stageSignal: AbortSignal) {
    this.#budget = budget;
    this.#stageSignal = stageSignal;
    this.signal = AbortSignal.any([stageSignal, this.#ended.signal]);
  }

  /** Why the budget stopped the stage, once it did. */
  get stop(): BudgetStop {
    return this.#stop;
  }

  /** After one stream line's events: checks the budget at a turn boundary. */
  async afterLine(events: readonly NewRunEvent[], runningCalls: number, answered: boolean, cli: Freezable): Promise<void> {
    if (this.#budget === undefined || this.#stop !== undefined || answered || runningCalls > 0) return;
    if (!events.some((event) => event.type === AGENT_EVENT.modelTurnFinished || event.type === AGENT_EVENT.toolCallFinished)) return;
    cli.freeze();
    try {
      this.#stop = await this.#budget.beforeTurn(this.#stageSignal);
    } catch (error) {
      // Cancelled while the budget question waited: the stage's signal ends the CLI.
      if (!this.#stageSignal.aborted) throw error;
    } finally {
      // Ending a frozen CLI: the end is requested first, so thawing delivers it before the CLI takes another step.
      if (this.#stop !== undefined) this.#ended.abort();
      cli.thaw();
    }
  }
}
