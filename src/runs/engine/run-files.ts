/**
 * A run's files as the engine sees them: the directory its stages work in, opened on this
 * host before any stage runs (reset to the last recorded checkpoint, so a re-run stage never
 * sees a dead attempt's files), and a checkpoint after each stage that may change files
 * (committed, pushed when the run has a remote, and handed back as the event to record).
 * A run that works in place pays nothing: its directory is its cwd and it never commits.
 */
import { mkdir } from 'node:fs/promises';
import { ENGINE_EVENT, type CheckpointCreatedPayload, type RunRewoundPayload, type WorkspaceResetPayload } from '../model/event-types.js';
import type { NewRunEvent, RunEvent } from '../model/run-event.js';
import type { RunRecord } from '../model/run-record.js';
import { checkpoint, openWorkspace, pushRunBranch, rewindRunBranch, type GitIdentity, type OpenedWorkspace } from '../workspace/index.js';
import { isAncestor } from '../workspace/git.js';

/** Where this host keeps run workspaces, and who checkpoints are by. */
export interface WorkspaceHost {
  root: string;
  identity?: GitIdentity;
}

/** Kinds whose stages may change files: only they pay for a checkpoint. */
export const CHECKPOINTED_KINDS: ReadonlySet<string> = new Set(['command', 'tool', 'agent', 'function']);

/** Files listed in one `checkpoint-created` event; the counts cover them all. */
export const MAX_CHECKPOINT_FILES = 200;

export interface RunFiles {
  /** Where stages work (the run's cwd when it works in place). */
  readonly workDir: string;
  /**
   * Commits what the stage changed (and pushes it when the run has a remote): the
   * `checkpoint-created` event to record, or null when nothing changed or the run works in
   * place. Throws the git layer's `WeftError` (history rewritten, push refused).
   */
  checkpoint(node: string, attempt: number): Promise<NewRunEvent | null>;
}

const IN_PLACE = (run: RunRecord): RunFiles => ({ workDir: run.cwd, checkpoint: () => Promise.resolve(null) });

/** The checkpoint the log says the files are at: the latest recorded checkpoint or rewind, else the run's base. */
export function recordedCheckpoint(events: readonly RunEvent[], base: string): string {
  let commit = base;
  for (const event of events) {
    if (event.type === ENGINE_EVENT.checkpointCreated) commit = (event.payload as CheckpointCreatedPayload).commit;
    else if (event.type === ENGINE_EVENT.runRewound) commit = (event.payload as RunRewoundPayload).commit;
    else if (event.type === ENGINE_EVENT.workspaceReset) commit = (event.payload as WorkspaceResetPayload).commit;
  }
  return commit;
}

/**
 * Opens the run's files on this host. `record` appends events (a reset of an unrecorded
 * checkpoint) before any stage runs.
 */
export async function openRunFiles(
  run: RunRecord,
  events: readonly RunEvent[],
  host: WorkspaceHost,
  record: (events: NewRunEvent[]) => Promise<unknown>,
): Promise<RunFiles> {
  const workspace = run.workspace;
  if (workspace === undefined) return IN_PLACE(run);
  let opened = await openWorkspace({ runId: run.id, workspace, root: host.root });
  const recorded = recordedCheckpoint(events, workspace.baseCommit);
  // A runner that died after committing a checkpoint but before recording it left the branch
  // ahead of the log: the stage runs again, so it must not find that attempt's files.
  if (opened.head !== recorded && (await isAncestor(opened.repoDir, recorded, opened.head))) {
    const rewound = await rewindRunBranch(opened.repoDir, run.id, workspace, recorded);
    opened = await openWorkspace({ runId: run.id, workspace, root: host.root });
    const payload: WorkspaceResetPayload = { commit: recorded, discarded: rewound.from, keptRef: rewound.abandonedRef ?? null };
    await record([{ type: ENGINE_EVENT.workspaceReset, payload }]);
  }
  // A run created in a folder the base commit does not hold (an explicit worktree in a new folder) still has it.
  await mkdir(opened.workDir, { recursive: true });
  return new GitRunFiles(opened, host.identity);
}

class GitRunFiles implements RunFiles {
  readonly #opened: OpenedWorkspace;
  readonly #identity: GitIdentity | undefined;
  /** Parallel branches share one working copy: their checkpoints take turns. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(opened: OpenedWorkspace, identity: GitIdentity | undefined) {
    this.#opened = opened;
    this.#identity = identity;
  }

  get workDir(): string {
    return this.#opened.workDir;
  }

  checkpoint(node: string, attempt: number): Promise<NewRunEvent | null> {
    const next = this.#queue.then(() => this.#commit(node, attempt));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #commit(node: string, attempt: number): Promise<NewRunEvent | null> {
    const made = await checkpoint(this.#opened, {
      stageId: node,
      attempt,
      ...(this.#identity === undefined ? {} : { identity: this.#identity }),
    });
    if (made === null) return null;
    const pushed = await pushRunBranch({ runId: this.#opened.runId, workspace: this.#opened.workspace, repoDir: this.#opened.repoDir });
    const payload: CheckpointCreatedPayload = {
      commit: made.commit,
      parent: made.parent,
      filesChanged: made.filesChanged,
      linesAdded: made.linesAdded,
      linesRemoved: made.linesRemoved,
      files: made.files
        .slice(0, MAX_CHECKPOINT_FILES)
        .map(({ path, status, added, removed, binary }) => ({ path, status, added, removed, binary })),
      pushed,
    };
    return { type: ENGINE_EVENT.checkpointCreated, payload };
  }
}

/** Opens nothing: dry runs and runners without a workspace host work in the run's cwd. */
export function inPlaceFiles(run: RunRecord): RunFiles {
  return IN_PLACE(run);
}
