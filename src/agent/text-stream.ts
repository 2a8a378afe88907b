/**
 * The model's text as it streams in, written to the run's log so whoever follows the run
 * (`weft run` on a terminal, the HTTP event stream, another host) sees it live, whatever
 * process runs the stage. Deltas are coalesced: the first waits at most `FLUSH_MS`, and
 * each event holds what arrived since the previous one, so a turn costs a few events a
 * second rather than one per token. The turn's whole text still comes in
 * `model-turn-finished`; past `MAX_STREAMED_TEXT` characters a turn streams no more.
 */
import { AGENT_EVENT, type ModelTextStreamedPayload } from '../runs/model/event-types.js';
import type { NewRunEvent } from '../runs/model/run-event.js';
import { MAX_EVENT_TEXT } from './transcript-events.js';

/** Longest a delta waits before it is written. */
export const FLUSH_MS = 150;
/** Most characters of one turn that are streamed: what the turn's own event keeps. */
export const MAX_STREAMED_TEXT = MAX_EVENT_TEXT;

export interface TextStream {
  /** Takes a delta of `turn`'s text; written within `FLUSH_MS`. */
  push(delta: string): void;
  /** Writes what is buffered and waits for every write so far; rejects with the first write's failure. */
  flush(): Promise<void>;
}

/**
 * @example
 * const stream = textStream(turn, (events) => stage.emit(events));
 * await client.generate({ …, onTextDelta: (delta) => stream.push(delta) });
 * await stream.flush();
 */
export function textStream(turn: number, emit: (events: NewRunEvent[]) => Promise<unknown>): TextStream {
  let buffered = '';
  let streamed = 0;
  let timer: NodeJS.Timeout | undefined;
  let writes: Promise<unknown> = Promise.resolve();
  let failure: unknown;

  const write = () => {
    timer = undefined;
    if (buffered === '') return;
    const payload: ModelTextStreamedPayload = { turn, text: buffered };
    buffered = '';
    writes = writes
      .then(() => emit([{ type: AGENT_EVENT.modelTextStreamed, payload }]))
      .catch((error: unknown) => {
        failure ??= error;
      });
  };

  return {
    push(delta) {
      if (streamed >= MAX_STREAMED_TEXT || delta === '') return;
      const kept = delta.slice(0, MAX_STREAMED_TEXT - streamed);
      streamed += kept.length;
      buffered += kept;
      timer ??= setTimeout(write, FLUSH_MS);
    },
    async flush() {
      if (timer !== undefined) clearTimeout(timer);
      write();
      await writes;
      if (failure !== undefined) throw failure;
    },
  };
}
