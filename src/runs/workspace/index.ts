/**
 * The git layer of per-run workspaces (issue 23): prepare at creation, open on the runner,
 * checkpoint per stage, push, diff, rewind, fork, merge and cleanup. Everything that runs
 * `git` lives below this folder; the engine and the surfaces import from here only.
 */
export * from './workspace-spec.js';
export { prepareWorkspace, findRepository, type PrepareOptions, type PreparedWorkspace } from './prepare.js';
export { openWorkspace, workspaceDir, type OpenOptions } from './open.js';
export { checkpoint, type CheckpointOptions } from './checkpoint.js';
export { pushRunBranch, type PushOptions } from './push.js';
export { diffWorkspace, type DiffOptions, type WorkspaceDiff } from './diff.js';
export { rewindRunBranch, forkRunBranch, type RewindResult } from './history.js';
export { mergeRunBranch, type MergeOptions, type MergeResult } from './merge.js';
export {
  removeWorkspace,
  findStaleWorkspaces,
  pruneStaleWorkspaces,
  repositoryFor,
  type RemoveOptions,
  type RemoveResult,
  type StaleWorkspace,
} from './cleanup.js';
