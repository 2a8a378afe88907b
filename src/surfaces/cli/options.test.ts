import { describe, expect, it } from 'vitest';
import { parseBudget } from './options.js';

describe('parseBudget', () => {
  it('reads --budget key=value pairs into the run budget', () => {
    expect(parseBudget(['max_cost_usd=5', 'max_tokens=2000000', 'max_duration=2h', 'on_exceeded=fail'])).toEqual({
      maxCostUsd: 5,
      maxTokens: 2_000_000,
      maxDurationMs: 7_200_000,
      onExceeded: 'fail',
    });
  });

  it('refuses unknown keys and bad values, naming them', () => {
    expect(() => parseBudget(['max_cost=5'])).toThrow(/--budget .*max_cost/);
    expect(() => parseBudget(['max_duration=soon'])).toThrow('--budget max_duration: must be a duration such as "30m" or "2h"');
    expect(() => parseBudget(['on_exceeded=explode'])).toThrow(/--budget on_exceeded/);
  });
});
