/**
 * A run's budget (`[run.budget]`) and a stage's (`[nodes.<name>.budget]`), checked by an
 * agent stage before each model turn, so a stage is only ever stopped between turns, never
 * in a tool call. What was spent is read from the store — the run's summary (folded from its
 * model turns), its descendants' summaries, the stage's model turns and the budget events in
 * its log — never from this runner's memory, so a run resumed on another worker keeps its
 * spend, its warnings and any raise. Both scopes share this machinery; a stage's budget
 * events carry `stage` (the node), a run's do not.
 *
 *     spent = run:   cost and tokens of the run and every descendant, time since the run started
 *             stage: cost and tokens of every attempt of the node in this run, time since its
 *                    first attempt started
 *     limits = the budget table, or the newest `budget-raised` of the same scope
 *     ≥ 80 % of a limit (first time for these limits) → budget-warning
 *     ≥ 100 % → budget-exceeded, then
 *        on_exceeded = "fail"  → the stage fails (and so the run)
 *        on_exceeded = "pause" → the run is blocked on a question: raise (every limit
 *                                reached doubles, recorded as budget-raised) or cancel
 */
import {
  AGENT_EVENT,
  BUDGET_EVENT,
  ENGINE_EVENT,
  type BudgetLimitsPayload,
  type RunBudgetPayload,
  type BudgetWarningPayload,
} from '../model/event-types.js';
import type { JsonValue } from '../model/json.js';
import type { RunRecord } from '../model/run-record.js';
import { addTokenUsage, costOf, formatUsd, NO_TOKENS, withPayloadUsage, type TokenUsage } from '../model/token-usage.js';
import { eventsOf } from '../store/event-pages.js';
import type { RunStore } from '../store/run-store.js';
import type { RunBudgetSpec } from '../workflow/types.js';
import { askStageQuestion, type StageQuestionDeps } from './stage-question.js';

/**
 * The budget a run goes by: the workflow's `[run.budget]` with the run's own fields (given at
 * creation) over it; undefined when neither sets a limit.
 *
 * @example effectiveBudget({ maxCostUsd: 5, onExceeded: 'pause' }, { maxCostUsd: 20 }) // → { maxCostUsd: 20, onExceeded: 'pause' }
 */
export function effectiveBudget(workflow: RunBudgetSpec | undefined, run: RunBudgetPayload | undefined): RunBudgetSpec | undefined {
  if (workflow === undefined && run === undefined) return undefined;
  const merged: RunBudgetSpec = { ...workflow, ...run, onExceeded: run?.onExceeded ?? workflow?.onExceeded ?? 'pause' };
  return merged.maxCostUsd === undefined && merged.maxTokens === undefined && merged.maxDurationMs === undefined ? undefined : merged;
}

/** The share of a limit at which the warning is written. */
export const WARNING_FRACTION = 0.8;

export const RAISE_ANSWER = 'raise';
export const CANCEL_ANSWER = 'cancel';

/** Why the stage must stop, or undefined to take the next turn. */
export type BudgetStop = { status: 'failed' | 'cancelled'; reason: string } | undefined;

/** What a stage's model loop asks before each turn. */
export interface BudgetCheck {
  beforeTurn(signal: AbortSignal): Promise<BudgetStop>;
}

type Dimension = BudgetWarningPayload['dimension'];

export interface BudgetGuardDeps {
  store: Pick<RunStore, 'getRun' | 'listEvents' | 'searchRuns'>;
  clock: () => number;
  /** Appends on the stage that checks. */
  question: StageQuestionDeps;
}

function limitsOf(spec: RunBudgetSpec): BudgetLimitsPayload {
  return {
    ...(spec.maxCostUsd === undefined ? {} : { maxCostUsd: spec.maxCostUsd }),
    ...(spec.maxTokens === undefined ? {} : { maxTokens: spec.maxTokens }),
    ...(spec.maxDurationMs === undefined ? {} : { maxDurationMs: spec.maxDurationMs }),
  };
}

const sameLimits = (a: unknown, b: BudgetLimitsPayload) => JSON.stringify(a) === JSON.stringify(b);

function describe(dimension: Dimension, amount: number): string {
  switch (dimension) {
    case 'cost':
      return formatUsd(amount);
    case 'tokens':
      return `${Math.round(amount)} tokens`;
    case 'duration':
      return `${Math.round(amount / 1000)}s`;
    default: {
      const unreachable: never = dimension;
      return unreachable;
    }
  }
}

const LIMIT_KEY: Record<Dimension, keyof BudgetLimitsPayload> = { cost: 'maxCostUsd', tokens: 'maxTokens', duration: 'maxDurationMs' };

