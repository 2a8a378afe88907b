/**
 * The in-memory `RunStore`, for engine unit tests: same rules as the SQLite store (the
 * shared planner and input checks), no persistence. Every result is a copy, so callers
 * cannot change stored state by mutating what they got. Change notices are direct: every
 * write queues one (coalesced per microtask) for the watchers, naming the runs written.
 */
import { RUN_EVENT } from '../../model/event-types.js';
import { WeftError } from '../../../core/errors.js';
import { assertUlid, newId as defaultNewId, type IdGenerator } from '../../../core/ids.js';
import { normalizeJsonObject, type JsonObject } from '../../model/json.js';
import { planAppend } from '../../model/plan-append.js';
import type { QuestionRecord } from '../../model/question.js';
import { type NewRunEvent, type RunEvent } from '../../model/run-event.js';
import { claimTime, type RunLease, type RunRecord, type RunSpec, type RunState } from '../../model/run-record.js';
import { isTerminal, type RunStatus } from '../../model/run-status.js';
import type {
  AppendOptions,
  ClaimFilter,
  Clock,
  CreateRunParams,
  ListEventsOptions,
  McpServerEntry,
  RunFilter,
  RunPage,
  RunStore,
  RunStoreOptions,
  UpdatedCursor,
  UpdatedRunsPage,
} from '../run-store.js';
import { becameClaimable, ChangeCollector, ChangeListeners, type StoreChangeListener } from '../store-change.js';
import {
  checkFence,
  checkLease,
  checkParentLink,
  claimFingerprint,
  concurrencyKeys,
  createRunEvents,
  encodeCursor,
  mcpServerName,
  normalizeEventQuery,
  normalizeFilter,
  normalizeUpdatedQuery,
  runId,
  runNotFound,
  runMatchesFilter,
  statusChangeEndsLease,
  updatedPage,
} from '../store-input.js';

interface StoredRun {
  spec: RunSpec;
  state: RunState;
  events: RunEvent[];
  lease?: RunLease;
}

const ORPHANABLE = new Set(['starting', 'running', 'blocked']);
/** Statuses in which a leased run holds its concurrency keys (as the SQL stores count). */
const HOLDING = new Set(['queued', 'starting', 'running', 'blocked', 'paused']);

export class MemoryRunStore implements RunStore {
  private readonly runs = new Map<string, StoredRun>();
  private readonly questions = new Map<string, QuestionRecord>();
  private readonly servers = new Map<string, McpServerEntry>();
  private readonly clock: Clock;
  private readonly newId: IdGenerator;
  private readonly watchers = new ChangeListeners();
  private readonly pending = new ChangeCollector();
  private closed = false;

  constructor(options: RunStoreOptions = {}) {
    this.clock = options.clock ?? Date.now;
    this.newId = options.newId ?? defaultNewId;
  }

  async createRun(params: CreateRunParams): Promise<RunRecord> {
    this.open();
    const id = runId(params?.id ?? this.newId());
    const events = createRunEvents(params);
    if (this.runs.has(id)) throw new WeftError('RUN_INVALID_PARAMS', `A run with id ${id} already exists.`);
    if (params.parentId !== undefined && !this.runs.has(params.parentId)) throw runNotFound(params.parentId);
    const plan = planAppend(undefined, events, this.context(id, true));
    if (plan.spec === undefined) throw new WeftError('INTERNAL', `Creating run ${id} produced no spec.`);
    this.runs.set(id, { spec: plan.spec, state: plan.state, events: [] });
    this.commit(id, plan.state, plan.events, plan.questions, undefined);
    return this.record(id);
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    this.open();
    return this.runs.has(runId(id)) ? this.record(id) : undefined;
  }

  async headSeq(id: string): Promise<number | undefined> {
    this.open();
    return this.runs.get(runId(id))?.events.at(-1)?.seq;
  }

  async searchRuns(filter?: RunFilter): Promise<RunPage> {
    this.open();
    const query = normalizeFilter(filter);
    const matches = [...this.runs.keys()]
      .map((id) => this.record(id))
      .filter((run) => runMatchesFilter(run, query))
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const page = matches.slice(0, query.limit);
    const last = page[page.length - 1];
    return matches.length > query.limit && last ? { runs: page, nextCursor: encodeCursor(last) } : { runs: page };
  }

  async listRunsUpdatedAfter(after: UpdatedCursor, limit?: number): Promise<UpdatedRunsPage> {
    this.open();
    const pageSize = normalizeUpdatedQuery(after, limit);
    const later = [...this.runs.entries()]
      .filter(([id, stored]) => stored.state.updatedAt > after.updatedAt || (stored.state.updatedAt === after.updatedAt && id > after.id))
      .sort(([a, x], [b, y]) => x.state.updatedAt - y.state.updatedAt || (a < b ? -1 : 1))
      .slice(0, pageSize + 1);
    return updatedPage(
      later,
      pageSize,
      ([id]) => this.record(id),
      ([id, stored]) => ({ updatedAt: stored.state.updatedAt, id }),
    );
  }

