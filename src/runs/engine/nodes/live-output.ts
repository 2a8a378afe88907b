/**
 * A command stage's output as `stage-output` events while it runs, for those who follow the
 * stage live (the dashboard's stage panel): pieces are batched (one event per stream at most
 * every `FLUSH_MS`) and capped per stage, so a chatty command cannot flood the log. The
 * stage's whole output still lands in its `stage-finished`.
 */
import { ENGINE_EVENT, type StageOutputPayload } from '../../model/event-types.js';
import type { NewRunEvent } from '../../model/run-event.js';

/** How often buffered output is written while a command runs. */
const FLUSH_MS = 250;
/** Live output written per stage at most; past it, a last event says the rest is in the final output. */
const MAX_LIVE_CHARS = 256 * 1024;

export interface LiveOutput {
  push(stream: 'stdout' | 'stderr', chunk: Buffer): void;
  /** Writes what is buffered and stops; call once the command has ended. */
  close(): Promise<void>;
}

/** @example const live = liveOutput((events) => stage.emit(events)); runCommand(script, { ..., onOutput: live.push }); await live.close(); */
export function liveOutput(emit: (events: NewRunEvent[]) => Promise<unknown>): LiveOutput {
  const pending = { stdout: '', stderr: '' };
  const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  let written = 0;
  let capped = false;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<unknown> = Promise.resolve();

  const flush = (): Promise<unknown> => {
    timer = undefined;
    const events: NewRunEvent[] = [];
    for (const stream of ['stdout', 'stderr'] as const) {
      if (pending[stream] === '') continue;
      const payload: StageOutputPayload = { stream, text: pending[stream] };
      events.push({ type: ENGINE_EVENT.stageOutput, payload });
      pending[stream] = '';
    }
    if (events.length === 0) return writing;
    // One write at a time, in order; a failed write loses live output only, never the stage.
    writing = writing.then(() => emit(events)).catch(() => undefined);
    return writing;
  };

  return {
    push(stream, chunk) {
      if (capped) return;
      let text = decoders[stream].decode(chunk, { stream: true });
      if (written + text.length > MAX_LIVE_CHARS) {
        text = `${text.slice(0, MAX_LIVE_CHARS - written)}\n[live output stops here; the stage's output has the rest]\n`;
        capped = true;
      }
      written += text.length;
      pending[stream] += text;
      timer ??= setTimeout(() => void flush(), FLUSH_MS);
    },
    async close() {
      clearTimeout(timer);
      capped = true;
      await flush();
    },
  };
}
