/**
 * The application service for runs, shared by the CLI, the MCP server and the HTTP API:
 * create runs from workflow files, steer them (approve, deny, answer, message, interrupt,
 * cancel, retry, archive), read them, and wait for them. It only writes to the store;
 * runners execute (see `engine/worker.ts`), so a surface that exits never kills a run.
 */
import { ENGINE_EVENT, RUN_EVENT } from '../../runs/model/event-types.js';
import { WeftError } from '../../core/errors.js';
import { assertUlid } from '../../core/ids.js';
import type { WorkspaceHost } from '../../runs/engine/run-files.js';
import { WorkspaceService } from './workspace-service.js';
import type { JsonObject, JsonValue } from '../../runs/model/json.js';
import type { QuestionRecord } from '../../runs/model/question.js';
import { type RunEvent } from '../../runs/model/run-event.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { isTerminal, RUN_TRANSITIONS, type RunStatus } from '../../runs/model/run-status.js';
import { answerFromText } from '../../runs/answer-text.js';
import { PairService } from './pair-service.js';
import { resolveRunRef, wholeRunId } from './run-ref.js';
import { requestCancel } from '../../runs/run-cancel.js';
import { foldStages, runResults, type RunResults, type StageFold, type StageRecord } from '../../runs/stage-fold.js';
import { eventsOf } from '../../runs/store/event-pages.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { RunEventFanout, type EventFollower } from './run-event-fanout.js';
import { RunListFanout, type ListFollower } from './run-list-fanout.js';
import { ChangeLatch } from '../../runs/store/change-latch.js';
import { isOrphaned, waitForRuns } from './run-waiter.js';
import type { ListEventsOptions, RunFilter, RunPage, RunStore, StoreChangeListener } from '../../runs/store/run-store.js';
import { loadWorkflow, type Workflow } from '../../runs/workflow/index.js';
import { concurrencyWaits, type ConcurrencyWait } from './concurrency-waits.js';
import type { ConcurrencyDefaultsReader } from './concurrency-defaults.js';
import type { CreateRunRequest } from '../../runs/model/create-run-request.js';
import { createRun } from './run-creation.js';
import type { RunSandboxView } from './run-sandbox-view.js';

export type { CreateRunRequest };

export interface RunServiceDeps {
  store: RunStore;
  clock: () => number;
  /** Makes sure a runner will pick the run up (spawns one if needed). */
  wakeRunners: () => void;
  /** The creator's environment fingerprint, stored on every run created here (see `RunSpec.envFingerprint`); asked on the first create. */
  envFingerprint?: () => string;
  /**
   * Where this host keeps run workspaces: with it, runs get their own git workspace (see
   * `run-workspace-setup.ts`); without it (tests of the service alone) every run works in place.
   */
  workspaces?: WorkspaceHost;
  /** The app's logger: the live fan-outs report their read failures to it. Default: silent. */
  logger?: Logger;
  /** Whether a run is sandboxed and with which rules (`run-sandbox-view.ts`); absent: reported as unknown. */
  sandboxView?: (run: RunRecord) => Promise<RunSandboxView>;
  /** `[run.concurrency]` of the settings in a run's directory, for workflows without keys; absent: none. */
  concurrencyDefaults?: ConcurrencyDefaultsReader;
}

function notFound(id: string): WeftError {
  return new WeftError('RUN_NOT_FOUND', `No run with id ${id}. List runs with 'weft ps --all'.`, { data: { runId: id } });
}

export class RunService {
  readonly #deps: RunServiceDeps;
  #pairing: PairService | undefined;
  #workspaceService: WorkspaceService | undefined;
  #events: RunEventFanout | undefined;
  #list: RunListFanout | undefined;

  constructor(deps: RunServiceDeps) {
    this.#deps = deps;
  }

