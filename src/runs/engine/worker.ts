/**
 * A runner: claims runs from the store (queued ones, and ones whose runner died: at once
 * when that runner was on this host, else when its lease runs out), holds a lease with a
 * heartbeat while it executes them, up to `maxParallel` at a time. With `idleExitMs` it
 * exits once nothing has been left to do for that long — the short-lived runner that
 * `weft run` starts; `weft worker` runs without it. A run leased on another host keeps it
 * from exiting: that run is this runner's to finish if the other one dies.
 */
import { errorMessage } from '../../core/errors.js';
import { isUlid } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import type { RunRecord } from '../model/run-record.js';
import type { RunStore } from '../store/run-store.js';
import { mayBeClaimable } from '../store/store-change.js';
import { releaseDeadLeases } from './dead-leases.js';
import { abortableDelay } from './nodes/abortable-delay.js';
import { RunExecutor } from './run-executor.js';
import type { AgentStageRunner, RunSandboxFactory, RunToolboxFactory } from './stage-context.js';
import type { WorkspaceHost } from './run-files.js';
import { pruneStaleWorkspaces } from '../workspace/index.js';

export interface WorkerOptions {
  store: RunStore;
  workerId: string;
  logger: Logger;
  clock: () => number;
  newId: () => string;
  toolboxFactory: RunToolboxFactory;
  /** Each run's sandbox (`[run.sandbox]`); absent: no run is sandboxed. */
  sandboxFactory?: RunSandboxFactory;
  agent?: AgentStageRunner;
  leaseMs: number;
  heartbeatMs: number;
  maxParallel: number;
  /** How often to look for claimable runs, and how often waiting stages look at the store. */
  pollMs: number;
  /** Exit after this long with nothing to run; undefined runs until the signal aborts. */
  idleExitMs?: number;
  /**
   * Claim only runs created with this environment fingerprint: a runner started for a
   * creator executes their runs with their environment, nobody else's. Undefined: any run.
   */
  envFingerprint?: string;
  /** Where this host keeps run workspaces (worktrees, clones); without it runs work in their cwd. */
  workspaces?: WorkspaceHost;
}

export class Worker {
  readonly #options: WorkerOptions;
  readonly #active = new Map<string, Promise<void>>();
  #poke: (() => void) | undefined;
  #sweptAt = Number.NEGATIVE_INFINITY;
  #heldElsewhere = 0;

  constructor(options: WorkerOptions) {
    this.#options = options;
  }

  get activeRuns(): number {
    return this.#active.size;
  }

  /** Runs leased by a runner on another host, as last seen (they keep an idle runner from exiting). */
  get runsHeldElsewhere(): number {
    return this.#heldElsewhere;
  }

