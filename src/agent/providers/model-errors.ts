/**
 * Turns what the AI SDK throws into one `WeftError` whose message says what went wrong
 * with which provider and what to do: a refused key (401/403), a missing model (404),
 * rate limits and server errors that outlasted the retries, unreachable endpoints.
 * Secrets are redacted; the loop reports the message as the stage's failure reason.
 */
import { APICallError, RetryError } from 'ai';
import { WeftError, errorMessage } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';

export interface ModelErrorContext {
  provider: string;
  model: string;
  keyEnv?: string;
  baseUrl?: string;
}

export function providerDetail(error: APICallError): string {
  const body = error.responseBody?.trim();
  if (!body) return error.message;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const nested = typeof parsed.error === 'object' && parsed.error !== null ? parsed.error.message : parsed.error;
    const message = nested ?? parsed.message;
    if (typeof message === 'string' && message !== '') return message;
  } catch {
    // Not JSON: the SDK's message is better than raw text.
  }
  return error.message;
}

function attemptsOf(error: unknown): number {
  return RetryError.isInstance(error) ? error.errors.length : 1;
}

/** The `WeftError` for a failed model call; `undefined` when the call was aborted (the caller decides what that means). */
export function modelCallError(error: unknown, context: ModelErrorContext): WeftError | undefined {
  if (WeftError.is(error)) return error;
  if (error instanceof Error && error.name === 'AbortError') return undefined;
  const last = RetryError.isInstance(error) ? error.lastError : error;
  if (last instanceof Error && last.name === 'AbortError') return undefined;
  const who = `${context.provider} (model '${context.model}')`;
  const data = { provider: context.provider, model: context.model };
  if (!APICallError.isInstance(last)) {
    return new WeftError('MODEL_REQUEST_FAILED', redactSecrets(`${who} failed: ${errorMessage(last)}`), { cause: error, data });
  }
  const status = last.statusCode;
  const detail = providerDetail(last);
  const tries = attemptsOf(error);
  const after = tries > 1 ? ` after ${tries} attempts` : '';
  let message: string;
  let code: 'MODEL_AUTH_FAILED' | 'MODEL_REQUEST_FAILED' = 'MODEL_REQUEST_FAILED';
  if (status === 401 || status === 403) {
    code = 'MODEL_AUTH_FAILED';
    const key = context.keyEnv ? `the key in ${context.keyEnv}` : 'the API key';
    message = `${who} refused the request (${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'}): ${detail}. Check ${key} (api_key_env in [llm] picks another variable).`;
  } else if (status === 404) {
    message = `${who} answered 404 Not Found: ${detail}. Check the model name and base_url${context.baseUrl ? ` (${context.baseUrl})` : ''}.`;
  } else if (status === 429) {
    message = `${who} is rate limiting (429)${after}: ${detail}. Wait and retry the run, or raise max_retries in [llm].`;
  } else if (status !== undefined && status >= 500) {
    message = `${who} had a server error (${status})${after}: ${detail}.`;
  } else if (status !== undefined) {
    message = `${who} rejected the request (${status}): ${detail}.`;
  } else {
    message = `${who} cannot be reached${context.baseUrl ? ` at ${context.baseUrl}` : ''}${after}: ${detail}.`;
  }
  return new WeftError(code, redactSecrets(message), { cause: error, data: { ...data, status: status ?? null } });
}
