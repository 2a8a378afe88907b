/**
 * A runner: claims runs from the store (queued ones, and ones whose runner died: at once
 * when that runner was on this host, else when its lease runs out), holds a lease with a
 * heartbeat while it executes them, up to `maxParallel` at a time. With `idleExitMs` it
 * exits once nothing has been left to do for that long — the short-lived runner that
 * `weft run` starts; `weft worker` runs without it. A run leased on another host keeps it
 * from exiting: that run is this runner's to finish if the other one dies.
 */
import { WeftError, errorMessage } from '../../core/errors.js';
import { isUlid } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import type { RunRecord } from '../model/run-record.js';
import type { RunStore } from '../store/run-store.js';
import { mayBeClaimable } from '../store/store-change.js';
import { releaseDeadLeases } from './dead-leases.js';
import { abortableDelay } from './nodes/abortable-delay.js';
import { linkedAbort } from '../../core/linked-abort.js';
import { RunExecutor } from './run-executor.js';
import type { AgentStageRunner, RunSandboxFactory, RunToolboxFactory } from './stage-context.js';
import type { WorkspaceHost } from './run-files.js';
import { pruneStaleWorkspaces } from '../workspace/index.js';
import type { ModelCallStore } from '../store/model-call-store.js';

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
   * With `idleExitMs` (a runner started on demand): give up, stopping its runs and failing
   * with `STORE_FAILED`, once every store call has failed for this long. Its runs' leases run
   * out and a runner started later takes them over. A long-lived `weft worker` waits instead.
   */
  storeGiveUpMs?: number;
  /**
   * Claim only runs created with this environment fingerprint: a runner started for a
   * creator executes their runs with their environment, nobody else's. Undefined: any run.
   */
  envFingerprint?: string;
  /** Where this host keeps run workspaces (worktrees, clones); without it runs work in their cwd. */
  workspaces?: WorkspaceHost;
  /** Model-limit slots and windows in the store (`[llm.limits]`); absent: model calls are not limited. */
  modelCalls?: ModelCallStore;
}

export class Worker {
  readonly #options: WorkerOptions;
  readonly #active = new Map<string, Promise<void>>();
  #poke: (() => void) | undefined;
  #sweptAt = Number.NEGATIVE_INFINITY;
  #heldElsewhere = 0;
  /** Since when every store call has failed, and the last failure; undefined while the store answers. */
  #storeFailing: { since: number; error: string } | undefined;
  /** An on-demand runner whose run could not record its progress (a full disk) ends with this, not as idle. */
  #unrecorded: WeftError | undefined;

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
    let gaveUp: WeftError | undefined;
    try {
      gaveUp = await this.#claimLoop(stopping);
    } finally {
      stopWatching();
    }
    await Promise.allSettled(this.#active.values());
    if (gaveUp) throw gaveUp;
  }

  /** A crash can leave a working copy whose run is gone (removed meanwhile): it goes before anything else runs. */
  async #removeStaleWorkspaces(): Promise<void> {
    const host = this.#options.workspaces;
    if (host === undefined) return;
    try {
      const removed = await pruneStaleWorkspaces(
        host.root,
        async (id) => !isUlid(id) || (await this.#options.store.getRun(id)) !== undefined,
      );
      for (const entry of removed) this.#options.logger.info(`removed the workspace ${entry.path}: run ${entry.runId} no longer exists`);
    } catch (error) {
      this.#options.logger.warn(`could not look for stale workspaces under ${host.root}: ${errorMessage(error)}`);
    }
  }

