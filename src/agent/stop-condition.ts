/**
 * The limits that end an agent stage before the model is done: turns and tokens. (Wall
 * time is the node's `timeout`, applied by the engine through the stage's signal.) Each
 * check returns the reason the stage reports, or undefined to go on.
 */
import type { ModelUsage } from './model-client.js';

export const DEFAULT_MAX_TURNS = 20;

export interface AgentLimits {
  /** Model turns in the stage. */
  maxTurns: number;
  /** Tokens (input + output, summed over turns) the stage may use. */
  maxTokens?: number;
  /** Output tokens of one model call (a `prompt` node's `max_tokens`). */
  maxOutputTokens?: number;
}

export interface LoopProgress {
  /** Model turns completed. */
  turns: number;
  usage: ModelUsage;
}

/**
 * Before a model turn: may the loop ask the model again?
 *
 * @example turnLimitReached({ turns: 20, usage }, { maxTurns: 20 }) // → 'max turns (20) reached'
 */
export function turnLimitReached(progress: LoopProgress, limits: AgentLimits): string | undefined {
  return progress.turns >= limits.maxTurns ? `max turns (${limits.maxTurns}) reached` : undefined;
}

/** After a model turn that wants to go on: is the token budget spent? */
export function tokenLimitReached(progress: LoopProgress, limits: AgentLimits): string | undefined {
  if (limits.maxTokens === undefined || progress.usage.totalTokens < limits.maxTokens) return undefined;
  return `max tokens (${limits.maxTokens}) reached: the stage used ${progress.usage.totalTokens} tokens in ${progress.turns} turn${progress.turns === 1 ? '' : 's'}`;
}

/** Output tokens to allow the next call: the node's cap, and never more than the budget left. */
export function outputTokensFor(progress: LoopProgress, limits: AgentLimits): number | undefined {
  const left = limits.maxTokens === undefined ? undefined : Math.max(1, limits.maxTokens - progress.usage.totalTokens);
  if (left === undefined) return limits.maxOutputTokens;
  return limits.maxOutputTokens === undefined ? left : Math.min(left, limits.maxOutputTokens);
}
