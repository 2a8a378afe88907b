/**
 * A watchdog for tests that records which process groups it was given, so a test can
 * check that a group was handed over while it ran and taken back once it ended.
 */
import type { GroupWatchdog } from '../../src/core/process-watchdog.js';

export interface RecordingWatchdog extends GroupWatchdog {
  /** Groups registered now. */
  watched: Set<number>;
  /** Every group ever registered, in order. */
  everWatched: number[];
}

export function recordingWatchdog(): RecordingWatchdog {
  const watched = new Set<number>();
  const everWatched: number[] = [];
  return {
    watched,
    everWatched,
    watch: (pgid) => {
      watched.add(pgid);
      everWatched.push(pgid);
    },
    unwatch: (pgid) => void watched.delete(pgid),
  };
}