  async appendEvents(id: string, events: NewRunEvent[], options?: AppendOptions): Promise<RunEvent[]> {
    this.open();
    const stored = this.require(runId(id));
    checkFence(id, stored.lease?.workerId, stored.state.status, options?.leaseOwner);
    return structuredClone(this.append(id, events, false));
  }

  async listEvents(id: string, options?: ListEventsOptions): Promise<RunEvent[]> {
    this.open();
    const query = normalizeEventQuery(options);
    const stored = this.require(runId(id));
    const selected = stored.events.filter(
      (event) =>
        event.seq > query.afterSeq && event.seq < query.beforeSeq && (query.types === undefined || query.types.includes(event.type)),
    );
    if (query.direction === 'desc') selected.reverse();
    return structuredClone(selected.slice(0, query.limit));
  }

  async setArchived(id: string, archived: boolean): Promise<RunRecord> {
    this.open();
    const stored = this.require(runId(id));
    if (typeof archived !== 'boolean') throw new WeftError('RUN_INVALID_PARAMS', 'archived must be true or false.');
    if (stored.state.archived !== archived)
      this.append(id, [{ type: archived ? RUN_EVENT.runArchived : RUN_EVENT.runUnarchived, payload: {} }], true);
    return this.record(id);
  }

  async setParent(id: string, parentId: string | null): Promise<RunRecord> {
    this.open();
    const stored = this.require(runId(id));
    if (parentId !== null) {
      runId(parentId);
      checkParentLink(id, parentId, (ancestor) =>
        this.runs.has(ancestor) ? (this.runs.get(ancestor)?.state.parentId ?? null) : undefined,
      );
    }
    if ((stored.state.parentId ?? null) !== parentId) this.append(id, [{ type: RUN_EVENT.runParentChanged, payload: { parentId } }], true);
    return this.record(id);
  }

  async listQuestions(id: string, options: { pending?: boolean } = {}): Promise<QuestionRecord[]> {
    this.open();
    this.require(runId(id));
    const all = [...this.questions.values()].filter(
      (question) => question.runId === id && (options.pending !== true || question.status === 'pending'),
    );
    return structuredClone(all.sort((a, b) => a.askedAt - b.askedAt || (a.id < b.id ? -1 : 1)));
  }

  async getQuestion(id: string): Promise<QuestionRecord | undefined> {
    this.open();
    const question = this.questions.get(assertUlid(id, 'question id'));
    return question === undefined ? undefined : structuredClone(question);
  }

  async claimRun(workerId: string, leaseMs: number, now: number = this.clock(), filter?: ClaimFilter): Promise<RunRecord | undefined> {
    this.open();
    checkLease(workerId, leaseMs);
    const fingerprint = claimFingerprint(filter);
    const free = (stored: StoredRun) => (stored.lease?.expiresAt ?? 0) <= now;
    const all = [...this.runs.values()].filter((stored) => fingerprint === undefined || stored.spec.envFingerprint === fingerprint);
    const byAge = (a: StoredRun, b: StoredRun) => a.spec.createdAt - b.spec.createdAt || (a.spec.id < b.spec.id ? -1 : 1);
    const byClaimTime = (a: StoredRun, b: StoredRun) => claimTime(a.spec) - claimTime(b.spec) || (a.spec.id < b.spec.id ? -1 : 1);
    const held = (key: string) => this.#held(key, now);
    const room = (stored: StoredRun) => (stored.spec.concurrency ?? []).every(({ key, limit }) => held(key) < limit);
    const orphan = all
      .filter((stored) => ORPHANABLE.has(stored.state.status) && free(stored) && room(stored))
      .sort((a, b) => (a.lease?.expiresAt ?? 0) - (b.lease?.expiresAt ?? 0) || byAge(a, b))[0];
    const claimed = orphan ?? all.filter((stored) => stored.state.status === 'queued' && free(stored) && room(stored)).sort(byClaimTime)[0];
    if (claimed === undefined) return undefined;
    claimed.lease = { workerId, expiresAt: now + leaseMs };
    this.changed(claimed.spec.id);
    return this.record(claimed.spec.id);
  }

