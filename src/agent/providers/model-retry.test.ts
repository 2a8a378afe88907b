// Which model failures are retried, after how long, and what the caller hears about each retry.
import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ModelRetry } from '../model-client.js';
import { retryDelayMs, withRetries } from './model-retry.js';

function apiError(statusCode: number | undefined, headers: Record<string, string> = {}, isRetryable = true): APICallError {
  return new APICallError({
    message: `status ${statusCode}`,
    url: 'http://127.0.0.1/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: JSON.stringify({ error: { message: 'overloaded' } }),
    isRetryable,
  });
}

describe('retryDelayMs', () => {
  it('doubles from 2 s, unless the provider asks for less than a minute in retry-after-ms or retry-after', () => {
    expect([1, 2, 3].map((attempt) => retryDelayMs(apiError(503), attempt))).toEqual([2000, 4000, 8000]);
    expect(retryDelayMs(apiError(429, { 'retry-after-ms': '150' }), 3)).toBe(150);
    expect(retryDelayMs(apiError(429, { 'retry-after': '7' }), 1)).toBe(7000);
    expect(retryDelayMs(apiError(429, { 'retry-after': '3600' }), 1)).toBe(2000);
  });
});

describe('withRetries', () => {
  const signal = new AbortController().signal;

  it('retries what can pass, telling the caller before each retry, then returns the answer', async () => {
    const failures = [apiError(503, { 'retry-after-ms': '0' }), apiError(429, { 'retry-after-ms': '0' })];
    const heard: ModelRetry[] = [];
    const answer = await withRetries(
      async () => {
        const failure = failures.shift();
        if (failure) throw failure;
        return 'ok';
      },
      { maxRetries: 4, signal, onRetry: (retry) => void heard.push(retry) },
    );
    expect(answer).toBe('ok');
    expect(heard).toEqual([
      { attempt: 1, maxRetries: 4, delayMs: 0, status: 503, error: '503: overloaded' },
      { attempt: 2, maxRetries: 4, delayMs: 0, status: 429, error: '429: overloaded' },
    ]);
  });

  it('does not retry what cannot pass, nor an answer whose text was already delivered', async () => {
    const refused = apiError(400, {}, false);
    await expect(withRetries(() => Promise.reject(refused), { maxRetries: 4, signal })).rejects.toBe(refused);
    const broken = apiError(503, { 'retry-after-ms': '0' });
    await expect(
      withRetries(
        () => Promise.reject(broken),
        { maxRetries: 4, signal },
        () => false,
      ),
    ).rejects.toBe(broken);
  });

  it('gives up after maxRetries retries with every failure, as the SDK does', async () => {
    let attempts = 0;
    const failing = () => {
      attempts += 1;
      return Promise.reject(apiError(500, { 'retry-after-ms': '0' }));
    };
    await expect(withRetries(failing, { maxRetries: 2, signal })).rejects.toMatchObject({
      name: 'AI_RetryError',
      errors: [expect.any(APICallError), expect.any(APICallError), expect.any(APICallError)],
    });
    expect(attempts).toBe(3);
  });
});
