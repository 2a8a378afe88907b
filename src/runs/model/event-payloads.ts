/**
 * Reads and checks the payloads of the events the projection depends on. Every problem is
 * a `RUN_INVALID_PARAMS` error that names the event type and the field.
 */
import {
  PAIR_END_REASONS,
  RUN_EVENT,
  type PairEndedPayload,
  type PairEndReason,
  type PairStartedPayload,
  type QuestionAnsweredPayload,
  type QuestionAskedPayload,
  type QuestionWithdrawnPayload,
  type RunBudgetPayload,
  type RunCreatedPayload,
  type RunParentChangedPayload,
  type RunStatusChangedPayload,
} from './event-types.js';
import { WeftError } from '../../core/errors.js';
import { readStoredSandboxSpec, type SandboxSpec } from '../../core/sandbox/sandbox-rules.js';
import { assertUlid } from '../../core/ids.js';
import { describeType, isJsonObject, type JsonObject } from './json.js';
import { QUESTION_KINDS, type QuestionKind } from './question.js';
import { STAGE_ID } from './run-event.js';
import { LABEL_KEY, MAX_LABEL_VALUE_LENGTH, MAX_LABELS, MAX_PRIORITY, MIN_PRIORITY } from './run-record.js';
import { isRunStatus, RUN_STATUSES, type RunStatus } from './run-status.js';
import { readRunOrigin, readRunWorkspace } from './run-workspace.js';
import { readRunConcurrency } from './run-concurrency.js';

const MAX_TEXT = 64 * 1024;

function invalid(type: string, message: string): WeftError {
  return new WeftError('RUN_INVALID_PARAMS', `Invalid ${type} event: ${message}`);
}

function text(
  payload: JsonObject,
  type: string,
  key: string,
  options: { optional?: boolean; nonEmpty?: boolean } = {},
): string | undefined {
  const value = payload[key];
  if (value === undefined || value === null) {
    if (options.optional) return undefined;
    throw invalid(type, `'${key}' is required (a string).`);
  }
  if (typeof value !== 'string') throw invalid(type, `'${key}' must be a string, got ${describeType(value)}.`);
  if (options.nonEmpty && value.trim() === '') throw invalid(type, `'${key}' must not be empty.`);
  if (value.length > MAX_TEXT) throw invalid(type, `'${key}' is longer than ${MAX_TEXT} characters.`);
  return value;
}

function flag(payload: JsonObject, type: string, key: string): boolean {
  const value = payload[key] ?? false;
  if (typeof value !== 'boolean') throw invalid(type, `'${key}' must be true or false, got ${describeType(value)}.`);
  return value;
}

function status(payload: JsonObject, type: string, key: string): RunStatus | undefined {
  const value = payload[key];
  if (value === undefined) return undefined;
  if (!isRunStatus(value)) throw invalid(type, `'${key}' must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(value)}.`);
  return value;
}

/** Checks label keys and values; shared by run creation and search filters. */
export function readLabels(value: unknown, what: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isJsonObject(value)) throw new WeftError('RUN_INVALID_PARAMS', `${what} must be an object of string keys to string values.`);
  const entries = Object.entries(value);
  if (entries.length > MAX_LABELS)
    throw new WeftError('RUN_INVALID_PARAMS', `${what}: at most ${MAX_LABELS} labels, got ${entries.length}.`);
  const labels: Record<string, string> = {};
  for (const [key, label] of entries) {
    if (!LABEL_KEY.test(key))
      throw new WeftError(
        'RUN_INVALID_PARAMS',
        `${what}: label key '${key.slice(0, 80)}' must start with a letter or digit and use only letters, digits, '.', '_', '-', '/' (at most 63 characters).`,
      );
    if (typeof label !== 'string')
      throw new WeftError('RUN_INVALID_PARAMS', `${what}: label '${key}' must be a string, got ${describeType(label)}.`);
    if (label.length > MAX_LABEL_VALUE_LENGTH)
      throw new WeftError('RUN_INVALID_PARAMS', `${what}: label '${key}' is longer than ${MAX_LABEL_VALUE_LENGTH} characters.`);
    labels[key] = label;
  }
  return labels;
}