  async concurrencyHeld(keys: readonly string[], now: number = this.clock()): Promise<Record<string, number>> {
    this.open();
    return Object.fromEntries(concurrencyKeys(keys).map((key) => [key, this.#held(key, now)]));
  }

  /** Unfinished runs carrying `key` under a live lease. */
  #held(key: string, now: number): number {
    let count = 0;
    for (const stored of this.runs.values()) {
      if (
        HOLDING.has(stored.state.status) &&
        stored.lease !== undefined &&
        stored.lease.expiresAt > now &&
        stored.spec.concurrency?.some((slot) => slot.key === key) === true
      )
        count += 1;
    }
    return count;
  }

  async renewLease(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    this.open();
    checkLease(workerId, leaseMs);
    const stored = this.require(runId(id));
    if (stored.lease?.workerId !== workerId) return false;
    stored.lease = { workerId, expiresAt: this.clock() + leaseMs };
    this.changed(id);
    return true;
  }

  async releaseLease(id: string, workerId: string): Promise<boolean> {
    this.open();
    checkLease(workerId, 1);
    const stored = this.require(runId(id));
    if (stored.lease?.workerId !== workerId) return false;
    delete stored.lease;
    this.changed(id, true);
    return true;
  }

  async putMcpServer(name: string, config: JsonObject): Promise<McpServerEntry> {
    this.open();
    const entry = {
      name: mcpServerName(name),
      config: normalizeJsonObject(config, `config of MCP server '${name}'`).value,
      updatedAt: this.clock(),
    };
    this.servers.set(name, entry);
    this.changed(undefined);
    return structuredClone(entry);
  }

  async deleteMcpServer(name: string): Promise<boolean> {
    this.open();
    const deleted = this.servers.delete(mcpServerName(name));
    if (deleted) this.changed(undefined);
    return deleted;
  }

  async listMcpServers(): Promise<McpServerEntry[]> {
    this.open();
    return structuredClone([...this.servers.values()].sort((a, b) => (a.name < b.name ? -1 : 1)));
  }

  async deleteRun(id: string): Promise<void> {
    this.open();
    const stored = this.require(runId(id));
    if (!isTerminal(stored.state.status)) {
      throw new WeftError(
        'RUN_NOT_TERMINAL',
        `Run ${id} is ${stored.state.status}; only a succeeded, failed or cancelled run can be deleted. Cancel it first.`,
        { data: { runId: id, status: stored.state.status } },
      );
    }
    for (const child of this.runs.values()) {
      if (child.state.parentId === id)
        this.append(child.spec.id, [{ type: RUN_EVENT.runParentChanged, payload: { parentId: null } }], true);
    }
    for (const question of this.questions.values()) if (question.runId === id) this.questions.delete(question.id);
    this.runs.delete(id);
    this.changed(id);
  }

  watchChanges(listener: StoreChangeListener): () => void {
    return this.watchers.add(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watchers.close();
  }

  private append(id: string, events: NewRunEvent[], allowReserved: boolean): RunEvent[] {
    const stored = this.require(id);
    const plan = planAppend(stored.state, events, this.context(id, allowReserved));
    if (statusChangeEndsLease(stored.state.status, plan.state.status)) delete stored.lease;
    this.commit(id, plan.state, plan.events, plan.questions, stored.state.status);
    return plan.events;
  }

  private commit(id: string, state: RunState, events: RunEvent[], questions: QuestionRecord[], from: RunStatus | undefined): void {
    const stored = this.require(id);
    stored.events.push(...events);
    stored.state = state;
    for (const question of questions) this.questions.set(question.id, question);
    this.changed(id, becameClaimable(from, state.status));
  }

  /**
   * Queues one notice for the watchers naming run `id` (no id: the MCP catalogue, told as
   * unknown); the writes of one synchronous stretch share it.
   */
  private changed(id: string | undefined, claimable = false): void {
    if (this.watchers.size === 0) return;
    const first = this.pending.empty;
    if (id === undefined) this.pending.unknown();
    else {
      const stored = this.runs.get(id);
      this.pending.run({ id, ...(stored ? { headSeq: stored.events.at(-1)?.seq ?? 0, status: stored.state.status } : {}) }, claimable);
    }
    if (!first) return;
    queueMicrotask(() => {
      const change = this.pending.take();
      if (change !== undefined) this.watchers.tell(change);
    });
  }

  private context(id: string, allowReserved: boolean) {
    return {
      runId: id,
      now: Math.trunc(this.clock()),
      allowReserved,
      lookupQuestion: (questionId: string) => this.questions.get(questionId),
    };
  }

  private require(id: string): StoredRun {
    const stored = this.runs.get(id);
    if (stored === undefined) throw runNotFound(id);
    return stored;
  }

  private record(id: string): RunRecord {
    const stored = this.require(id);
    const summary: RunRecord = structuredClone({ ...stored.spec, ...stored.state });
    return stored.lease === undefined ? summary : { ...summary, lease: { ...stored.lease } };
  }

  private open(): void {
    if (this.closed) throw new WeftError('STORE_FAILED', 'The run store is closed; open a new one.');
  }
}
