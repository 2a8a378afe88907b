/**
 * A person at a terminal, as the application services see them: the CLI implements it
 * over stdin/stderr (`surfaces/cli/terminal.ts`); tests pass a scripted one. Used where a
 * command may need an answer mid-way (MCP elicitation and sampling approval during
 * `weft tools call`).
 */
export interface TerminalPrompter {
  /** A person can answer: stdin is a terminal. */
  readonly interactive: boolean;
  /** Shows `prompt` and resolves with the line typed; rejects when `signal` aborts. */
  ask(prompt: string, signal: AbortSignal): Promise<string>;
  /** Prints a line for the person (stderr: stdout is for results). */
  say(line: string): void;
}

/** Nobody to ask: lines go to `write` (stderr by default), questions are never asked. */
export function detachedTerminal(write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): TerminalPrompter {
  return {
    interactive: false,
    ask: () => Promise.reject(new Error('no terminal is attached')),
    say: write,
  };
}
