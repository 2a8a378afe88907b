/**
 * Follows a run's events until it ends: a line per event, and on a terminal a live
 * status line under them (spinner, stages in flight, elapsed time) rewritten in place and
 * the model's text as it streams (`live-text.ts`). Piped output gets the plain lines only
 * (a turn's text in its turn line). New events are read when the store says it
 * changed (runners write from other processes); the only timer is the spinner's.
 */
import { AGENT_EVENT, ENGINE_EVENT } from '../../runs/model/event-types.js';
import { formatDuration } from '../../core/duration.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { isTerminal } from '../../runs/model/run-status.js';
import type { RunService } from '../../app/services/run-service.js';
import { isStoreOutage, OUTAGE_RETRY_MS } from '../../app/services/store-outage.js';
import { eventLine } from './event-lines.js';
import { LiveText } from './live-text.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** A spinner frame on a terminal. */
const FRAME_MS = 100;
/** Without a spinner: how soon a run nobody writes to is looked at again (its runner may have died). */
const IDLE_RECHECK_MS = 1000;

export interface FollowOptions {
  json: boolean;
  /** Print only events of these types (all are still read, so the end of the run is seen). */
  types?: readonly string[];
  /** Longest wait between two reads when the store reports no change (default: a spinner frame on a terminal, else 1 s). */
  pollMs?: number;
  signal?: AbortSignal;
  /** Where the lines go (default stdout). */
  out?: NodeJS.WriteStream;
  /** Hears every event read, printed or not. */
  onEvent?: (event: RunEvent) => void;
}

export async function followRun(runs: RunService, runId: string, options: FollowOptions): Promise<RunRecord> {
  const out = options.out ?? process.stdout;
  const live = !options.json && out.isTTY === true;
  const inflight = new Set<string>();
  const startedAt = Date.now();
  let afterSeq = 0;
  let frame = 0;
  let statusShown = false;
  const text = new LiveText(out);

  const clearStatus = () => {
    if (live && statusShown) out.write('\r\x1b[2K');
    statusShown = false;
  };
  const drawStatus = (run: RunRecord) => {
    if (!live || text.open) return;
    frame = (frame + 1) % SPINNER.length;
    const stages = inflight.size > 0 ? [...inflight].join(', ') : run.status;
    out.write(`\r\x1b[2K${SPINNER[frame]} ${stages} · ${formatDuration(Date.now() - startedAt)}`);
    statusShown = true;
  };
  const print = (event: RunEvent) => {
    options.onEvent?.(event);
    if (event.type === ENGINE_EVENT.stageStarted && event.stageId) inflight.add(event.stageId);
    if (event.type === ENGINE_EVENT.stageFinished && event.stageId) inflight.delete(event.stageId);
    if (options.types !== undefined && options.types.length > 0 && !options.types.includes(event.type)) return;
    if (options.json) return out.write(`${JSON.stringify(event)}\n`);
    if (live && event.type === AGENT_EVENT.modelTextStreamed) {
      clearStatus();
      return text.take(event);
    }
    const textShown = live && event.type === AGENT_EVENT.modelTurnFinished && text.finishTurn(event);
    const line = eventLine(event, { textShown });
    if (line === undefined) return;
    text.endLine();
    clearStatus();
    out.write(`${line}\n`);
  };

  // Watching starts before the first read, so an event written between a read and the wait is not missed.
  const changes = runs.changes();
  try {
    for (;;) {
      let events: RunEvent[];
      let run: RunRecord;
      try {
        events = await runs.events(runId, { afterSeq, limit: 500 });
        for (const event of events) print(event);
        afterSeq = events.at(-1)?.seq ?? afterSeq;
        if (events.length === 500) continue;
        run = await runs.get(runId);
      } catch (error) {
        // The store is coming back (PostgreSQL restarting, a network cut): keep following from the last event printed.
        if (!isStoreOutage(error) || options.signal?.aborted) throw error;
        await changes.next(OUTAGE_RETRY_MS, options.signal);
        continue;
      }
      changes.follow([run.id]);
      if (isTerminal(run.status) && run.counts.events <= afterSeq) {
        text.endLine();
        clearStatus();
        return run;
      }
      runs.ensureRunner(run);
      drawStatus(run);
      if (options.signal?.aborted) {
        text.endLine();
        clearStatus();
        return run;
      }
      await changes.next(options.pollMs ?? (live ? FRAME_MS : IDLE_RECHECK_MS), options.signal);
    }
  } finally {
    changes.close();
  }
}
