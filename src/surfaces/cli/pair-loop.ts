/**
 * The conversation behind `weft pair`: opens a pair session, prints the stage's
 * transcript so far and then each new entry as it lands, and sends every line read from
 * the input as a message. It ends on `/end`, end of input (Ctrl-D), Ctrl-C (or the
 * abort signal), or by itself when the stage or the run finishes. On a terminal the input
 * line stays under the transcript and the agent's answer shows as it streams; otherwise the
 * output is plain lines.
 */
import { AGENT_EVENT, ENGINE_EVENT, RUN_EVENT, PAIR_END_REASON, type PairEndReason } from '../../runs/model/event-types.js';
import { createInterface, type Interface } from 'node:readline';
import { WeftError } from '../../core/errors.js';
import type { PairService } from '../../app/services/pair-service.js';
import type { TranscriptEntry } from '../../runs/pair-transcript.js';
import type { ChangeLatch } from '../../runs/store/change-latch.js';

export interface PairLoopOptions {
  pairing: Pick<PairService, 'start' | 'message' | 'end' | 'transcript'>;
  runId: string;
  stageId?: string;
  /** Who pairs, recorded on the session. */
  by: string;
  input: NodeJS.ReadableStream;
  /** Transcript lines (JSON Lines with `json`). */
  output: NodeJS.WritableStream;
  /** What the loop itself says: how to end, how it ended. */
  notes: NodeJS.WritableStream;
  /** A person at a terminal: a prompt, Ctrl-C ends the session. */
  interactive: boolean;
  json: boolean;
  /** The store's change notices: the transcript is read again when one comes (or after `pollMs`, default 1 s, as a safety net). */
  changes: () => ChangeLatch;
  pollMs?: number;
  /** Ends the session when aborted (the command wires SIGINT and SIGTERM to it). */
  signal?: AbortSignal;
}

export interface PairLoopResult {
  sessionId: string;
  stageId: string;
  reason: PairEndReason;
  /** Messages this loop sent. */
  sent: number;
}

const MARK: Record<string, string> = {
  [AGENT_EVENT.modelTurnFinished]: '◆',
  [RUN_EVENT.toolCallStarted]: '  ⚙',
  [RUN_EVENT.toolCallFinished]: '  ↳',
  [ENGINE_EVENT.messageSent]: '✉',
  [AGENT_EVENT.messageDelivered]: '  ✓',
  [RUN_EVENT.pairStarted]: '●',
  [RUN_EVENT.pairEnded]: '●',
  [RUN_EVENT.questionAsked]: '?',
};

/**
 * On a terminal, the agent's answer as it streams in (`model-text-streamed` entries) after a
 * `◆`. Another entry landing mid-turn ends the line and stops this turn's live text; its
 * turn entry then shows the text whole, as it does when piped.
 */
class StreamedAnswer {
  /** True while the cursor is at the end of streamed text (no newline yet). */
  #open = false;
  /** Some of the current turn's text is on screen. */
  #shown = false;
  /** The current turn's live text was cut by another line. */
  #cut = false;

  readonly #out: NodeJS.WritableStream;

  constructor(out: NodeJS.WritableStream) {
    this.#out = out;
  }

  get open(): boolean {
    return this.#open;
  }

