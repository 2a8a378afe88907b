/**
 * Pairing: a person or an MCP client talks to a running agent stage. A session is two
 * run events — `pair-started` and `pair-ended` — and the run summary shows the open one
 * (`pairSession`); messages sent in a session are ordinary `message-sent` events
 * addressed to the session's stage and tagged with its id, so the agent reads them on
 * its next turn like any run message. One session per run at a time (the projection
 * refuses a second `pair-started`), and a session ends with its stage: the agent runner
 * records that, and the projection closes it anyway if the stage or run ends without.
 *
 * The service writes only events; it never talks to the runner, so it works from any
 * process that opens the store (the CLI, the MCP server).
 */
import { AGENT_EVENT, ENGINE_EVENT, RUN_EVENT, PAIR_END_REASON, type PairEndReason } from '../../runs/model/event-types.js';
import { cliAdapters } from '../../agent/cli-backend/cli-adapters.js';
import type { CliName } from '../../runs/workflow/types.js';
import { WeftError } from '../../core/errors.js';
import { assertUlid, newId as defaultNewId, type IdGenerator } from '../../core/ids.js';
import { MAX_PAIR_BY_LENGTH } from '../../runs/model/event-payloads.js';
import { STAGE_ID, type RunEvent } from '../../runs/model/run-event.js';
import { pairStartRefusal } from '../../runs/model/project-run.js';
import type { PairSession, RunRecord } from '../../runs/model/run-record.js';
import { isTerminal } from '../../runs/model/run-status.js';
import { STREAMED_TEXT_TYPE, TRANSCRIPT_EVENT_TYPES, transcriptEntry, type TranscriptEntry } from '../../runs/pair-transcript.js';
import { activeAgentStages, foldStages, type ActiveAgentStage, type StageRecord } from '../../runs/stage-fold.js';
import { eventsOf } from '../../runs/store/event-pages.js';
import { EVENT_LIMITS, type RunStore } from '../../runs/store/run-store.js';

/** The longest message, as for any run message. */
export const MAX_PAIR_MESSAGE_LENGTH = 64 * 1024;
export const TRANSCRIPT_LIMITS = { default: 100, max: EVENT_LIMITS.max } as const;

export interface PairServiceDeps {
  store: RunStore;
  /** Reads a run, refusing ids that are not ULIDs and runs that do not exist. */
  getRun(id: string): Promise<RunRecord>;
  newId?: IdGenerator;
}

export interface PairStatus {
  run: RunRecord;
  /** The running agent and prompt stages (only `agent` stages can be paired with). */
  stages: ActiveAgentStage[];
  session: PairSession | null;
}

export interface PairStarted {
  run: RunRecord;
  session: PairSession;
}

export interface PairMessageSent {
  run: RunRecord;
  /** Seq of the `message-sent` event. */
  seq: number;
  /** The session the message went to; null when none is open (it went to the whole run). */
  session: PairSession | null;
}

export interface PairEnded {
  run: RunRecord;
  session: PairSession;
  reason: PairEndReason;
  /** True when the session had ended before this call (ending twice is not an error). */
  alreadyEnded: boolean;
}

export interface TranscriptOptions {
  /** The first seq to show (default 1); pass the previous answer's `nextSeq`. */
  sinceSeq?: number;
  /** At most this many events are read (default 100, at most 1000). */
  limit?: number;
  /** Only this stage's entries, plus the run's own (status changes, messages to the whole run). */
  stageId?: string;
  /** Also the pieces of the model's text as it streams (`model-text-streamed` entries, the piece as their text), for a terminal that shows the answer live. */
  streamedText?: boolean;
}

export interface PairTranscript {
  run: RunRecord;
  entries: TranscriptEntry[];
  /** Where the next read starts: every event before it has been looked at. */
  nextSeq: number;
  session: PairSession | null;
}

function invalid(message: string): WeftError {
  return new WeftError('RUN_INVALID_PARAMS', message);
}

function stageList(stages: readonly { stageId: string }[]): string {
  return stages.map((stage) => stage.stageId).join(', ');
}

/** @example const { session } = await runs.pairing.start(runId, { by: 'cli (ana)' }); await runs.pairing.message(runId, 'Use tabs', session.sessionId); */
export class PairService {
  readonly #deps: PairServiceDeps;
  readonly #newId: IdGenerator;

  constructor(deps: PairServiceDeps) {
    this.#deps = deps;
    this.#newId = deps.newId ?? defaultNewId;
  }

