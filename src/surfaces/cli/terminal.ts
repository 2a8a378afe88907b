/**
 * The person at this process's terminal: prompts go to stderr (stdout carries results)
 * and answers come from stdin. One `readline` interface serves every question, so lines
 * typed ahead are not lost between prompts; `close()` releases stdin so the command can
 * exit. Without a TTY on stdin nobody is asked.
 */
import { createInterface, type Interface } from 'node:readline/promises';
import type { TerminalPrompter } from '../../app/mcp-host/terminal-prompter.js';

export interface ProcessTerminal extends TerminalPrompter {
  close(): void;
}

export function processTerminal(): ProcessTerminal {
  let lines: Interface | undefined;
  return {
    interactive: process.stdin.isTTY === true,
    ask: (prompt, signal) => {
      lines ??= createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      return lines.question(prompt, { signal });
    },
    say: (line) => {
      process.stderr.write(`${line}\n`);
    },
    close: () => {
      lines?.close();
      lines = undefined;
    },
  };
}