  /** Claims and executes runs until `signal` aborts (or the worker has been idle long enough). */
  async run(signal: AbortSignal): Promise<void> {
    const { store } = this.#options;
    const stopping = new AbortController();
    signal.addEventListener('abort', () => stopping.abort(), { once: true });
    // A run queued (or let go) by another process shows as a change in the store: claim it
    // then, not at the next poll (which stays, for leases that run out without anyone
    // writing). Notices of writes that leave nothing to claim (the appends of running runs,
    // here and on every other host) are passed over.
    const stopWatching = store.watchChanges((change) => {
      if (this.#active.size < this.#options.maxParallel && mayBeClaimable(change)) this.wake();
    });
    await this.#removeStaleWorkspaces();
    try {
      await this.#claimLoop(stopping);
    } finally {
      stopWatching();
    }
    await Promise.allSettled(this.#active.values());
  }

  /** A crash can leave a working copy whose run is gone (removed meanwhile): it goes before anything else runs. */
  async #removeStaleWorkspaces(): Promise<void> {
    const host = this.#options.workspaces;
    if (host === undefined) return;
    try {
      const removed = await pruneStaleWorkspaces(host.root, async (id) => !isUlid(id) || (await this.#options.store.getRun(id)) !== undefined);
      for (const entry of removed) this.#options.logger.info(`removed the workspace ${entry.path}: run ${entry.runId} no longer exists`);
    } catch (error) {
      this.#options.logger.warn(`could not look for stale workspaces under ${host.root}: ${errorMessage(error)}`);
    }
  }

  async #claimLoop(stopping: AbortController): Promise<void> {
    const { clock } = this.#options;
    let idleSince = clock();
    while (!stopping.signal.aborted) {
      let claimed = false;
      while (this.#active.size < this.#options.maxParallel) {
        const run = (await this.#claim()) ?? ((await this.#sweepLeases()) > 0 ? await this.#claim() : undefined);
        if (!run) break;
        claimed = true;
        this.#start(run.id, stopping.signal, run);
      }
      // A run leased on another host comes back here if its runner dies: not idle while one exists.
      if (claimed || this.#active.size > 0 || this.#heldElsewhere > 0) idleSince = clock();
      else if (this.#options.idleExitMs !== undefined && clock() - idleSince >= this.#options.idleExitMs) break;
      const wake = new AbortController();
      this.#poke = () => wake.abort();
      await Promise.race([abortableDelay(this.#options.pollMs, AbortSignal.any([wake.signal, stopping.signal])), ...this.#active.values()]);
      this.#poke = undefined;
    }
  }

  #claim(): Promise<RunRecord | undefined> {
    const { store, workerId, leaseMs, clock, logger } = this.#options;
    const filter = this.#options.envFingerprint === undefined ? undefined : { envFingerprint: this.#options.envFingerprint };
    return store.claimRun(workerId, leaseMs, clock(), filter).catch((error: unknown) => {
      logger.warn(`could not claim a run: ${errorMessage(error)}`);
      return undefined;
    });
  }

  /**
   * Releases leases whose holder died on this host (at most once per poll interval: runners
   * come here on every change notice); returns how many were released.
   */
  async #sweepLeases(): Promise<number> {
    const { store, clock, pollMs, logger } = this.#options;
    if (clock() - this.#sweptAt < pollMs) return 0;
    this.#sweptAt = clock();
    try {
      const sweep = await releaseDeadLeases(store, clock());
      this.#heldElsewhere = sweep.heldElsewhere;
      if (sweep.released > 0) logger.info(`taking over ${sweep.released} run(s) whose runner died`);
      return sweep.released;
    } catch (error) {
      logger.warn(`could not look for runs whose runner died: ${errorMessage(error)}`);
      return 0;
    }
  }

  /** Looks for claimable runs now instead of at the next poll. */
  wake(): void {
    this.#poke?.();
  }

  #start(runId: string, stopping: AbortSignal, run: RunRecord): void {
    const { store, workerId, leaseMs, heartbeatMs, logger } = this.#options;
    const leaseLost = new AbortController();
    const onStop = () => leaseLost.abort();
    stopping.addEventListener('abort', onStop, { once: true });
    const heartbeat = setInterval(() => {
      store.renewLease(runId, workerId, leaseMs).then(
        (held) => {
          if (!held) {
            logger.warn(`run ${runId}: lease lost to another runner; stopping here`);
            leaseLost.abort();
          }
        },
        (error: unknown) => logger.warn(`run ${runId}: could not renew the lease: ${errorMessage(error)}`),
      );
    }, heartbeatMs);
    const executor = new RunExecutor(run, {
      store,
      logger: logger.child(`run ${runId}`),
      clock: this.#options.clock,
      newId: this.#options.newId,
      agent: this.#options.agent,
      wakeRunners: () => this.wake(),
      pollMs: this.#options.pollMs,
      toolboxFactory: this.#options.toolboxFactory,
      ...(this.#options.sandboxFactory === undefined ? {} : { sandboxFactory: this.#options.sandboxFactory }),
      leaseLost: leaseLost.signal,
      leaseOwner: workerId,
      ...(this.#options.workspaces === undefined ? {} : { workspaces: this.#options.workspaces }),
    });
    const done = executor
      .execute()
      .catch((error: unknown) => logger.error(`run ${runId} stopped: ${errorMessage(error)}`))
      .finally(async () => {
        clearInterval(heartbeat);
        stopping.removeEventListener('abort', onStop);
        await store.releaseLease(runId, workerId).catch(() => false);
        this.#active.delete(runId);
      });
    this.#active.set(runId, done);
  }
}
