import { describe, expect, it } from 'vitest';
import { closest, suggestion } from './did-you-mean.js';

describe('closest', () => {
  it('finds a typo within a third of the name, counting a swapped pair of letters as one edit', () => {
    expect(closest('comand', ['command', 'prompt'])).toBe('command');
    expect(closest('tool_timout', ['startup_timeout', 'tool_timeout'])).toBe('tool_timeout');
    expect(closest('CLIENT_IDD', ['client_id'])).toBe('client_id');
    expect(closest('tmieout', ['timeout'])).toBe('timeout');
  });

  it('suggests nothing for a short name two edits away, or when the caller allows fewer edits', () => {
    expect(closest('ulr', ['env'])).toBeUndefined();
    expect(closest('cmd', ['cwd', 'env'])).toBe('cwd');
    expect(closest('comand', ['command'], 0)).toBeUndefined();
  });

  it('words the hint, or falls back', () => {
    expect(suggestion('nodse', ['nodes'], ' — declare it')).toBe(" — did you mean 'nodes'?");
    expect(suggestion('zzz', ['nodes'], ' — declare it')).toBe(' — declare it');
  });
});
