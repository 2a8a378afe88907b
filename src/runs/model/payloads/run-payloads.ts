/**
 * Payloads of the run's own events: its creation, status and parent, its questions and
 * pair sessions (`RUN_EVENT` in `../event-types.ts`, which maps each type to its payload).
 */
import type { JsonObject, JsonValue } from '../json.js';
import type { RunSpec } from '../run-record.js';
import type { QuestionKind } from '../question.js';
import type { RunStatus } from '../run-status.js';
import type { PairEndReason } from '../event-types.js';
import type { BudgetLimitsPayload } from './budget-payloads.js';

/** What the run was created with (its `RunSpec` but the id and time, which the event carries), and its parent. */
export type RunCreatedPayload = Omit<RunSpec, 'id' | 'createdAt'> & { parentId?: string };

/** A run's own budget: limits and what happens at 100 %. */
export type RunBudgetPayload = BudgetLimitsPayload & { onExceeded?: 'pause' | 'fail' };

/** `from` is optional on input: when given it must equal the current status (compare-and-set). */
export interface RunStatusChangedPayload {
  from?: RunStatus;
  to: RunStatus;
  reason?: string;
}

export interface RunParentChangedPayload {
  parentId: string | null;
}

export interface QuestionAskedPayload {
  questionId: string;
  kind: QuestionKind;
  prompt: string;
  options?: string[];
  /** A JSON Schema the answer must also satisfy (MCP elicitation forms). */
  schema?: JsonObject;
  /** Extra answers (strings) accepted besides what the kind takes, e.g. `decline`, `cancel`. */
  alternatives?: string[];
}

export interface QuestionAnsweredPayload {
  questionId: string;
  answer: JsonValue;
}

/**
 * A question ended unanswered because its stage attempt ended (`stage-ended`) or its run did
 * (`run-ended`). The store writes it in the same append as the event that ended them, so no
 * dead attempt's question stays pending; the event's `stageId` is the question's stage.
 */
export interface QuestionWithdrawnPayload {
  questionId: string;
  reason: 'stage-ended' | 'run-ended';
}

/** A person or client opened a pair session with a running agent stage (the event's `stageId` is that stage too). */
export interface PairStartedPayload {
  /** ULID. */
  sessionId: string;
  stageId: string;
  /** Who opened it, e.g. `cli (ana)` or `mcp`. */
  by: string;
}

export interface PairEndedPayload {
  sessionId: string;
  reason: PairEndReason;
}
