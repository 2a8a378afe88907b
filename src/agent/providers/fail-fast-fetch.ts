/**
 * The `fetch` every provider gets: an endpoint that cannot be reached at all (connection
 * refused, unknown host, no route) fails the call at once with what to check. The SDK
 * would retry such a failure like a 5xx, for half a minute of silence, though no retry
 * can succeed; resets and timeouts stay retryable.
 */
import { WeftError } from '../../core/errors.js';
import type { ModelErrorContext } from './model-errors.js';

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens there',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (DNS lookup failed)',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
};

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/**
 * @example createOpenAI({ fetch: failFastFetch(context) })
 */
export function failFastFetch(context: ModelErrorContext, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    try {
      return await inner(input, init);
    } catch (error) {
      const code = causeCode(error);
      const why = code === undefined ? undefined : UNREACHABLE[code];
      if (why === undefined) throw error;
      const url = context.baseUrl ?? (input instanceof Request ? input.url : String(input));
      throw new WeftError(
        'MODEL_REQUEST_FAILED',
        `${context.provider} (model '${context.model}') cannot be reached at ${url}: ${why} (${code}). Check that the model server runs and that base_url in [llm] (or the provider's default) points at it.`,
        // No `cause`: the SDK walks the cause chain and would find the errno and retry after all.
        { data: { provider: context.provider, model: context.model, status: null, errno: code } },
      );
    }
  };
}