  /** The running agent stages and the open session. A session whose stage has finished is never reported. */
  async status(runId: string): Promise<PairStatus> {
    const run = await this.#deps.getRun(runId);
    if (isTerminal(run.status)) return { run, stages: [], session: null };
    const activity = [...(await foldStages(this.#deps.store, runId)).stages.values()];
    const session = await this.#liveSession(run, activity);
    return {
      run: session === (run.pairSession ?? null) ? run : await this.#deps.getRun(runId),
      stages: activeAgentStages(activity),
      session,
    };
  }

  /** Opens a session with `stageId`, or with the one agent stage that is running when it is omitted. */
  async start(runId: string, options: { stageId?: string; by: string }): Promise<PairStarted> {
    const { stageId, by } = options;
    if (stageId !== undefined && !STAGE_ID.test(stageId))
      throw invalid(`Stage id '${stageId.slice(0, 80)}' must look like '<node>@<attempt>', e.g. 'implement@1'.`);
    if (by.trim() === '' || by.length > MAX_PAIR_BY_LENGTH) throw invalid(`'by' must be 1–${MAX_PAIR_BY_LENGTH} characters.`);
    const run = await this.#deps.getRun(runId);
    const ended = pairStartRefusal(runId, run.status, undefined);
    if (ended) throw ended;
    const activity = [...(await foldStages(this.#deps.store, runId, { countTurns: false })).stages.values()];
    const open = pairStartRefusal(runId, run.status, (await this.#liveSession(run, activity)) ?? undefined);
    if (open) throw open;
    const stage = this.#pickStage(run, activity, stageId);
    await this.#refuseCliWithoutMessages(runId, stage.stageId);
    const sessionId = this.#newId();
    const [event] = await this.#deps.store.appendEvents(runId, [
      { type: RUN_EVENT.pairStarted, stageId: stage.stageId, payload: { sessionId, stageId: stage.stageId, by } },
    ]);
    const session: PairSession = { sessionId, stageId: stage.stageId, by, startedAt: event!.at, startedSeq: event!.seq };
    // The stage may have finished between the check above and the append: then there is nothing to pair with.
    if (await this.#finishedSince(runId, run.counts.events, stage.stageId)) {
      const after = await this.#deps.getRun(runId);
      if (after.pairSession?.sessionId === sessionId) await this.#end(runId, session, PAIR_END_REASON.stageFinished);
      throw new WeftError('NO_ACTIVE_AGENT_STAGE', `Stage ${stage.stageId} of run ${runId} finished while the pair session was starting.`, {
        data: { runId, stageId: stage.stageId },
      });
    }
    return { run: await this.#deps.getRun(runId), session };
  }

  /**
   * Sends `text` to the open session's stage (tagged with the session), or to the whole
   * run when no session is open. With `sessionId`, that session must be the open one.
   */
  async message(runId: string, text: string, sessionId?: string): Promise<PairMessageSent> {
    if (typeof text !== 'string' || text.trim() === '') throw invalid('The message is empty; give the text the agent should read.');
    if (text.length > MAX_PAIR_MESSAGE_LENGTH) throw invalid(`The message is longer than ${MAX_PAIR_MESSAGE_LENGTH} characters.`);
    if (sessionId !== undefined) assertUlid(sessionId, 'pair session id');
    const run = await this.#deps.getRun(runId);
    if (isTerminal(run.status)) {
      throw new WeftError('RUN_INVALID_TRANSITION', `Run ${runId} is ${run.status}; messages reach only a run that has not ended.`, {
        data: { runId, status: run.status },
      });
    }
    const session = await this.#liveSession(run);
    if (sessionId !== undefined && session?.sessionId !== sessionId)
      throw noSuchSession(runId, sessionId, session, (await this.#sessions(runId)).get(sessionId));
    const [event] = await this.#deps.store.appendEvents(runId, [
      session
        ? { type: ENGINE_EVENT.messageSent, stageId: session.stageId, payload: { text, sessionId: session.sessionId } }
        : { type: ENGINE_EVENT.messageSent, payload: { text } },
    ]);
    return { run: await this.#deps.getRun(runId), seq: event!.seq, session };
  }

  /** Ends the open session (or `sessionId`; ending one that already ended says so instead of failing). */
  async end(runId: string, sessionId?: string): Promise<PairEnded> {
    if (sessionId !== undefined) assertUlid(sessionId, 'pair session id');
    const run = await this.#deps.getRun(runId);
    const live = isTerminal(run.status) ? null : await this.#liveSession(run);
    if (live && (sessionId === undefined || live.sessionId === sessionId)) {
      await this.#end(runId, live, 'ended');
      return { run: await this.#deps.getRun(runId), session: live, reason: 'ended', alreadyEnded: false };
    }
    if (sessionId === undefined) {
      throw new WeftError('NO_PAIR_SESSION', `Run ${runId} has no open pair session.`, { data: { runId } });
    }
    const past = (await this.#sessions(runId)).get(sessionId);
    if (!past) throw noSuchSession(runId, sessionId, live, past);
    return {
      run: await this.#deps.getRun(runId),
      session: past.session,
      reason: past.reason ?? PAIR_END_REASON.stageFinished,
      alreadyEnded: true,
    };
  }

  /** Readable entries from `sinceSeq` on, and the seq to read from next time. */
  async transcript(runId: string, options: TranscriptOptions = {}): Promise<PairTranscript> {
    const sinceSeq = options.sinceSeq ?? 1;
    const limit = options.limit ?? TRANSCRIPT_LIMITS.default;
    if (!Number.isSafeInteger(sinceSeq) || sinceSeq < 1)
      throw invalid(`since seq must be a whole number of at least 1, got ${String(sinceSeq)}.`);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > TRANSCRIPT_LIMITS.max)
      throw invalid(`limit must be a whole number from 1 to ${TRANSCRIPT_LIMITS.max}, got ${String(limit)}.`);
    if (options.stageId !== undefined && !STAGE_ID.test(options.stageId))
      throw invalid(`Stage id '${options.stageId.slice(0, 80)}' must look like '<node>@<attempt>', e.g. 'implement@1'.`);
    // The summary is read first, so events appended while we read are left for the next call, never skipped.
    const run = await this.#deps.getRun(runId);
    const last = run.counts.events;
    const events =
      sinceSeq > last
        ? []
        : await this.#deps.store.listEvents(runId, {
            afterSeq: sinceSeq - 1,
            beforeSeq: last + 1,
            types: options.streamedText ? [...TRANSCRIPT_EVENT_TYPES, STREAMED_TEXT_TYPE] : [...TRANSCRIPT_EVENT_TYPES],
            limit,
          });
    const shown =
      options.stageId === undefined ? events : events.filter((event) => event.stageId === undefined || event.stageId === options.stageId);
    const entries = shown.flatMap((event) => transcriptEntry(event) ?? []);
    const nextSeq = events.length === limit ? events.at(-1)!.seq + 1 : Math.max(sinceSeq, last + 1);
    return { run, entries, nextSeq, session: run.pairSession ?? null };
  }

  /** An agent stage on an external CLI that cannot take a message while it works (only Claude Code can) is not paired with. */
  async #refuseCliWithoutMessages(runId: string, stageId: string): Promise<void> {
    const started = (await this.#deps.store.listEvents(runId, { types: [AGENT_EVENT.agentStarted] })).find(
      (event) => event.stageId === stageId,
    );
    const cli = started?.payload.cli;
    if (typeof cli !== 'string' || cliAdapters[cli as CliName]?.messageLine !== undefined) return;
    const name = typeof started?.payload.provider === 'string' ? started.payload.provider : cli;
    throw new WeftError(
      'NO_ACTIVE_AGENT_STAGE',
      `Stage ${stageId} of run ${runId} runs on ${name}, which cannot take a message while it works; weft pair works with agent stages on weft's own loop or on Claude Code.`,
      { data: { runId, stageId, cli } },
    );
  }

  #pickStage(run: RunRecord, activity: readonly StageRecord[], stageId: string | undefined): StageRecord {
    const running = activity.filter((stage) => stage.status === 'running');
    const agents = running.filter((stage) => stage.kind === 'agent');
    const data = { runId: run.id, status: run.status, activeAgentStages: agents.map((stage) => stage.stageId) };
    const hint = agents.length > 0 ? `Agent stages running: ${stageList(agents)}.` : `No agent stage of run ${run.id} is running.`;
    if (stageId === undefined) {
      if (agents.length === 1) return agents[0]!;
      if (agents.length > 1)
        throw new WeftError(
          'RUN_INVALID_PARAMS',
          `Run ${run.id} has ${agents.length} agent stages running (${stageList(agents)}); give the stage id of the one to pair with.`,
          { data },
        );
      const others = running.length > 0 ? `; running now: ${running.map((stage) => `${stage.stageId} (${stage.kind})`).join(', ')}` : '';
      throw new WeftError(
        'NO_ACTIVE_AGENT_STAGE',
        `Run ${run.id} has no agent stage running (it is ${run.status}${others}). Pair while an agent stage runs; the pair status lists them.`,
        { data },
      );
    }
    const stage = activity.find((candidate) => candidate.stageId === stageId);
    if (!stage) throw new WeftError('STAGE_NOT_FOUND', `Run ${run.id} has no stage ${stageId}. ${hint}`, { data: { ...data, stageId } });
    if (stage.status !== 'running')
      throw new WeftError('NO_ACTIVE_AGENT_STAGE', `Stage ${stageId} of run ${run.id} has finished (${stage.status}). ${hint}`, {
        data: { ...data, stageId },
      });
    if (stage.kind !== 'agent') {
      const why = stage.kind === 'prompt' ? 'a prompt stage makes one model call and reads no messages' : 'only agent stages read messages';
      throw new WeftError('NO_ACTIVE_AGENT_STAGE', `Stage ${stageId} of run ${run.id} is a ${stage.kind} stage; ${why}. ${hint}`, {
        data: { ...data, stageId },
      });
    }
    return stage;
  }

  /**
   * The open session, checked against the log: one whose stage has finished (a start that
   * raced with the stage's end) is closed here and not returned.
   */
  async #liveSession(run: RunRecord, known?: readonly StageRecord[]): Promise<PairSession | null> {
    const session = run.pairSession;
    if (session === undefined) return null;
    const activity = known ?? [...(await foldStages(this.#deps.store, run.id, { countTurns: false })).stages.values()];
    const stage = activity.find((candidate) => candidate.stageId === session.stageId);
    if (stage !== undefined && stage.status === 'running') return session;
    await this.#end(run.id, session, PAIR_END_REASON.stageFinished);
    return null;
  }

  async #end(runId: string, session: PairSession, reason: PairEndReason): Promise<RunEvent> {
    const [event] = await this.#deps.store.appendEvents(runId, [
      { type: RUN_EVENT.pairEnded, stageId: session.stageId, payload: { sessionId: session.sessionId, reason } },
    ]);
    return event!;
  }

  /** Whether `stageId` finished after event `seq` (what the stage activity read before had seen). */
  async #finishedSince(runId: string, seq: number, stageId: string): Promise<boolean> {
    for await (const event of eventsOf(this.#deps.store, runId, { afterSeq: seq, types: [ENGINE_EVENT.stageFinished] }))
      if (event.stageId === stageId) return true;
    return false;
  }

  /** Every session the run has had, with how it ended (no reason: closed by its stage or run ending). */
  async #sessions(runId: string): Promise<Map<string, { session: PairSession; reason?: PairEndReason }>> {
    const sessions = new Map<string, { session: PairSession; reason?: PairEndReason }>();
    for await (const event of eventsOf(this.#deps.store, runId, { types: [RUN_EVENT.pairStarted, RUN_EVENT.pairEnded] })) {
      const id = String(event.payload.sessionId);
      if (event.type === RUN_EVENT.pairStarted) {
        sessions.set(id, {
          session: {
            sessionId: id,
            stageId: String(event.payload.stageId),
            by: String(event.payload.by),
            startedAt: event.at,
            startedSeq: event.seq,
          },
        });
      } else {
        const known = sessions.get(id);
        if (known && known.reason === undefined) known.reason = event.payload.reason as PairEndReason;
      }
    }
    return sessions;
  }
}

/** The session named is not the open one: it ended (`past`), or never was; says which session is open instead. */
function noSuchSession(
  runId: string,
  sessionId: string,
  open: PairSession | null,
  past: { reason?: PairEndReason } | undefined,
): WeftError {
  const now = open
    ? ` The open session is ${open.sessionId} on ${open.stageId}.`
    : ' No session is open; start one to talk to an agent stage.';
  const what = past
    ? `Pair session ${sessionId} of run ${runId} has ended${past.reason === 'ended' ? '' : ' (its stage finished)'}.`
    : `Run ${runId} has no pair session ${sessionId}.`;
  return new WeftError('NO_PAIR_SESSION', `${what}${now}`, { data: { runId, sessionId } });
}
