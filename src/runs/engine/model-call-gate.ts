/**
 * The stage port to model limits: a model call of this run waits here until every pool it
 * falls under has room (`ModelCallStore.tryStart`, shared by every runner on every host),
 * then holds its slot under this runner's lease until it ends. Waiting polls with a short
 * jittered backoff (or the time a rate window names), and stops at once when the stage's
 * signal aborts. A stage sees this port, never the store.
 */
import { errorMessage, WeftError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { MODEL_LIMIT_WINDOW_MS, pollDelay, type ModelLimitKind, type ModelLimitPool } from '../model/model-limits.js';
import type { ModelCallStore } from '../store/model-call-store.js';
import { abortableDelay } from './nodes/abortable-delay.js';

/** A started call's hold on its pools: `end` frees the slot and records the tokens the call used. */
export interface ModelCallSlot {
  end(tokens: number): Promise<void>;
}

/** What held a call back before it started: the first limit that refused it, and how long it waited. */
export interface ModelCallThrottle {
  pattern: string;
  limit: ModelLimitKind;
  waitedMs: number;
}

export interface ModelCallGate {
  /**
   * Waits until a call under `pools` may start and starts it; `throttled` is set when it had
   * to wait. Rejects (the stage being stopped) as soon as `signal` aborts, holding nothing.
   */
  enter(pools: readonly ModelLimitPool[], signal: AbortSignal): Promise<{ slot: ModelCallSlot; throttled?: ModelCallThrottle }>;
}

export interface ModelCallGateOptions {
  store: ModelCallStore;
  runId: string;
  leaseOwner: string;
  clock: () => number;
  newId: () => string;
  logger: Logger;
  /** The rate window; 60 s (tests shorten it). */
  windowMs?: number;
  /** The longest sleep between two looks (default 250 ms). */
  maxPollMs?: number;
  random?: () => number;
}

/** @example const { slot } = await gate.enter([{ pattern: 'anthropic:*', concurrent: 4 }], signal); try { … } finally { await slot.end(tokens); } */
export function modelCallGate(options: ModelCallGateOptions): ModelCallGate {
  const { store, runId, leaseOwner, clock, newId, logger } = options;
  const windowMs = options.windowMs ?? MODEL_LIMIT_WINDOW_MS;
  const maxPollMs = options.maxPollMs ?? 250;
  const random = options.random ?? Math.random;
  const stopped = () => new WeftError('TOOL_CANCELLED', 'The stage stopped while its model call waited for a model-limit slot.');
  return {
    async enter(pools, signal) {
      const callId = newId();
      const startedAt = clock();
      let first: Omit<ModelCallThrottle, 'waitedMs'> | undefined;
      for (let attempt = 0; ; attempt += 1) {
        if (signal.aborted) throw stopped();
        const verdict = await store.tryStart({ callId, runId, leaseOwner, pools, windowMs });
        if (verdict.started) {
          const slot: ModelCallSlot = { end: (tokens) => endCall(store, callId, tokens, logger) };
          return first === undefined ? { slot } : { slot, throttled: { ...first, waitedMs: Math.max(0, clock() - startedAt) } };
        }
        first ??= { pattern: verdict.pattern, limit: verdict.limit };
        if (!(await abortableDelay(pollDelay(verdict, attempt, maxPollMs, random), signal))) throw stopped();
      }
    },
  };
}

/**
 * Ends a call, trying twice: a call never ended would hold its slot as long as the run's
 * lease lives. If both fail (the store is gone), the slot frees when the lease runs out.
 */
async function endCall(store: ModelCallStore, callId: string, tokens: number, logger: Logger): Promise<void> {
  try {
    await store.finish(callId, tokens);
  } catch {
    try {
      await store.finish(callId, tokens);
    } catch (error) {
      logger.warn(`could not free a model-limit slot (it frees when this run's lease ends): ${errorMessage(error)}`);
    }
  }
}
