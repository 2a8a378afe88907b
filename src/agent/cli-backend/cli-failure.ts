/**
 * Why a CLI stage failed, in one message that names the CLI, says what it reported (its
 * answer's error, a login it needs, lines that were not its stream format), its exit code
 * and the last lines of its stderr — what a person needs to fix it without rerunning.
 */
import type { CliAdapter } from './cli-adapter.js';
import type { CliExit } from './cli-process.js';
import type { CliTranscript } from './cli-transcript.js';

/** Stderr lines quoted in the message. */
const STDERR_LINES = 10;

function exitText(exit: CliExit): string {
  if (exit.exitCode !== null) return `exit code ${exit.exitCode}`;
  return exit.signal !== null ? `killed by ${exit.signal}` : 'no exit code';
}

/**
 * @example
 * cliFailure(claudeCodeAdapter, { exitCode: 1, signal: null, stderrTail: ['boom'], stopped: false }, transcript);
 * // "Claude Code failed (exit code 1). Last lines of its stderr:\nboom"
 */
export function cliFailure(adapter: CliAdapter, exit: CliExit, transcript: CliTranscript): string {
  const name = adapter.displayName;
  const parts: string[] = [];
  const stderr = exit.stderrTail.slice(-STDERR_LINES);
  const login = transcript.errors.find((error) => error.loginRequired);
  if (exit.spawnError !== undefined) parts.push(`${name} could not be started: ${exit.spawnError}.`);
  else if (login !== undefined || adapter.loginRequired?.(exit.exitCode, stderr.join('\n')) === true) {
    parts.push(
      `${name} needs a login (${exitText(exit)}): ${login?.message ?? 'it reported no credentials'}. Give the runner its API key in the environment (weft keeps each stage's ${name} config apart from yours, so a login made in your own config is not seen).`,
    );
  } else if (transcript.final?.isError === true) parts.push(`${name} failed (${exitText(exit)}): ${transcript.final.text}`);
  else if (transcript.final === undefined) parts.push(`${name} ended without an answer (${exitText(exit)}).`);
  else parts.push(`${name} failed (${exitText(exit)}).`);
  for (const error of transcript.errors.filter((item) => !item.loginRequired)) parts.push(`It reported: ${error.message}`);
  if (transcript.malformed.length > 0) {
    const first = transcript.malformed[0]!;
    parts.push(
      `${transcript.malformed.length} line(s) of its output were not ${name}'s stream format, the first: ${first.length > 200 ? `${first.slice(0, 200)}…` : first}`,
    );
  }
  if (stderr.length > 0) parts.push(`Last lines of its stderr:\n${stderr.join('\n')}`);
  return parts.join(' ');
}