export function readRunCreated(payload: JsonObject): RunCreatedPayload {
  const type = RUN_EVENT.runCreated;
  const inputs = payload.inputs ?? {};
  if (!isJsonObject(inputs)) throw invalid(type, `'inputs' must be a JSON object, got ${describeType(inputs)}.`);
  const parentId = text(payload, type, 'parentId', { optional: true });
  const model = text(payload, type, 'model', { optional: true });
  const envFingerprint = text(payload, type, 'envFingerprint', { optional: true });
  const budget = readRunBudget(payload.budget);
  const priority = payload.priority;
  if (
    priority !== undefined &&
    (!Number.isInteger(priority) || (priority as number) < MIN_PRIORITY || (priority as number) > MAX_PRIORITY)
  ) {
    throw invalid(type, `'priority' must be a whole number from ${MIN_PRIORITY} to ${MAX_PRIORITY}, got ${JSON.stringify(priority)}.`);
  }
  const workspace = readRunWorkspace(payload.workspace);
  const origin = readRunOrigin(payload.origin);
  const sandbox = readRunSandbox(payload.sandbox);
  const concurrency = readRunConcurrency(payload.concurrency);
  return {
    workflow: text(payload, type, 'workflow', { nonEmpty: true }) as string,
    workflowPath: text(payload, type, 'workflowPath') as string,
    goal: text(payload, type, 'goal', { optional: true }) ?? '',
    inputs,
    labels: readLabels(payload.labels, 'labels'),
    ...(parentId === undefined ? {} : { parentId: assertUlid(parentId, 'parent run id') }),
    autoApprove: flag(payload, type, 'autoApprove'),
    dryRun: flag(payload, type, 'dryRun'),
    ...(model === undefined ? {} : { model }),
    cwd: text(payload, type, 'cwd', { nonEmpty: true }) as string,
    ...(envFingerprint === undefined ? {} : { envFingerprint }),
    ...(budget === undefined ? {} : { budget }),
    ...(priority === undefined || priority === 0 ? {} : { priority: priority as number }),
    ...(workspace === undefined ? {} : { workspace }),
    ...(origin === undefined ? {} : { origin }),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(concurrency === undefined ? {} : { concurrency }),
  };
}

/** A run's own sandbox as given at creation, checked like `[run.sandbox]`; every problem is named. */
function readRunSandbox(value: unknown): SandboxSpec | undefined {
  if (value === undefined) return undefined;
  const { spec, problems } = readStoredSandboxSpec(value, 'sandbox');
  if (problems.length > 0) throw new WeftError('RUN_INVALID_PARAMS', problems.join('; '), { data: { problems } });
  return spec;
}

const BUDGET_LIMITS = ['maxCostUsd', 'maxTokens', 'maxDurationMs'] as const;

/** A run's budget as given at creation: numbers ≥ 0 and `onExceeded` `pause` or `fail`; anything else is refused by name. */
export function readRunBudget(value: unknown): RunBudgetPayload | undefined {
  if (value === undefined) return undefined;
  const type = RUN_EVENT.runCreated;
  if (!isJsonObject(value))
    throw invalid(type, `'budget' must be an object { maxCostUsd?, maxTokens?, maxDurationMs?, onExceeded? }, got ${describeType(value)}.`);
  const budget: RunBudgetPayload = {};
  for (const [key, item] of Object.entries(value)) {
    if ((BUDGET_LIMITS as readonly string[]).includes(key)) {
      if (typeof item !== 'number' || !Number.isFinite(item) || item < 0)
        throw invalid(type, `budget '${key}' must be a number ≥ 0, got ${describeType(item)}.`);
      budget[key as (typeof BUDGET_LIMITS)[number]] = item;
    } else if (key === 'onExceeded') {
      if (item !== 'pause' && item !== 'fail')
        throw invalid(type, `budget 'onExceeded' must be 'pause' or 'fail', got ${JSON.stringify(item)}.`);
      budget.onExceeded = item;
    } else {
      throw invalid(type, `budget has no field '${key}'; use maxCostUsd, maxTokens, maxDurationMs or onExceeded.`);
    }
  }
  return budget;
}

export function readStatusChanged(payload: JsonObject): RunStatusChangedPayload {
  const type = RUN_EVENT.runStatusChanged;
  const to = status(payload, type, 'to');
  if (to === undefined) throw invalid(type, `'to' is required (one of ${RUN_STATUSES.join(', ')}).`);
  const from = status(payload, type, 'from');
  const reason = text(payload, type, 'reason', { optional: true });
  return { to, ...(from === undefined ? {} : { from }), ...(reason === undefined ? {} : { reason }) };
}

export function readParentChanged(payload: JsonObject): RunParentChangedPayload {
  const parentId = text(payload, RUN_EVENT.runParentChanged, 'parentId', { optional: true });
  return { parentId: parentId === undefined ? null : assertUlid(parentId, 'parent run id') };
}

