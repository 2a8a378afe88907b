/**
 * A run's workspace as its spec holds it: the resolved git workspace (`RunWorkspace`,
 * shaped by the git layer in `runs/workspace/workspace-spec.ts`; absent means the run works
 * in place) and the origin of a forked run, both read back from the `run-created` event with
 * their shape checked.
 */
import { WeftError } from '../../core/errors.js';
import type { RunWorkspace } from '../workspace/workspace-spec.js';
import type { JsonObject, JsonValue } from './json.js';

export type { GitWorkspaceMode, RunWorkspace, WorkspaceMode, WorkspaceSpec } from '../workspace/workspace-spec.js';

export const WORKSPACE_MODES = ['worktree', 'in-place', 'clone'] as const;

/** The run and stage a fork started from. */
export interface RunOrigin {
  runId: string;
  /** The stage whose checkpoint the fork's files start from; it and the stages before it count as done. */
  stageId: string;
  /** That checkpoint's commit. */
  commit?: string;
}

function invalid(message: string): WeftError {
  return new WeftError('RUN_INVALID_PARAMS', `Invalid run-created event: ${message}`);
}

function isTable(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(table: JsonObject, key: string, optional: boolean): string | undefined {
  const value = table[key];
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string') throw invalid(`'workspace.${key}' must be a string.`);
  return value;
}

/** Checks the `workspace` of a `run-created` payload (absent: the run works in place). */
export function readRunWorkspace(value: JsonValue | undefined): RunWorkspace | undefined {
  if (value === undefined) return undefined;
  if (!isTable(value)) throw invalid(`'workspace' must be an object.`);
  const mode = value.mode;
  if (mode !== 'worktree' && mode !== 'clone') throw invalid(`'workspace.mode' must be worktree or clone.`);
  const subdir = text(value, 'subdir', false) as string;
  if (subdir.split('/').includes('..')) throw invalid(`'workspace.subdir' must stay inside the repository, got ${JSON.stringify(subdir)}.`);
  const workspace: RunWorkspace = {
    mode,
    subdir,
    branch: text(value, 'branch', false) as string,
    baseCommit: text(value, 'baseCommit', false) as string,
    keepBranch: value.keepBranch === true,
  };
  for (const key of ['sourceRepo', 'repoUrl', 'sourceBranch', 'remoteUrl'] as const) {
    const item = text(value, key, true);
    if (item !== undefined) workspace[key] = item;
  }
  return workspace;
}

/** Checks the `origin` of a `run-created` payload. */
export function readRunOrigin(value: JsonValue | undefined): RunOrigin | undefined {
  if (value === undefined) return undefined;
  if (!isTable(value) || typeof value.runId !== 'string' || typeof value.stageId !== 'string')
    throw invalid(`'origin' must be { runId, stageId, commit? }.`);
  return { runId: value.runId, stageId: value.stageId, ...(typeof value.commit === 'string' ? { commit: value.commit } : {}) };
}
