/**
 * Retries of one model request, done here rather than inside the AI SDK so each retry can
 * be shown (`model-request-retried`, a line in `weft run`) instead of half a minute of
 * silence. Only what can pass is retried: what the SDK marks retryable (429, 408, 409,
 * 5xx, a reset connection); an unreachable endpoint already failed fast in
 * `fail-fast-fetch.ts`. The delays are the SDK's own: 2 s doubling, or what the provider
 * asks for in `retry-after-ms` / `retry-after` when that is under a minute.
 */
import { APICallError, RetryError } from 'ai';
import { errorMessage } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';
import type { ModelRetry } from '../model-client.js';
import { providerDetail } from './model-errors.js';

const INITIAL_DELAY_MS = 2000;
const MAX_HONOURED_DELAY_MS = 60_000;

export interface RetryOptions {
  maxRetries: number;
  signal: AbortSignal;
  onRetry?: (retry: ModelRetry) => Promise<void> | void;
}

function headerDelay(headers: Record<string, string> | undefined): number | undefined {
  if (headers === undefined) return undefined;
  const ms = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (Number.isFinite(ms)) return ms;
  const after = headers['retry-after'];
  if (after === undefined) return undefined;
  const seconds = Number.parseFloat(after);
  return Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
}

/** How long to wait before retry number `attempt` (1-based) after `error`. */
export function retryDelayMs(error: APICallError, attempt: number): number {
  const backoff = INITIAL_DELAY_MS * 2 ** (attempt - 1);
  const asked = headerDelay(error.responseHeaders);
  return asked !== undefined && asked >= 0 && (asked < MAX_HONOURED_DELAY_MS || asked < backoff) ? asked : backoff;
}

function describe(error: APICallError): string {
  return redactSecrets(error.statusCode === undefined ? errorMessage(error) : `${error.statusCode}: ${providerDetail(error)}`);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails in a way no retry can fix, or `maxRetries` retries
 * are spent (then a `RetryError` with every failure, as the SDK throws). `attempt` returns
 * `retryable: false` with its failure when it already delivered part of an answer.
 *
 * @example await withRetries(() => generateText({ …, maxRetries: 0 }), { maxRetries: 4, signal, onRetry })
 */
export async function withRetries<T>(attempt: () => Promise<T>, options: RetryOptions, canRetry: () => boolean = () => true): Promise<T> {
  const errors: unknown[] = [];
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      errors.push(error);
      if (options.signal.aborted || !APICallError.isInstance(error) || !error.isRetryable || !canRetry())
        throw errors.length > 1 ? exhausted(errors, 'errorNotRetryable') : error;
      const retry = errors.length;
      if (retry > options.maxRetries) throw options.maxRetries === 0 ? error : exhausted(errors, 'maxRetriesExceeded');
      const delayMs = retryDelayMs(error, retry);
      await options.onRetry?.({
        attempt: retry,
        maxRetries: options.maxRetries,
        delayMs,
        status: error.statusCode ?? null,
        error: describe(error),
      });
      await pause(delayMs, options.signal);
    }
  }
}

function exhausted(errors: unknown[], reason: 'maxRetriesExceeded' | 'errorNotRetryable'): RetryError {
  return new RetryError({ message: `Failed after ${errors.length} attempts. Last error: ${errorMessage(errors.at(-1))}`, reason, errors });
}
