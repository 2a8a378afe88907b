/**
 * What a follower of a shared reader holds: the items handed to it and not yet taken, and
 * how to wake it when more come. Shared by the run event and runs list fan-outs.
 */
export interface FollowerBuffer<T> {
  buffer: T[];
  wake: (() => void) | undefined;
}

/** The items buffered since the previous call; waits up to `ms` for some, `[]` when none came or `signal` aborted. */
export async function takeBuffered<T>(follower: FollowerBuffer<T>, ms: number, signal: AbortSignal): Promise<T[]> {
  if (follower.buffer.length === 0 && !signal.aborted) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        follower.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      follower.wake = done;
    });
  }
  return follower.buffer.splice(0);
}
