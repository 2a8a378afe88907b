/**
 * `weft-runtime`: weft embedded in an application. A `Weft` creates, steers and reads runs
 * on a storage directory (the same SQLite store as the CLI, so `weft ps` sees them) and
 * follows a run's events as an async iterator. Runs execute in runner processes that weft
 * starts on demand, so the application never blocks on a stage. A facade over the
 * application services: everything here is what the CLI and the MCP server call too.
 *
 * @module weft-runtime
 */
import { createWeftApp, type WeftApp } from '../app/weft-app.js';
import type { RunService } from '../app/services/run-service.js';
import { isStoreOutage, OUTAGE_RETRY_MS } from '../app/services/store-outage.js';
import type { CreateRunRequest } from '../runs/model/create-run-request.js';
import { isTerminal } from '../runs/model/run-status.js';
import type { JsonValue } from '../runs/model/json.js';
import type { QuestionRecord } from '../runs/model/question.js';
import type { RunEvent } from '../runs/model/run-event.js';
import type { RunRecord } from '../runs/model/run-record.js';
import type { GitWorkspaceMode, RunOrigin, RunWorkspace, WorkspaceMode, WorkspaceSpec } from '../runs/model/run-workspace.js';
import type { ConcurrencySlot } from '../runs/model/run-concurrency.js';
import type { RunFilter, RunPage } from '../runs/store/run-store.js';
import type { LogLevel } from '../core/logger.js';
import { version } from '../core/package-version.js';
import { rememberApp } from './app-of.js';

export { WeftError, type WeftErrorCode, type WeftErrorOptions } from '../core/errors.js';
export { ERROR_CATALOGUE, type ErrorEntry, type FaultClass, type WeftErrorData, type WeftErrorDataOf } from '../core/error-catalogue.js';
export type { JsonObject, JsonPrimitive } from '../runs/model/json.js';
export type { QuestionKind, QuestionStatus } from '../runs/model/question.js';
export type { PairSession, RunCounts, RunLease } from '../runs/model/run-record.js';
export type { BudgetLimitsPayload, RunBudgetPayload, TokenUsagePayload } from '../runs/model/event-types.js';
export type {
  ConcurrencySlot,
  CreateRunRequest,
  JsonValue,
  QuestionRecord,
  RunEvent,
  RunFilter,
  RunPage,
  RunRecord,
  GitWorkspaceMode,
  RunOrigin,
  RunWorkspace,
  WorkspaceMode,
  WorkspaceSpec,
};
export type { RunStatus } from '../runs/model/run-status.js';
export type { LogLevel };

/** Where weft keeps its runs and which project it works in. */
export interface WeftOptions {
  /** Where runs, artifacts and logs live. Default: `$WEFT_HOME`, else `~/.weft`. */
  storageDir?: string;
  /** The project directory: relative workflow paths and `.weft/settings.toml` are read from here. Default: `process.cwd()`. */
  cwd?: string;
  /** The environment runners inherit and `${VAR}` references read. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  logLevel?: LogLevel;
}

/** A run to create (the fields of `weft run`); `cwd` defaults to the one weft was opened with. */
export type CreateRunOptions = Omit<CreateRunRequest, 'cwd'> & { cwd?: string };

/** Where `follow` starts and what stops it. */
export interface FollowOptions {
  /** Start after this event (default 0: from the first event). */
  afterSeq?: number;
  /** Stops the iteration. */
  signal?: AbortSignal;
}

/** How long a follower waits for a change notice before it looks again anyway (runners that died write nothing). */
const FOLLOW_RECHECK_MS = 1000;
const EVENT_PAGE = 500;

/**
 * @example
 * const weft = await createWeft({ storageDir: './.weft-data' });
 * const run = await weft.createRun({ workflow: 'flow.toml', autoApprove: true });
 * for await (const event of weft.follow(run.id)) console.log(event.type);
 * await weft.close();
 */
export class Weft {
  readonly #app: WeftApp;
  readonly #runs: RunService;

  private constructor(app: WeftApp, runs: RunService) {
    this.#app = app;
    this.#runs = runs;
    rememberApp(this, app);
  }

  /** Use {@link createWeft}. */
  static async open(options: WeftOptions = {}): Promise<Weft> {
    const app = await createWeftApp({ version, ...options, ...(options.logLevel ? {} : { logLevel: 'warn' as const }) });
    return new Weft(app, await app.runs());
  }

