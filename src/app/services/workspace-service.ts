/**
 * What people do with a run's files, for every surface: diff a run or one stage's
 * checkpoint, rewind a finished run to a stage (it continues from that stage's checkpoint as
 * a new attempt; the abandoned commits stay reachable and the log says so), fork a new run
 * from a stage (its workspace starts at that checkpoint, the stages up to it count as done
 * with their recorded outputs), merge a run's branch into the user's branch, and remove a
 * run's workspace with the run.
 */
import { WeftError } from '../../core/errors.js';
import { isUlid, newId } from '../../core/ids.js';
import {
  ENGINE_EVENT,
  RUN_EVENT,
  type CheckpointCreatedPayload,
  type RunForkedPayload,
  type RunMergedPayload,
  type RunRewoundPayload,
} from '../../runs/model/event-types.js';
import type { NewRunEvent, RunEvent } from '../../runs/model/run-event.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { recordedCheckpoint, type WorkspaceHost } from '../../runs/engine/run-files.js';
import { eventsOf } from '../../runs/store/event-pages.js';
import { resolveInputs } from '../../runs/run-inputs.js';
import { loadWorkflow } from '../../runs/workflow/index.js';
import {
  diffWorkspace,
  findStaleWorkspaces,
  forkRunBranch,
  mergeRunBranch,
  pushRunBranch,
  removeWorkspace,
  repositoryFor,
  rewindRunBranch,
  type MergeResult,
  type RunWorkspace,
  type StaleWorkspace,
  type WorkspaceDiff,
} from '../../runs/workspace/index.js';
import type { RunService } from './run-service.js';
import type { RunStore } from '../../runs/store/run-store.js';

/** The events a fork copies from its origin: enough for its runner to replay the stages it counts as done. */
const COPIED_ON_FORK: ReadonlySet<string> = new Set([
  ENGINE_EVENT.stageStarted,
  ENGINE_EVENT.stageFinished,
  ENGINE_EVENT.checkpointCreated,
]);

/** One run's or one stage's changes, as every surface shows them. */
export interface RunDiff extends WorkspaceDiff {
  runId: string;
  branch: string;
  /** The stage asked for; absent for the whole run. */
  stageId?: string;
  /** True when the stage asked for changed no file (it made no checkpoint). */
  unchanged: boolean;
}

export interface RunForkRequest {
  fromStage: string;
  inputs?: Record<string, unknown>;
}

export class WorkspaceService {
  readonly #runs: RunService;
  /** The store the run service reads, for the events diff, rewind, fork and merge write. */
  readonly #store: RunStore;
  readonly #host: WorkspaceHost;

  constructor(runs: RunService, store: RunStore, host: WorkspaceHost) {
    this.#store = store;
    this.#runs = runs;
    this.#host = host;
  }