export function readQuestionAsked(payload: JsonObject): QuestionAskedPayload {
  const type = RUN_EVENT.questionAsked;
  const questionId = assertUlid(text(payload, type, 'questionId') as string, 'question id');
  const kind = payload.kind;
  if (typeof kind !== 'string' || !(QUESTION_KINDS as readonly string[]).includes(kind)) {
    throw invalid(type, `'kind' must be one of ${QUESTION_KINDS.join(', ')}, got ${JSON.stringify(kind ?? null)}.`);
  }
  const prompt = text(payload, type, 'prompt', { nonEmpty: true }) as string;
  const extras = questionExtras(payload, type);
  const options = payload.options;
  const needsOptions = kind === 'choice' || kind === 'multi_select';
  if (options === undefined || options === null) {
    if (needsOptions) throw invalid(type, `a ${kind} question needs 'options' (a non-empty array of strings).`);
    return { questionId, kind: kind as QuestionKind, prompt, ...extras };
  }
  if (!Array.isArray(options) || options.length === 0 || !options.every((option) => typeof option === 'string')) {
    throw invalid(type, `'options' must be a non-empty array of strings.`);
  }
  if (new Set(options).size !== options.length) throw invalid(type, `'options' must not repeat a value.`);
  return { questionId, kind: kind as QuestionKind, prompt, options: options as string[], ...extras };
}

/** The optional `schema` (a JSON Schema object) and `alternatives` (strings) of a question. */
function questionExtras(payload: JsonObject, type: string): Pick<QuestionAskedPayload, 'schema' | 'alternatives'> {
  const { schema, alternatives } = payload;
  if (schema !== undefined && schema !== null && !isJsonObject(schema))
    throw invalid(type, `'schema' must be a JSON Schema object, got ${describeType(schema)}.`);
  if (
    alternatives !== undefined &&
    alternatives !== null &&
    (!Array.isArray(alternatives) || !alternatives.every((item) => typeof item === 'string' && item !== ''))
  ) {
    throw invalid(type, `'alternatives' must be an array of non-empty strings.`);
  }
  return {
    ...(isJsonObject(schema) ? { schema } : {}),
    ...(Array.isArray(alternatives) && alternatives.length > 0 ? { alternatives: alternatives as string[] } : {}),
  };
}

export function readQuestionAnswered(payload: JsonObject): QuestionAnsweredPayload {
  const type = RUN_EVENT.questionAnswered;
  const questionId = assertUlid(text(payload, type, 'questionId') as string, 'question id');
  const answer = payload.answer;
  if (answer === undefined) throw invalid(type, `'answer' is required.`);
  return { questionId, answer };
}

export function readQuestionWithdrawn(payload: JsonObject): QuestionWithdrawnPayload {
  const type = RUN_EVENT.questionWithdrawn;
  const questionId = assertUlid(text(payload, type, 'questionId') as string, 'question id');
  const reason = payload.reason;
  if (reason !== 'stage-ended' && reason !== 'run-ended')
    throw invalid(type, `'reason' must be 'stage-ended' or 'run-ended', got ${JSON.stringify(reason ?? null)}.`);
  return { questionId, reason };
}

/** Who opened a pair session: free text, kept short. */
export const MAX_PAIR_BY_LENGTH = 200;

export function readPairStarted(payload: JsonObject): PairStartedPayload {
  const type = RUN_EVENT.pairStarted;
  const sessionId = assertUlid(text(payload, type, 'sessionId') as string, 'pair session id');
  const stageId = text(payload, type, 'stageId') as string;
  if (!STAGE_ID.test(stageId)) throw invalid(type, `'stageId' must look like '<node>@<attempt>', e.g. 'implement@1'.`);
  const by = text(payload, type, 'by', { nonEmpty: true }) as string;
  if (by.length > MAX_PAIR_BY_LENGTH) throw invalid(type, `'by' is longer than ${MAX_PAIR_BY_LENGTH} characters.`);
  return { sessionId, stageId, by };
}

export function readPairEnded(payload: JsonObject): PairEndedPayload {
  const type = RUN_EVENT.pairEnded;
  const sessionId = assertUlid(text(payload, type, 'sessionId') as string, 'pair session id');
  const reason = payload.reason;
  if (typeof reason !== 'string' || !(PAIR_END_REASONS as readonly string[]).includes(reason)) {
    throw invalid(type, `'reason' must be one of ${PAIR_END_REASONS.join(', ')}, got ${JSON.stringify(reason ?? null)}.`);
  }
  return { sessionId, reason: reason as PairEndReason };
}
