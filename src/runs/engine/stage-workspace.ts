/**
 * The directory a run's stages work in, and the one the sandbox lets them write: one
 * accessor, so where a run's workspace lives (today its `cwd`) is decided in one place.
 */
import type { RunRecord } from '../model/run-record.js';

/** @example runWorkspace(run) // '/home/me/project' */
export function runWorkspace(run: Pick<RunRecord, 'cwd'>): string {
  return run.cwd;
}
