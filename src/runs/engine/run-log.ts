/**
 * One attempt's writes to its run's log: every append goes through the lease-fenced store
 * call (nothing once the lease is lost), the run's status moves by compare-and-set events,
 * and what this runner wrote is handed to whoever must not read it back as news (the
 * replayed state's `lastSeq`, the control watcher).
 */
import { WeftError } from '../../core/errors.js';
import { RUN_EVENT } from '../model/event-types.js';
import type { NewRunEvent, RunEvent } from '../model/run-event.js';
import type { RunRecord } from '../model/run-record.js';
import type { RunStatus } from '../model/run-status.js';
import type { RunStore } from '../store/run-store.js';
import type { HeldStarts } from './held-starts.js';

export interface RunLogDeps {
  store: RunStore;
  leaseLost: AbortSignal;
  leaseOwner?: string;
  heldStarts: HeldStarts;
  /** Told of every batch this runner appended. */
  onAppended?: (appended: RunEvent[]) => void;
}

export type RunEnd = 'succeeded' | 'failed' | 'cancelled';

export class RunLog {
  readonly #run: RunRecord;
  readonly #deps: RunLogDeps;
  #status: RunStatus;
  #endReason: string | undefined;
  #blockedStages = 0;

  constructor(run: RunRecord, deps: RunLogDeps) {
    this.#run = run;
    this.#deps = deps;
    this.#status = run.status;
  }

  get status(): RunStatus {
    return this.#status;
  }

  /** Why the run ended, for the attempt's span. */
  get endReason(): string | undefined {
    return this.#endReason;
  }

  async append(events: NewRunEvent[]): Promise<RunEvent[]> {
    const { store, leaseLost, leaseOwner, heldStarts, onAppended } = this.#deps;
    if (leaseLost.aborted)
      throw new WeftError('RUN_LEASE_LOST', `runner lost its lease on run ${this.#run.id}; another runner owns it now`, {
        data: { runId: this.#run.id },
      });
    const appended = await store.appendEvents(
      this.#run.id,
      heldStarts.placeIn(events),
      leaseOwner === undefined ? undefined : { leaseOwner },
    );
    onAppended?.(appended);
    return appended;
  }

  /** A new run goes queued → starting → running in one commit (nothing happens between); a resumed one from where it was. */
  async start(): Promise<void> {
    if (this.#status === 'queued') {
      await this.append([
        { type: RUN_EVENT.runStatusChanged, payload: { from: 'queued', to: 'starting' } },
        { type: RUN_EVENT.runStatusChanged, payload: { from: 'starting', to: 'running' } },
      ]);
      this.#status = 'running';
    } else if (this.#status === 'starting' || this.#status === 'blocked') await this.moveTo('running');
  }

  async moveTo(to: RunStatus, reason?: string): Promise<void> {
    if (this.#status === to) return;
    if (to === 'starting' && this.#status !== 'queued') return;
    await this.append([{ type: RUN_EVENT.runStatusChanged, payload: { from: this.#status, to, ...(reason ? { reason } : {}) } }]);
    this.#status = to;
  }

  /** True while a stage waits for an answer: a resumed run goes back to `blocked`, not `running`. */
  get blocked(): boolean {
    return this.#blockedStages > 0;
  }

  /** Runs `work` (a stage waiting for a person) with the run `blocked`; the last one to return moves it back to `running`. */
  async whileBlocked<T>(work: () => Promise<T>): Promise<T> {
    this.#blockedStages += 1;
    if (this.#blockedStages === 1 && this.#status === 'running') await this.moveTo('blocked');
    try {
      return await work();
    } finally {
      this.#blockedStages -= 1;
      if (this.#blockedStages === 0 && this.#status === 'blocked' && !this.#deps.leaseLost.aborted)
        await this.moveTo('running').catch(() => undefined);
    }
  }

  async finish(to: RunEnd, reason?: string): Promise<void> {
    this.#endReason = reason;
    await this.moveTo(to, reason);
  }
}
