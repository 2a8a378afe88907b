/**
 * The model's text on a terminal as it streams in (`model-text-streamed` events), for
 * `weft run` and `logs --follow`. One turn owns the screen at a time: text of another
 * stage's turn that streams meanwhile (parallel branches) is not interleaved but shown
 * whole in its turn's line. A line of another event cuts the text; it resumes below.
 */
import type { RunEvent } from '../../runs/model/run-event.js';

const INDENT = '    ';

function turnKey(event: RunEvent): string {
  return `${event.stageId ?? ''}#${String(event.payload.turn)}`;
}

export class LiveText {
  readonly #out: NodeJS.WritableStream;
  /** The turn whose text is on screen. */
  #owner: string | undefined;
  /** True while the cursor is at the end of streamed text (no newline yet). */
  #open = false;
  /** Turns whose text was (partly) skipped: their turn line shows it whole. */
  readonly #skipped = new Set<string>();

  constructor(out: NodeJS.WritableStream) {
    this.#out = out;
  }

  /** True while streamed text holds the current line (nothing may redraw it). */
  get open(): boolean {
    return this.#open;
  }

  /** Shows the text of a `model-text-streamed` event, unless another turn owns the screen. */
  take(event: RunEvent): void {
    const key = turnKey(event);
    const text = typeof event.payload.text === 'string' ? event.payload.text : '';
    if (this.#skipped.has(key) || (this.#owner !== undefined && this.#owner !== key)) {
      this.#skipped.add(key);
      return;
    }
    if (!this.#open) this.#out.write(this.#owner === key ? INDENT : `  ◆ ${event.stageId ?? ''} `);
    this.#owner = key;
    this.#open = true;
    this.#out.write(text.replace(/\n/g, `\n${INDENT}`));
  }

  /** Ends the line of streamed text, so another line can be written. */
  endLine(): void {
    if (!this.#open) return;
    this.#out.write('\n');
    this.#open = false;
  }

  /** At `model-turn-finished`: true when its whole text was shown live. */
  finishTurn(event: RunEvent): boolean {
    const key = turnKey(event);
    const shown = this.#owner === key && !this.#skipped.has(key);
    this.#skipped.delete(key);
    if (this.#owner === key) {
      this.endLine();
      this.#owner = undefined;
    }
    return shown;
  }
}