  /** Claims until stopped or idle; answers the error to end with when the store stayed unreachable too long. */
  async #claimLoop(stopping: AbortController): Promise<WeftError | undefined> {
    const { clock } = this.#options;
    let idleSince = clock();
    while (!stopping.signal.aborted) {
      const gaveUp = this.#unrecorded ?? this.#givingUp();
      if (gaveUp) {
        // Stops the stages of its runs (as a lost lease does): their leases run out and another runner resumes them.
        stopping.abort();
        return gaveUp;
      }
      let claimed = false;
      while (this.#active.size < this.#options.maxParallel) {
        const run = (await this.#claim()) ?? ((await this.#sweepLeases()) > 0 ? await this.#claim() : undefined);
        if (!run) break;
        claimed = true;
        this.#start(run.id, stopping.signal, run);
      }
      // A run leased on another host comes back here if its runner dies: not idle while one exists.
      // Nor while the store does not answer: nobody knows then whether work is waiting.
      if (claimed || this.#active.size > 0 || this.#heldElsewhere > 0 || this.#storeFailing !== undefined) idleSince = clock();
      else if (this.#options.idleExitMs !== undefined && clock() - idleSince >= this.#options.idleExitMs) break;
      const wake = linkedAbort(stopping.signal);
      this.#poke = () => wake.abort();
      try {
        await Promise.race([abortableDelay(this.#options.pollMs, wake.signal), ...this.#active.values()]);
      } finally {
        wake.dispose();
        this.#poke = undefined;
      }
    }
    return undefined;
  }

  #givingUp(): WeftError | undefined {
    const { storeGiveUpMs, idleExitMs, clock } = this.#options;
    const failing = this.#storeFailing;
    if (idleExitMs === undefined || storeGiveUpMs === undefined || failing === undefined || clock() - failing.since < storeGiveUpMs)
      return undefined;
    return new WeftError(
      'STORE_FAILED',
      `The run store has not answered for ${Math.round((clock() - failing.since) / 1000)} s (last error: ${failing.error}); this runner gives up and stops its runs. They go back to the queue when their leases run out: once the store is reachable, start a runner (weft worker) or create a run again.`,
    );
  }

  /**
   * A call to a store whose host vanished can hang (no reset comes back): for a runner that
   * gives up, one not answered within the give-up time counts as failed. A claim answered
   * after that is left alone: its lease runs out and another runner takes the run.
   */
  #answerWithin<T>(call: Promise<T>, what: string): Promise<T> {
    const limit = this.#options.idleExitMs === undefined ? undefined : this.#options.storeGiveUpMs;
    if (limit === undefined) return call;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the store did not answer within ${Math.round(limit / 1000)} s when asked to ${what}`)),
        limit,
      );
      timer.unref();
    });
    return Promise.race([call, late]).finally(() => clearTimeout(timer));
  }

  #storeAnswered(): void {
    this.#storeFailing = undefined;
  }

  #storeFailed(error: unknown): void {
    this.#storeFailing = { since: this.#storeFailing?.since ?? this.#options.clock(), error: errorMessage(error) };
  }

  #claim(): Promise<RunRecord | undefined> {
    const { store, workerId, leaseMs, clock, logger } = this.#options;
    const filter = this.#options.envFingerprint === undefined ? undefined : { envFingerprint: this.#options.envFingerprint };
    return this.#answerWithin(store.claimRun(workerId, leaseMs, clock(), filter), 'claim a run').then(
      (run) => {
        this.#storeAnswered();
        return run;
      },
      (error: unknown) => {
        this.#storeFailed(error);
        logger.warn(`could not claim a run: ${errorMessage(error)}`);
        return undefined;
      },
    );
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
      this.#answerWithin(store.renewLease(runId, workerId, leaseMs), 'renew a lease').then(
        (held) => {
          this.#storeAnswered();
          if (!held) {
            logger.warn(`run ${runId}: lease lost to another runner; stopping here`);
            leaseLost.abort();
          }
        },
        (error: unknown) => {
          this.#storeFailed(error);
          logger.warn(`run ${runId}: could not renew the lease: ${errorMessage(error)}`);
        },
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
      ...(this.#options.modelCalls === undefined ? {} : { modelCalls: this.#options.modelCalls }),
    });
    const done = executor
      .execute()
      .catch((error: unknown) => {
        logger.error(`run ${runId} stopped: ${errorMessage(error)}`);
        // Exiting as idle would look like success, and the next runner would find the same stage again.
        if (this.#options.idleExitMs !== undefined && WeftError.is(error, 'STORE_FAILED')) this.#unrecorded ??= error;
      })
      .finally(async () => {
        clearInterval(heartbeat);
        stopping.removeEventListener('abort', onStop);
        await store.releaseLease(runId, workerId).catch(() => false);
        this.#active.delete(runId);
      });
    this.#active.set(runId, done);
  }
}