  /** Every event of a run, a page at a time (an export). */
  allEvents(id: string): AsyncIterable<RunEvent> {
    return eventsOf(this.#deps.store, id);
  }

  /** Folds the run's events after `fold.seq` into `fold` (a cached view reading only what is new). */
  foldInto(fold: StageFold, id: string): Promise<StageFold> {
    return fold.readFrom(this.#deps.store, id);
  }

  /**
   * Follows a run's events live from after `afterSeq`; every follower of this service
   * shares one reader per run (HTTP SSE streams, the dashboard).
   */
  followEvents(runId: string, afterSeq: number, types?: readonly string[]): EventFollower {
    this.#events ??= new RunEventFanout(this.#deps.store, this.#deps.logger ?? silentLogger);
    return this.#events.follow(runId, afterSeq, types);
  }

  /** Follows the runs that change from `after` (epoch ms) on, as `pick` sees them; all followers share one reader. */
  followList<T>(pick: (run: RunRecord) => T | undefined, after?: number): ListFollower<T> {
    this.#list ??= new RunListFanout(this.#deps.store, this.#deps.logger ?? silentLogger, { clock: this.#deps.clock });
    return this.#list.follow(pick, after);
  }

  /** Diff, rewind, fork and merge of runs' workspaces on this host. */
  get workspaces(): WorkspaceService {
    const host = this.#deps.workspaces;
    if (host === undefined)
      throw new WeftError('INTERNAL', 'This run service was built without a workspace root; workspaces cannot be read here.');
    this.#workspaceService ??= new WorkspaceService(this, this.#deps.store, host);
    return this.#workspaceService;
  }

  /** Pair sessions with running agent stages (`weft pair`, `weft_run_pair`), over the same store. */
  get pairing(): PairService {
    this.#pairing ??= new PairService({ store: this.#deps.store, getRun: (id) => this.get(id) });
    return this.#pairing;
  }

  /** Makes a run of a workflow file (`run-creation.ts`): pending, or queued when auto-approved, unless `start` is false. */
  create(request: CreateRunRequest): Promise<RunRecord> {
    return createRun({ ...this.#deps, get: (ref) => this.get(ref) }, request);
  }

  /** Whether the run is sandboxed and with which rules, resolved against the folder it works in on this host. */
  async sandbox(run: RunRecord): Promise<RunSandboxView> {
    return this.#deps.sandboxView?.(run) ?? { sandboxed: false, rules: null, summary: 'unknown (no sandbox view on this service)' };
  }

  /** Accepts a whole run id, any unique prefix of one (any case), or `@last`; see `run-ref.ts`. */
  async get(ref: string): Promise<RunRecord> {
    // A whole id is read at once: no extra await, so a waiter's first read comes before writes that follow it.
    const id = wholeRunId(ref) ?? (await resolveRunRef(this.#deps.store, ref));
    const run = await this.#deps.store.getRun(id);
    if (!run) throw notFound(id);
    return run;
  }

  /**
   * Calls `listener` after every change to the store, other processes' writes included, so a
   * reader (resource subscriptions) can look again without a timer. Returns the function that stops it.
   */
  watchChanges(listener: StoreChangeListener): () => void {
    return this.#deps.store.watchChanges(listener);
  }

  /** Why each of `runs` that is queued waits for a concurrency key, by run id (see concurrency-waits.ts). */
  concurrencyWaits(runs: readonly RunRecord[]): Promise<Map<string, ConcurrencyWait[]>> {
    return concurrencyWaits(this.#deps.store, runs);
  }

  async search(filter: RunFilter): Promise<RunPage> {
    const parentId = filter.parentId === undefined ? undefined : (await this.get(filter.parentId)).id;
    return this.#deps.store.searchRuns({ ...filter, ...(parentId === undefined ? {} : { parentId }) });
  }

  async events(ref: string, options: ListEventsOptions = {}): Promise<RunEvent[]> {
    const { id } = await this.get(ref);
    return this.#deps.store.listEvents(id, options);
  }

  async questions(ref: string, pendingOnly = false): Promise<QuestionRecord[]> {
    const { id } = await this.get(ref);
    return this.#deps.store.listQuestions(id, pendingOnly ? { pending: true } : {});
  }

  /** Every stage of the run in start order, with how each ended (status, duration, output, error). */
  /** `countTurns: false` spares reading the agents' turns (a graph needs only states). */
  async stages(ref: string, options: { countTurns?: boolean } = {}): Promise<StageRecord[]> {
    const { id } = await this.get(ref);
    return [...(await foldStages(this.#deps.store, id, options)).stages.values()];
  }

  /** submitted → pending|queued; a paused run resumes. */
  async start(id: string): Promise<RunRecord> {
    const run = await this.get(id);
    if (run.status === 'paused') return this.#request(run, ENGINE_EVENT.resumeRequested, {});
    if (run.status !== 'submitted') throw this.#wrongState(run, 'started', ['submitted', 'paused']);
    return this.#transition(run, run.autoApprove ? 'queued' : 'pending');
  }

  async approve(id: string): Promise<RunRecord> {
    const run = await this.get(id);
    if (run.status !== 'pending') throw this.#wrongState(run, 'approved', ['pending']);
    return this.#transition(run, 'queued');
  }

  async deny(id: string, reason?: string): Promise<RunRecord> {
    const run = await this.get(id);
    if (run.status !== 'pending') throw this.#wrongState(run, 'denied', ['pending']);
    return this.#transition(run, 'cancelled', `denied${reason ? `: ${reason}` : ''}`);
  }

  async answer(ref: string, questionId: string, answer: JsonValue): Promise<QuestionRecord> {
    const { id } = await this.get(ref);
    assertUlid(questionId, 'question id');
    const question = await this.#deps.store.getQuestion(questionId);
    if (!question || question.runId !== id) {
      const pending = await this.#deps.store.listQuestions(id, { pending: true });
      throw new WeftError(
        'QUESTION_NOT_FOUND',
        `Run ${id} has no question ${questionId}.${pending.length > 0 ? ` Pending: ${pending.map((q) => `${q.id} (${q.prompt.slice(0, 60)})`).join(', ')}.` : ' It has no pending questions.'}`,
        { data: { runId: id, questionId } },
      );
    }
    await this.#deps.store.appendEvents(id, [
      { type: RUN_EVENT.questionAnswered, stageId: question.stageId, payload: { questionId, answer } },
    ]);
    return (await this.#deps.store.getQuestion(questionId)) ?? question;
  }

  /** Like `answer`, with the answer typed as text (`yes`, `a,b`, …) and converted for the question's kind. */
  async answerText(id: string, questionId: string, text: string): Promise<QuestionRecord> {
    assertUlid(questionId, 'question id');
    const question = await this.#deps.store.getQuestion(questionId);
    return this.answer(id, questionId, question ? answerFromText(question, text) : text);
  }

  /** Each stage's status and output, and the run's final output. */
  async results(id: string): Promise<RunResults> {
    await this.get(id);
    return runResults(await foldStages(this.#deps.store, id));
  }

  async message(id: string, text: string): Promise<RunRecord> {
    const run = await this.get(id);
    if (isTerminal(run.status)) throw this.#wrongState(run, 'sent a message', ['running', 'blocked', 'paused']);
    return this.#request(run, ENGINE_EVENT.messageSent, { text });
  }

  async signal(id: string, name: string, data: JsonValue = null): Promise<RunRecord> {
    const run = await this.get(id);
    if (isTerminal(run.status)) throw this.#wrongState(run, 'signalled', ['running', 'blocked', 'paused']);
    // A name no `wait` stage listens for would be recorded and never read: refuse it while the sender can still fix it.
    const awaited = awaitedEvents(await loadWorkflow(run.workflowPath));
    if (!awaited.includes(name)) {
      const names =
        awaited.length > 0 ? `it awaits ${awaited.map((item) => `'${item}'`).join(', ')}` : 'its workflow has no wait stage with an event';
      throw new WeftError('RUN_INVALID_PARAMS', `Run ${run.id} does not await the event '${name}'; ${names}.`, {
        data: { runId: run.id, awaited },
      });
    }
    return this.#request(run, ENGINE_EVENT.signalSent, { name, data });
  }

  async interrupt(id: string): Promise<RunRecord> {
    const run = await this.get(id);
    if (run.status !== 'running' && run.status !== 'blocked') throw this.#wrongState(run, 'interrupted', ['running', 'blocked']);
    return this.#request(run, ENGINE_EVENT.interruptRequested, {});
  }

  async cancel(ref: string, reason?: string): Promise<RunRecord> {
    const { id } = await this.get(ref);
    return requestCancel(this.#deps.store, id, reason, this.#deps.clock());
  }

  async retry(id: string): Promise<RunRecord> {
    const run = await this.get(id);
    if (run.status !== 'failed' && run.status !== 'cancelled') throw this.#wrongState(run, 'retried', ['failed', 'cancelled']);
    const retried = await this.#transition(run, 'queued', 'retry');
    this.#deps.wakeRunners();
    return retried;
  }

  async archive(ref: string, archived: boolean): Promise<RunRecord> {
    const { id } = await this.get(ref);
    return this.#deps.store.setArchived(id, archived);
  }

  async setParent(ref: string, parentRef: string | null): Promise<RunRecord> {
    const { id } = await this.get(ref);
    const parentId = parentRef === null ? null : (await this.get(parentRef)).id;
    return this.#deps.store.setParent(id, parentId);
  }

  async remove(id: string): Promise<void> {
    const run = await this.get(id);
    if (!isTerminal(run.status)) throw this.#wrongState(run, 'removed', ['succeeded', 'failed', 'cancelled']);
    // The workspace first: if git refuses, the run is still there to remove again.
    if (this.#deps.workspaces !== undefined) await this.workspaces.removeFor(run);
    await this.#deps.store.deleteRun(id);
  }

  /**
   * Resolves when every run is terminal, or when `timeoutMs` passes or `signal` aborts
   * (`timedOut: true`); `returnEarly` ends the wait sooner. See `run-waiter.ts`.
   */
  async wait(
    refs: readonly string[],
    timeoutMs: number,
    signal?: AbortSignal,
    onChange?: (runs: RunRecord[]) => void,
    returnEarly?: (runs: readonly RunRecord[]) => boolean,
  ): Promise<{ runs: RunRecord[]; timedOut: boolean }> {
    const { clock, wakeRunners } = this.#deps;
    return waitForRuns(
      { get: (id) => this.get(id), changes: () => this.changes(), clock, wakeRunners },
      { refs, timeoutMs, signal, onChange, returnEarly },
    );
  }

  /**
   * A latch on the store's change notices for a loop that reads, then waits (following a
   * run). Create it before the first read; close it when done. With `runIds` (whole ids;
   * or later, `follow`), it wakes only for notices that may concern those runs.
   */
  changes(runIds?: readonly string[]): ChangeLatch {
    return new ChangeLatch(this.#deps.store, runIds);
  }

  /** Starts a runner when nobody executes this run (queued, or its runner died). */
  ensureRunner(run: RunRecord): void {
    if (isOrphaned(run, this.#deps.clock())) this.#deps.wakeRunners();
  }

  async #transition(run: RunRecord, to: RunStatus, reason?: string): Promise<RunRecord> {
    try {
      await this.#deps.store.appendEvents(run.id, [
        { type: RUN_EVENT.runStatusChanged, payload: { from: run.status, to, ...(reason ? { reason } : {}) } },
      ]);
    } catch (error) {
      if (WeftError.is(error, 'RUN_INVALID_TRANSITION'))
        throw this.#wrongState(await this.get(run.id), `moved to ${to}`, RUN_TRANSITIONS[run.status].length > 0 ? [run.status] : []);
      throw error;
    }
    if (to === 'queued') this.#deps.wakeRunners();
    return this.get(run.id);
  }

  async #request(run: RunRecord, type: string, payload: JsonObject): Promise<RunRecord> {
    await this.#deps.store.appendEvents(run.id, [{ type, payload }]);
    return this.get(run.id);
  }

  #wrongState(run: RunRecord, action: string, allowed: readonly RunStatus[]): WeftError {
    return new WeftError(
      'RUN_INVALID_TRANSITION',
      `Run ${run.id} is ${run.status}${run.reason ? ` (${run.reason})` : ''}; it can be ${action} only when ${allowed.join(' or ')}.`,
      {
        data: { runId: run.id, status: run.status },
      },
    );
  }
}

/** The event names the workflow's `wait` stages listen for, sorted. */
export function awaitedEvents(workflow: Workflow): string[] {
  const names = Object.values(workflow.nodes).flatMap((node) => (node.kind === 'wait' && node.event !== undefined ? [node.event] : []));
  return [...new Set(names)].sort();
}