  /** The storage directory in use (absolute). */
  get storageDir(): string {
    return this.#app.storageDir;
  }

  /** Creates a run; it starts at once unless `start: false` (then `pending` without auto-approve, waiting for `approve`). */
  createRun(options: CreateRunOptions): Promise<RunRecord> {
    return this.#runs.create({ ...options, cwd: options.cwd ?? this.#app.workspaceRoot });
  }

  /** Starts a run created with `start: false`. */
  startRun(id: string): Promise<RunRecord> {
    return this.#runs.start(id);
  }

  /** The run as stored now; `RUN_NOT_FOUND` when there is none. */
  getRun(id: string): Promise<RunRecord> {
    return this.#runs.get(id);
  }

  /** Runs matching `filter`, newest first, one page at a time (`nextCursor`). */
  searchRuns(filter: RunFilter = {}): Promise<RunPage> {
    return this.#runs.search(filter);
  }

  /** Lets a `pending` run start. */
  approve(id: string): Promise<RunRecord> {
    return this.#runs.approve(id);
  }

  /** Refuses a `pending` run: it ends `cancelled` with the reason. */
  deny(id: string, reason?: string): Promise<RunRecord> {
    return this.#runs.deny(id, reason);
  }

  /** The questions the run asked (only unanswered ones with `pending: true`). */
  questions(id: string, options: { pending?: boolean } = {}): Promise<QuestionRecord[]> {
    return this.#runs.questions(id, options.pending ?? false);
  }

  /** Answers a question the run asked (`questionId` from `questions` or a `question-asked` event). */
  answer(id: string, questionId: string, answer: JsonValue): Promise<QuestionRecord> {
    return this.#runs.answer(id, questionId, answer);
  }

  /** Sends a message to a run that has not finished; its agents see it on their next turn. */
  message(id: string, text: string): Promise<RunRecord> {
    return this.#runs.message(id, text);
  }

  /** Sends a named signal with data, for `wait` nodes waiting on that event. */
  signal(id: string, name: string, data: JsonValue = null): Promise<RunRecord> {
    return this.#runs.signal(id, name, data);
  }

  /** Asks the run to stop: it ends `cancelled` once its runner has stopped the running stages. */
  cancel(id: string, reason?: string): Promise<RunRecord> {
    return this.#runs.cancel(id, reason);
  }

  /** Queues a `failed` or `cancelled` run again (what `weft retry` does). */
  retry(id: string): Promise<RunRecord> {
    return this.#runs.retry(id);
  }

  /** Resolves once every run is terminal (`timedOut: true` if `timeoutMs` passes first). */
  wait(
    ids: readonly string[],
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<{ runs: RunRecord[]; timedOut: boolean }> {
    return this.#runs.wait(ids, options.timeoutMs ?? Number.POSITIVE_INFINITY, options.signal);
  }

  /**
   * The run's events in order, as they are written (by runners in other processes too);
   * ends after the last event of a terminal run, or when `signal` aborts.
   */
  async *follow(id: string, options: FollowOptions = {}): AsyncGenerator<RunEvent, void, undefined> {
    let afterSeq = options.afterSeq ?? 0;
    const changes = this.#runs.changes();
    try {
      for (;;) {
        let events: RunEvent[];
        let run: RunRecord;
        try {
          events = await this.#runs.events(id, { afterSeq, limit: EVENT_PAGE });
          for (const event of events) {
            afterSeq = event.seq;
            yield event;
          }
          if (events.length === EVENT_PAGE) continue;
          if (options.signal?.aborted) return;
          run = await this.#runs.get(id);
        } catch (error) {
          // The store is coming back (PostgreSQL restarting, a network cut): go on from the last event yielded.
          if (!isStoreOutage(error) || options.signal?.aborted) throw error;
          await changes.next(OUTAGE_RETRY_MS, options.signal);
          continue;
        }
        changes.follow([run.id]);
        if (isTerminal(run.status) && run.counts.events <= afterSeq) return;
        this.#runs.ensureRunner(run);
        await changes.next(FOLLOW_RECHECK_MS, options.signal);
      }
    } finally {
      changes.close();
    }
  }

  /** Closes the store (runs keep going in their runners). */
  close(): Promise<void> {
    return this.#app.close();
  }
}

/** Opens weft on a storage directory. */
export function createWeft(options: WeftOptions = {}): Promise<Weft> {
  return Weft.open(options);
}