/** Whose budget a guard checks: the run's, or one node's (`[nodes.<name>.budget]`). */
export type BudgetScope = { kind: 'run' } | { kind: 'stage'; node: string };

/**
 * Checks one budget (the run's or a stage's) for one stage.
 *
 * @example const stop = await new BudgetGuard(run, spec, deps).beforeTurn(signal); if (stop) return fail(stop.reason);
 */
export class BudgetGuard implements BudgetCheck {
  readonly #runId: string;
  readonly #spec: RunBudgetSpec;
  readonly #deps: BudgetGuardDeps;
  readonly #node: string | undefined;

  constructor(run: Pick<RunRecord, 'id'>, spec: RunBudgetSpec, deps: BudgetGuardDeps, scope: BudgetScope = { kind: 'run' }) {
    this.#runId = run.id;
    this.#spec = spec;
    this.#deps = deps;
    this.#node = scope.kind === 'stage' ? scope.node : undefined;
  }

  /** What the payloads of this scope's events carry to tell them from the other scope's. */
  get #tag(): { stage?: string } {
    return this.#node === undefined ? {} : { stage: this.#node };
  }

  /** How messages name this budget. */
  get #name(): string {
    return this.#node === undefined ? "The run's budget" : `The budget of stage '${this.#node}'`;
  }

  async beforeTurn(signal: AbortSignal): Promise<BudgetStop> {
    const run = await this.#deps.store.getRun(this.#runId);
    if (run === undefined) return undefined;
    const { limits, warned } = await this.#budgetEvents();
    const spent = await this.#spent(run);
    const measures = this.#measures(limits, spent);
    const over = measures.filter((measure) => measure.fraction >= 1);
    if (over.length === 0) {
      const near = measures.filter((measure) => measure.fraction >= WARNING_FRACTION && !warned.has(measure.dimension));
      if (near.length > 0)
        await this.#deps.question.append(
          near.map((measure) => ({
            type: BUDGET_EVENT.warning,
            stageId: this.#deps.question.stageId,
            payload: { ...measure, limits, ...this.#tag },
          })),
        );
      return undefined;
    }
    const action = this.#spec.onExceeded;
    await this.#deps.question.append(
      over.map((measure) => ({
        type: BUDGET_EVENT.exceeded,
        stageId: this.#deps.question.stageId,
        payload: { ...measure, limits, action, ...this.#tag },
      })),
    );
    const what = over
      .map(
        (measure) =>
          `${describe(measure.dimension, measure.spent)} of ${describe(measure.dimension, measure.limit)} (${measure.dimension})`,
      )
      .join(', ');
    if (action === 'fail') {
      const fix =
        this.#node === undefined ? 'Raise [run.budget] or start the run with a larger --budget.' : `Raise [nodes.${this.#node}.budget].`;
      return {
        status: 'failed',
        reason: `${this.#node === undefined ? 'Run budget' : `Budget of stage '${this.#node}'`} exceeded: ${what}. ${fix}`,
      };
    }
    return this.#ask(
      what,
      limits,
      over.map((measure) => measure.dimension),
      signal,
    );
  }

  async #ask(what: string, limits: BudgetLimitsPayload, over: Dimension[], signal: AbortSignal): Promise<BudgetStop> {
    const raised: BudgetLimitsPayload = { ...limits };
    for (const dimension of over) raised[LIMIT_KEY[dimension]] = (limits[LIMIT_KEY[dimension]] ?? 0) * 2;
    const raisedText = over.map((dimension) => `${dimension} to ${describe(dimension, raised[LIMIT_KEY[dimension]] ?? 0)}`).join(', ');
    const deps = this.#deps.question;
    let questionId = '';
    const answer: JsonValue = await askStageQuestion(
      {
        kind: 'choice',
        prompt: `${this.#name} is spent: ${what}. Answer '${RAISE_ANSWER}' to double it (${raisedText}) and go on, or '${CANCEL_ANSWER}' to stop the run.`,
        options: [RAISE_ANSWER, CANCEL_ANSWER],
      },
      signal,
      {
        ...deps,
        append: async (events) => {
          const written = await deps.append(events);
          questionId = String(written[0]?.payload.questionId ?? '');
          return written;
        },
      },
    );
    if (answer !== RAISE_ANSWER) {
      const reason = `${this.#node === undefined ? 'Run budget' : `Budget of stage '${this.#node}'`} exceeded (${what}); cancelled at the budget question.`;
      // The run is cancelled as `weft cancel` would, so it ends cancelled rather than failed.
      await deps.append([{ type: ENGINE_EVENT.cancelRequested, stageId: deps.stageId, payload: { reason } }]);
      return { status: 'cancelled', reason };
    }
    await deps.append([{ type: BUDGET_EVENT.raised, stageId: deps.stageId, payload: { limits: raised, questionId, ...this.#tag } }]);
    return undefined;
  }

  /** The limits in force (the newest raise, else the workflow's) and the dimensions already warned about under them. */
  async #budgetEvents(): Promise<{ limits: BudgetLimitsPayload; warned: Set<Dimension> }> {
    let limits = limitsOf(this.#spec);
    const warnings: { dimension: Dimension; limits: unknown }[] = [];
    for await (const event of eventsOf(this.#deps.store, this.#runId, { types: [BUDGET_EVENT.warning, BUDGET_EVENT.raised] })) {
      if (event.payload.stage !== this.#node) continue;
      if (event.type === BUDGET_EVENT.raised) limits = event.payload.limits as BudgetLimitsPayload;
      else warnings.push({ dimension: event.payload.dimension as Dimension, limits: event.payload.limits });
    }
    return {
      limits,
      warned: new Set(warnings.filter((warning) => sameLimits(warning.limits, limits)).map((warning) => warning.dimension)),
    };
  }

  /** This scope's spend: the stage's (all its attempts), or the run's and all its descendants' (a child's spend counts against its parent's budget). */
  async #spent(run: RunRecord): Promise<{ usage: TokenUsage; durationMs: number }> {
    return this.#node === undefined ? this.#runSpent(run) : this.#stageSpent(this.#node);
  }

  async #stageSpent(node: string): Promise<{ usage: TokenUsage; durationMs: number }> {
    let usage = NO_TOKENS;
    let startedAt: number | undefined;
    for await (const event of eventsOf(this.#deps.store, this.#runId, {
      types: [ENGINE_EVENT.stageStarted, AGENT_EVENT.modelTurnFinished],
    })) {
      if (event.stageId?.startsWith(`${node}@`) !== true) continue;
      if (event.type === ENGINE_EVENT.stageStarted) startedAt ??= event.at;
      else usage = withPayloadUsage(usage, event.payload) ?? usage;
    }
    return { usage, durationMs: startedAt === undefined ? 0 : this.#deps.clock() - startedAt };
  }

  async #runSpent(run: RunRecord): Promise<{ usage: TokenUsage; durationMs: number }> {
    let usage = run.usage ?? NO_TOKENS;
    const pending = [run.id];
    const seen = new Set(pending);
    while (pending.length > 0) {
      const parentId = pending.shift()!;
      for (let cursor: string | undefined; ;) {
        const page = await this.#deps.store.searchRuns({
          parentId,
          archived: 'any',
          limit: 500,
          ...(cursor === undefined ? {} : { cursor }),
        });
        for (const child of page.runs) {
          if (seen.has(child.id)) continue;
          seen.add(child.id);
          pending.push(child.id);
          if (child.usage !== undefined) usage = addTokenUsage(usage, child.usage);
        }
        if (page.nextCursor === undefined) break;
        cursor = page.nextCursor;
      }
    }
    return { usage, durationMs: this.#deps.clock() - (run.startedAt ?? run.createdAt) };
  }

  #measures(limits: BudgetLimitsPayload, spent: { usage: TokenUsage; durationMs: number }): Omit<BudgetWarningPayload, 'limits'>[] {
    const cost = costOf(spent.usage);
    const amounts: Record<Dimension, number> = {
      cost: cost.reportedUsd + cost.estimatedUsd,
      tokens: spent.usage.totalTokens,
      duration: spent.durationMs,
    };
    return (Object.keys(LIMIT_KEY) as Dimension[]).flatMap((dimension) => {
      const limit = limits[LIMIT_KEY[dimension]];
      if (limit === undefined) return [];
      const fraction = limit === 0 ? Number.POSITIVE_INFINITY : amounts[dimension] / limit;
      return [{ dimension, spent: amounts[dimension], limit, fraction: Number.isFinite(fraction) ? fraction : 1 }];
    });
  }
}

/** Both budgets a stage goes by, the run's first; undefined when neither is set. */
export function combineBudgets(checks: readonly (BudgetCheck | undefined)[]): BudgetCheck | undefined {
  const present = checks.filter((check): check is BudgetCheck => check !== undefined);
  if (present.length <= 1) return present[0];
  return {
    async beforeTurn(signal) {
      for (const check of present) {
        const stop = await check.beforeTurn(signal);
        if (stop !== undefined) return stop;
      }
      return undefined;
    },
  };
}
