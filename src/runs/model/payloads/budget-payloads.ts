/** Payloads of a run budget's events: warning, stop and raise (`BUDGET_EVENT` in `../event-types.ts`). */

/** A run budget's limits; absent ones do not bound the run. */
export type BudgetLimitsPayload = {
  maxCostUsd?: number;
  maxTokens?: number;
  maxDurationMs?: number;
};

/** The dimension of a budget that was reached, and how far. */
export type BudgetWarningPayload = {
  /** `cost` (US dollars, reported + estimated), `tokens` or `duration` (ms since the run started). */
  dimension: 'cost' | 'tokens' | 'duration';
  spent: number;
  limit: number;
  /** spent / limit. */
  fraction: number;
  /** The limits in force, so a warning after a raise is told apart. */
  limits: BudgetLimitsPayload;
  /** The node whose own budget (`[nodes.<name>.budget]`) this is; absent for the run's budget. */
  stage?: string;
};

export type BudgetExceededPayload = BudgetWarningPayload & {
  /** `pause`: a question asks to raise or cancel; `fail`: the stage and run fail. */
  action: 'pause' | 'fail';
};

/** New limits, from the answer to a budget question; later checks (on any runner) use these. */
export type BudgetRaisedPayload = {
  limits: BudgetLimitsPayload;
  questionId: string;
  /** The node whose budget was raised; absent for the run's budget. */
  stage?: string;
};