  /** The run's changes since its base, or one stage's checkpoint (`build` for its latest attempt, or `build@2`). */
  async diff(ref: string, options: { stage?: string; stat?: boolean } = {}): Promise<RunDiff> {
    const run = await this.#runs.get(ref);
    const workspace = this.#gitWorkspace(run, 'diffed');
    const repo = await repositoryFor(workspace, this.#host.root, run.id);
    const stat = options.stat === true ? { stat: true } : {};
    if (options.stage === undefined)
      return { runId: run.id, branch: workspace.branch, unchanged: false, ...(await diffWorkspace(repo, workspace, stat)) };
    const events = await this.#allEvents(run.id);
    const finished = finishedStage(events, run.id, options.stage);
    const made = events.find(
      (event) => event.type === ENGINE_EVENT.checkpointCreated && event.stageId === finished.stageId && event.seq < finished.seq,
    );
    const commit =
      made === undefined
        ? recordedCheckpoint(
            events.filter((event) => event.seq < finished.seq),
            workspace.baseCommit,
          )
        : (made.payload as CheckpointCreatedPayload).commit;
    const diff = await diffWorkspace(repo, workspace, { ...(made === undefined ? { from: commit } : {}), to: commit, ...stat });
    return { runId: run.id, branch: workspace.branch, stageId: finished.stageId, unchanged: made === undefined, ...diff };
  }

  /** A failed or cancelled run goes back to the checkpoint of `toStage` and runs on from there as a new attempt. */
  async rewind(ref: string, toStage: string): Promise<RunRecord> {
    const run = await this.#runs.get(ref);
    if (run.status !== 'failed' && run.status !== 'cancelled') {
      throw new WeftError(
        'RUN_INVALID_TRANSITION',
        `Run ${run.id} is ${run.status}; only a failed or cancelled run can be rewound${run.status === 'succeeded' ? ` — fork it instead: weft fork ${run.id} --from ${toStage}` : ''}.`,
        {
          data: { runId: run.id, status: run.status },
        },
      );
    }
    const workspace = this.#gitWorkspace(run, 'rewound');
    const events = await this.#allEvents(run.id);
    const finished = finishedStage(events, run.id, toStage);
    const commit = recordedCheckpoint(
      events.filter((event) => event.seq <= finished.seq),
      workspace.baseCommit,
    );
    const repo = await repositoryFor(workspace, this.#host.root, run.id);
    const moved = await rewindRunBranch(repo, run.id, workspace, commit);
    // With a remote, the remote's branch is what a runner starts from: it must go back too.
    await pushRunBranch({ runId: run.id, workspace, repoDir: repo });
    const payload: RunRewoundPayload = {
      toStage: finished.stageId,
      toSeq: finished.seq,
      commit,
      abandonedCommit: moved.abandonedRef === undefined ? null : moved.from,
      abandonedRef: moved.abandonedRef ?? null,
    };
    await this.#store.appendEvents(run.id, [
      { type: ENGINE_EVENT.runRewound, payload },
      { type: RUN_EVENT.runStatusChanged, payload: { from: run.status, to: 'queued', reason: `rewound to ${finished.stageId}` } },
    ]);
    this.#runs.ensureRunner(await this.#runs.get(run.id));
    return this.#runs.get(run.id);
  }

