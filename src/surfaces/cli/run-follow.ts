/**
 * Follows a run's events until it ends: a line per event, and on a terminal a live
 * status line under them (spinner, stages in flight, elapsed time) rewritten in place.
 * Piped output gets the plain lines only.
 */
import { formatDuration } from '../../core/duration.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { isTerminal } from '../../runs/model/run-status.js';
import type { RunService } from '../../runs/run-service.js';
import { eventLine } from './event-lines.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface FollowOptions {
  json: boolean;
  pollMs?: number;
  signal?: AbortSignal;
  /** Stop once the run is terminal (default) — `events --follow` of a live run keeps going until it ends. */
  out?: NodeJS.WriteStream;
}

export async function followRun(runs: RunService, runId: string, options: FollowOptions): Promise<RunRecord> {
  const out = options.out ?? process.stdout;
  const live = !options.json && out.isTTY === true;
  const inflight = new Set<string>();
  const startedAt = Date.now();
  let afterSeq = 0;
  let frame = 0;
  let statusShown = false;

  const clearStatus = () => {
    if (live && statusShown) out.write('\r\x1b[2K');
    statusShown = false;
  };
  const drawStatus = (run: RunRecord) => {
    if (!live) return;
    frame = (frame + 1) % SPINNER.length;
    const stages = inflight.size > 0 ? [...inflight].join(', ') : run.status;
    out.write(`\r\x1b[2K${SPINNER[frame]} ${stages} · ${formatDuration(Date.now() - startedAt)}`);
    statusShown = true;
  };
  const print = (event: RunEvent) => {
    if (event.type === 'stage-started' && event.stageId) inflight.add(event.stageId);
    if (event.type === 'stage-finished' && event.stageId) inflight.delete(event.stageId);
    if (options.json) return out.write(`${JSON.stringify(event)}\n`);
    const line = eventLine(event);
    if (line === undefined) return;
    clearStatus();
    out.write(`${line}\n`);
  };

  for (;;) {
    const events = await runs.events(runId, { afterSeq, limit: 500 });
    for (const event of events) print(event);
    afterSeq = events.at(-1)?.seq ?? afterSeq;
    if (events.length === 500) continue;
    const run = await runs.get(runId);
    if (isTerminal(run.status) && run.counts.events <= afterSeq) {
      clearStatus();
      return run;
    }
    runs.ensureRunner(run);
    drawStatus(run);
    if (options.signal?.aborted) {
      clearStatus();
      return run;
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}
