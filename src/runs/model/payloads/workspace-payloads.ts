/**
 * Payloads of a run's workspace events: checkpoints, a reset branch, rewind, fork and merge
 * (`ENGINE_EVENT` in `../event-types.ts`).
 */

/** One file of a checkpoint; the list is cut at `MAX_CHECKPOINT_FILES` (`filesChanged` counts them all). */
export type CheckpointFilePayload = { path: string; status: string; added: number; removed: number; binary: boolean };

/**
 * A stage's changes committed on the run branch, written with its `stage-finished` (just
 * before it, in the same commit), so a finished stage always names its checkpoint. The
 * event's stage is the stage; a run's first checkpoint of the creator's uncommitted changes has none.
 */
export type CheckpointCreatedPayload = {
  commit: string;
  /** The previous checkpoint. */
  parent: string;
  filesChanged: number;
  linesAdded: number;
  linesRemoved: number;
  files: CheckpointFilePayload[];
  /** True when the checkpoint reached the run's remote. */
  pushed: boolean;
};

/**
 * A runner opened the run's workspace and found the run branch ahead of the last recorded
 * checkpoint (a runner died between committing and recording): the branch went back to
 * `commit` and the unrecorded tip is kept under `keptRef`.
 */
export type WorkspaceResetPayload = {
  commit: string;
  discarded: string;
  keptRef: string | null;
};

/** `weft rewind`: the run continues after `toStage` from that stage's checkpoint; nothing is deleted. */
export type RunRewoundPayload = {
  /** The stage whose checkpoint the run goes back to (e.g. `build@1`). */
  toStage: string;
  /** The seq of that stage's `stage-finished`: the run's state is replayed up to it. */
  toSeq: number;
  /** The checkpoint commit the files go back to. */
  commit: string;
  /** The run branch's tip before, and where it is kept (null when the branch was already there or the run works in place). */
  abandonedCommit: string | null;
  abandonedRef: string | null;
};

/** Written on a run when `weft fork` made a new run from one of its stages. */
export type RunForkedPayload = {
  forkId: string;
  fromStage: string;
  commit: string | null;
};

/** `weft merge`: the run's branch went into `into` (its branch is then kept when the run is removed). */
export type RunMergedPayload = {
  into: string;
  kind: 'fast-forward' | 'merge-commit' | 'up-to-date';
  commit: string;
  previous: string;
};