  /** A new run of the same workflow that starts after `fromStage`: files from its checkpoint, the stages up to it done. */
  async fork(ref: string, request: RunForkRequest): Promise<RunRecord> {
    const origin = await this.#runs.get(ref);
    const events = await this.#allEvents(origin.id);
    const finished = finishedStage(events, origin.id, request.fromStage);
    const prefix = events.filter((event) => event.seq <= finished.seq);
    const workflow = await loadWorkflow(origin.workflowPath);
    const id = newId();
    let workspace: RunWorkspace | undefined;
    let commit: string | undefined;
    if (origin.workspace !== undefined) {
      commit = recordedCheckpoint(prefix, origin.workspace.baseCommit);
      const repo = await repositoryFor(origin.workspace, this.#host.root, origin.id);
      workspace = await forkRunBranch(repo, origin.workspace, commit, id);
      await pushRunBranch({ runId: id, workspace, repoDir: repo });
    }
    const created = await this.#store.createRun({
      id,
      workflow: origin.workflow,
      workflowPath: origin.workflowPath,
      goal: origin.goal,
      inputs: resolveInputs(workflow, { ...origin.inputs, ...request.inputs }),
      labels: origin.labels,
      autoApprove: origin.autoApprove,
      dryRun: origin.dryRun,
      ...(origin.model === undefined ? {} : { model: origin.model }),
      cwd: origin.cwd,
      ...(origin.envFingerprint === undefined ? {} : { envFingerprint: origin.envFingerprint }),
      ...(workspace === undefined ? {} : { workspace }),
      ...(origin.sandbox === undefined ? {} : { sandbox: origin.sandbox }),
      origin: { runId: origin.id, stageId: finished.stageId, ...(commit === undefined ? {} : { commit }) },
    });
    const copied: NewRunEvent[] = prefix
      .filter((event) => COPIED_ON_FORK.has(event.type))
      .map((event) => ({ type: event.type, ...(event.stageId === undefined ? {} : { stageId: event.stageId }), payload: event.payload }));
    const start = origin.autoApprove ? 'queued' : 'pending';
    await this.#store.appendEvents(created.id, [
      ...copied,
      { type: RUN_EVENT.runStatusChanged, payload: { from: 'submitted', to: start } },
    ]);
    const forked: RunForkedPayload = { forkId: created.id, fromStage: finished.stageId, commit: commit ?? null };
    await this.#store.appendEvents(origin.id, [{ type: ENGINE_EVENT.runForked, payload: forked }]);
    const run = await this.#runs.get(created.id);
    this.#runs.ensureRunner(run);
    return run;
  }

  /** The run's branch into `into` (default: the branch the run was created from). */
  async merge(ref: string, into?: string): Promise<MergeResult & { runId: string }> {
    const run = await this.#runs.get(ref);
    const workspace = this.#gitWorkspace(run, 'merged');
    const repo = await repositoryFor(workspace, this.#host.root, run.id);
    const result = await mergeRunBranch({
      runId: run.id,
      workspace,
      repoDir: repo,
      ...(into === undefined ? {} : { into }),
      ...(this.#host.identity === undefined ? {} : { identity: this.#host.identity }),
    });
    const payload: RunMergedPayload = { into: result.into, kind: result.kind, commit: result.commit, previous: result.previous };
    await this.#store.appendEvents(run.id, [{ type: ENGINE_EVENT.runMerged, payload }]);
    return { runId: run.id, ...result };
  }

  /** Removes the run's working copy here, and its branch unless it keeps it (`keep_branch`, or it was merged). */
  async removeFor(run: RunRecord): Promise<void> {
    if (run.workspace === undefined) return;
    const events = await this.#runs.events(run.id, { types: [ENGINE_EVENT.runMerged], limit: 1 });
    await removeWorkspace({
      runId: run.id,
      workspace: run.workspace,
      root: this.#host.root,
      ...(events.length > 0 ? { keepBranch: true } : {}),
    });
  }

  /** Working copies under this host's root whose run is gone (`weft doctor`). */
  async stale(): Promise<{ root: string; stale: StaleWorkspace[] }> {
    const stale = await findStaleWorkspaces(this.#host.root, async (id) => !isUlid(id) || (await this.#store.getRun(id)) !== undefined);
    return { root: this.#host.root, stale };
  }

  async #allEvents(id: string): Promise<RunEvent[]> {
    const events: RunEvent[] = [];
    for await (const event of eventsOf(this.#store, id)) events.push(event);
    return events;
  }

  #gitWorkspace(run: RunRecord, action: string): RunWorkspace {
    if (run.workspace !== undefined) return run.workspace;
    throw new WeftError(
      'WORKSPACE_INVALID',
      `Run ${run.id} works in place (${run.cwd}), without a run branch or checkpoints, so it cannot be ${action}. Runs get a workspace inside a git repository (or with --workspace worktree).`,
      {
        data: { runId: run.id },
      },
    );
  }
}

/** The `stage-finished` event of `stage` (`build`: its latest attempt; `build@2`: that one). */
function finishedStage(events: readonly RunEvent[], runId: string, stage: string): { stageId: string; seq: number } {
  const finished = events.filter(
    (event) =>
      event.type === ENGINE_EVENT.stageFinished &&
      event.payload.retrying !== true &&
      (event.stageId === stage || (!stage.includes('@') && event.payload.node === stage)),
  );
  const last = finished.at(-1);
  if (last?.stageId === undefined) {
    const names = [...new Set(events.filter((event) => event.type === ENGINE_EVENT.stageFinished).map((event) => event.stageId))].join(
      ', ',
    );
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `Run ${runId} has no finished stage '${stage}'${names === '' ? ' (no stage has finished yet)' : `; finished stages: ${names}`}.`,
      { data: { runId, stage } },
    );
  }
  return { stageId: last.stageId, seq: last.seq };
}
