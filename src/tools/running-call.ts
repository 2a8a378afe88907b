/**
 * One executing tool call: its abort, its result, and the race between the tool, the
 * session's cancellation and the call's timeout, whichever ends it first. A tool that
 * ignores its abort must not hold the turn, so the call's result is settled by whichever
 * comes first and later outcomes are dropped.
 *
 * The calls of one session share one `abort` listener on the session's AbortSignal (kept
 * per signal in a WeakMap, so it lives as long as the signal): on Node 20 adding and
 * removing a listener on an AbortSignal costs a few µs, paid per call before, and the
 * race itself needs one promise instead of a `Promise.race` over two.
 */
import { formatDuration } from '../core/duration.js';
import { WeftError } from '../core/errors.js';
import { CallAbort } from './call-abort.js';
import { errorResult, type ToolResult } from './tool.js';

/** The calls running under each session signal; one listener per signal cancels them all. */
const runningBySignal = new WeakMap<AbortSignal, Set<RunningCall>>();

function runningUnder(signal: AbortSignal): Set<RunningCall> {
  let running = runningBySignal.get(signal);
  if (running === undefined) {
    const calls = new Set<RunningCall>();
    running = calls;
    runningBySignal.set(signal, calls);
    // Copied first: each cancel takes its call out of the set.
    signal.addEventListener('abort', () => [...calls].forEach((call) => call.cancel()), { once: true });
  }
  return running;
}

export class RunningCall {
  readonly abort = new CallAbort();
  /** The call's result: the tool's, or the cancellation's or timeout's, whichever came first. */
  readonly result: Promise<ToolResult>;
  #resolve!: (result: ToolResult) => void;
  readonly #running: Set<RunningCall>;
  #timer: NodeJS.Timeout | undefined;
  #settled = false;

  /**
   * `signal` (the session's) must not be aborted yet. A finite `timeoutMs` ends the call
   * of `toolName` after that long; Infinity leaves the tool to keep its own time.
   */
  constructor(signal: AbortSignal, toolName: string, timeoutMs: number) {
    this.result = new Promise<ToolResult>((resolve) => {
      this.#resolve = resolve;
    });
    this.#running = runningUnder(signal);
    this.#running.add(this);
    // setTimeout would read Infinity as 1 ms.
    if (Number.isFinite(timeoutMs)) {
      this.#timer = setTimeout(() => {
        this.abort.abort(new WeftError('TOOL_TIMEOUT', 'timeout'));
        this.settle(errorResult(`Tool '${toolName}' timed out after ${formatDuration(timeoutMs)}.`));
      }, timeoutMs);
    }
  }

  /** Ends the call with `result` unless it has ended already. */
  settle(result: ToolResult): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#running.delete(this);
    this.#resolve(result);
  }

  /** The session was cancelled: the tool is told, and the call ends as cancelled. */
  cancel(): void {
    this.abort.abort(new WeftError('TOOL_CANCELLED', 'Cancelled'));
    this.settle(errorResult('Cancelled'));
  }
}
