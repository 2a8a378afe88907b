import { describe, expect, it } from 'vitest';
import { untilInterrupted } from './interrupt.js';

describe('untilInterrupted', () => {
  it('aborts the work on the first of its signals and leaves no handler behind', async () => {
    const before = process.listenerCount('SIGTERM');
    const stopped = untilInterrupted(
      (signal) => new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('stopped'), { once: true })),
      ['SIGINT', 'SIGTERM'],
    );
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    process.emit('SIGTERM');
    expect(await stopped).toBe('stopped');
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });

  it('removes its handlers when the work fails too', async () => {
    const before = process.listenerCount('SIGINT');
    await expect(untilInterrupted(async () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
