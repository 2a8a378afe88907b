import { describe, expect, it } from 'vitest';
import { checkLimitTables, modelPatternMatches, limitPatternProblem, mergeLimitTables } from './llm-limits.js';

describe('[llm.limits] patterns and tables', () => {
  it('matches provider:model patterns whole, * matching any run of characters', () => {
    expect(modelPatternMatches('anthropic:*', 'anthropic:claude-sonnet-4-5')).toBe(true);
    expect(modelPatternMatches('anthropic:*', 'openai:gpt-5')).toBe(false);
    expect(modelPatternMatches('*:gpt-5*', 'azure:gpt-5-mini')).toBe(true);
    expect(modelPatternMatches('ollama:llama3.1', 'ollama:llama3x1')).toBe(false);
    expect(modelPatternMatches('ollama:qwen3:32b', 'ollama:qwen3:32b')).toBe(true);
  });

  it('refuses a pattern without a provider and a model, with spaces, or with wildcards other than *', () => {
    expect(limitPatternProblem('anthropic:*')).toBe(undefined);
    expect(limitPatternProblem('anthropic')).toMatch(/^must be a "provider:model" pattern such as "anthropic:\*"/);
    expect(limitPatternProblem(':claude')).toMatch(/^must be a "provider:model" pattern/);
    expect(limitPatternProblem('openai:gpt 5')).toMatch(/without spaces$/);
    expect(limitPatternProblem('openai:gpt-[45]')).toMatch(/'\[' is not a wildcard here$/);
  });

  it('names the table of a bad pattern and of a table that sets no limit', () => {
    expect(checkLimitTables({ anthropic: { concurrent: 1 }, 'openai:*': {} })).toEqual([
      'table [llm.limits."anthropic"]: the pattern must be a "provider:model" pattern such as "anthropic:*" or "openai:gpt-5*" (only * is a wildcard)',
      'table [llm.limits."openai:*"] sets no limit: give concurrent, requests_per_minute or tokens_per_minute',
    ]);
  });

  it('lets a project table replace the user’s table of the same pattern whole', () => {
    expect(
      mergeLimitTables(
        { 'anthropic:*': { concurrent: 4, tokens_per_minute: 40_000 }, 'openai:*': { requests_per_minute: 50 } },
        { 'anthropic:*': { concurrent: 2 } },
      ),
    ).toEqual({ 'anthropic:*': { concurrent: 2 }, 'openai:*': { requestsPerMinute: 50 } });
  });
});