  take(text: string): void {
    if (this.#cut) return;
    if (!this.#open) this.#out.write('◆ ');
    this.#open = this.#shown = true;
    this.#out.write(text.replace(/\n/g, '\n  '));
  }

  /** Ends the line for another entry; the rest of this turn's text waits for its turn entry. */
  cut(): void {
    if (!this.#open) return;
    this.#out.write('\n');
    this.#open = false;
    this.#cut = true;
  }

  /** At the turn's entry: true when its whole text was shown live (the entry is then left out). */
  finishTurn(): boolean {
    const whole = this.#shown && !this.#cut;
    if (this.#open) this.#out.write('\n');
    this.#open = this.#shown = this.#cut = false;
    return whole;
  }
}

/** One transcript entry as printed: a mark by type, then the text. */
export function entryLine(entry: TranscriptEntry): string {
  return `${MARK[entry.type] ?? '·'} ${entry.text}`;
}

/**
 * Runs one pair session to its end.
 *
 * @example await runPairLoop({ pairing: runs.pairing, runId, by: 'cli', input: process.stdin, output: process.stdout, notes: process.stderr, interactive: false, json: false });
 */
export async function runPairLoop(options: PairLoopOptions): Promise<PairLoopResult> {
  const { pairing, runId, output } = options;
  const { session } = await pairing.start(runId, {
    ...(options.stageId === undefined ? {} : { stageId: options.stageId }),
    by: options.by,
  });
  let rl: Interface | undefined;
  let nextSeq = 1;
  let sent = 0;

  const live = new StreamedAnswer(output);
  const write = (entries: TranscriptEntry[]) => {
    if (entries.length === 0) return;
    const redraw = rl !== undefined && options.interactive;
    // The prompt line is cleared for what comes, and drawn again below it unless an answer is still streaming.
    if (redraw && !live.open) output.write('\r\x1b[2K');
    for (const entry of entries) {
      if (options.json) output.write(`${JSON.stringify(entry)}\n`);
      else if (entry.type === AGENT_EVENT.modelTextStreamed) live.take(entry.text);
      else if (entry.type === AGENT_EVENT.modelTurnFinished && live.finishTurn()) continue;
      else {
        live.cut();
        output.write(`${entryLine(entry)}\n`);
      }
    }
    if (redraw && !live.open) rl!.prompt(true);
  };
  // One reader at a time, so the follow timer and a message never print an entry twice.
  let reading: Promise<boolean> = Promise.resolve(true);
  const pump = (): Promise<boolean> => {
    reading = reading.then(async () => {
      for (;;) {
        const page = await pairing.transcript(runId, {
          sinceSeq: nextSeq,
          limit: 1000,
          stageId: session.stageId,
          streamedText: options.interactive,
        });
        write(page.entries);
        const more = page.nextSeq <= page.run.counts.events;
        nextSeq = page.nextSeq;
        if (!more) return page.session?.sessionId === session.sessionId;
      }
    });
    return reading;
  };

  options.notes.write(
    options.interactive
      ? `Pairing with ${session.stageId} of run ${runId} (session ${session.sessionId}). Type a message and press Enter; /end or Ctrl-D ends the session.\n`
      : `Pairing with ${session.stageId} of run ${runId} (session ${session.sessionId}); each input line is sent as a message, end of input ends the session.\n`,
  );
  try {
    await pump();
  } catch (error) {
    await pairing.end(runId, session.sessionId).catch(() => undefined);
    throw error;
  }

  return new Promise<PairLoopResult>((resolve, reject) => {
    let queue: Promise<unknown> = Promise.resolve();
    let finishing = false;

    /** Ends the session (or learns how it ended), prints what is left, and settles. */
    const finish = (failure?: unknown) => {
      if (finishing) return;
      finishing = true;
      latch.close();
      void queue
        .then(async () => {
          // Ending by session id is idempotent: a session its stage closed reports why instead.
          const ended = await pairing.end(runId, session.sessionId);
          await pump();
          live.cut();
          // The closing note takes the prompt's line.
          if (rl && options.interactive) output.write('\r\x1b[2K');
          rl?.close();
          if (failure !== undefined) throw failure;
          options.notes.write(
            ended.reason === PAIR_END_REASON.stageFinished ? `Pair session ended: ${session.stageId} finished.\n` : 'Pair session ended.\n',
          );
          resolve({ sessionId: session.sessionId, stageId: session.stageId, reason: ended.reason, sent });
        })
        .catch((error: unknown) => {
          rl?.close();
          reject(error);
        });
    };

    const send = async (line: string) => {
      const text = line.trim();
      if (finishing || text === '') return;
      if (text === '/end') return finish();
      try {
        await pairing.message(runId, text, session.sessionId);
        sent += 1;
      } catch (error) {
        // The stage finished (or the run ended) while the line was typed: the session is over.
        if (WeftError.is(error, 'NO_PAIR_SESSION') || WeftError.is(error, 'RUN_INVALID_TRANSITION')) return finish();
        return finish(error);
      }
      await pump();
    };

    // Watching starts before the first wait, so an entry written in between is not missed.
    const latch = options.changes();
    const nextChange = (): Promise<unknown> => latch.next(options.pollMs ?? 1000);
    const follow = () => {
      if (finishing) return;
      void nextChange()
        .then(() => (finishing ? false : pump()))
        .then(
          (open) => (finishing ? undefined : open ? follow() : finish()),
          (error: unknown) => finish(error),
        );
    };

    rl = createInterface({
      input: options.input,
      ...(options.interactive ? { output, prompt: 'you> ', terminal: true } : { terminal: false }),
      crlfDelay: Infinity,
    });
    rl.on('line', (line) => {
      queue = queue.then(() => send(line));
    });
    rl.on('close', () => finish());
    if (options.interactive) {
      rl.on('SIGINT', () => finish());
      if (!live.open) rl.prompt();
    }
    // A killed `weft pair` would leave its session open until the stage ends, refusing everyone else's.
    if (options.signal?.aborted) finish();
    options.signal?.addEventListener('abort', () => finish(), { once: true });
    follow();
  });
}
