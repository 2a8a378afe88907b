/**
 * `shell`: the agent tool that runs `/bin/bash -c <command>` in the workspace (through
 * `run-command.ts`, which owns the process group, its stop and the bounded capture): its
 * schema and description, the timeout a call may ask for, and the text the model reads,
 * with the sandbox's refusals noted.
 */
import { describeViolation } from '../../core/sandbox/index.js';
import { WeftError } from '../../core/errors.js';
import type { Tool, ToolContext, ToolResult } from '../tool.js';
import { textResult } from '../tool.js';
import { REAP_WAIT_MS, runCommand, type ShellOutcome } from './run-command.js';

export interface ShellToolOptions {
  /** Timeout when the call gives none (settings); default 120 000 ms. */
  defaultTimeoutMs?: number;
  /** Largest `timeout_ms` a call may ask for; larger values are clamped. Default 600 000 ms. */
  maxTimeoutMs?: number;
  /** Bytes kept per stream (first half and last half when exceeded); default 10 MiB. */
  maxCaptureBytes?: number;
  /** Time between SIGTERM and SIGKILL when the group is stopped; default 1 000 ms. */
  killGraceMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
const MAX_CAPTURE_BYTES = 10 * 1024 * 1024;
const KILL_GRACE_MS = 1_000;

export function createShellTool(options: ShellToolOptions = {}): Tool {
  const maxTimeoutMs = options.maxTimeoutMs ?? MAX_TIMEOUT_MS;
  const defaultTimeoutMs = Math.min(options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS, maxTimeoutMs);
  const maxCaptureBytes = options.maxCaptureBytes ?? MAX_CAPTURE_BYTES;
  const killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;

  return {
    name: 'shell',
    source: 'builtin',
    description:
      'Run a command with /bin/bash -c in the workspace root and return its exit code, stdout and stderr. ' +
      'stdin is closed. ' +
      `The default timeout is ${seconds(defaultTimeoutMs)}s; timeout_ms may raise it up to ${seconds(maxTimeoutMs)}s ` +
      '(larger values are clamped to that cap). On timeout the whole process group, including background ' +
      'processes the command started, is killed and the output captured so far is returned. ' +
      `Each output stream keeps at most ${Math.round(maxCaptureBytes / 1024 / 1024)} MiB (the start and the end).`,
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The bash command line to run, e.g. "npm test -- --run".' },
        timeout_ms: {
          type: 'integer',
          minimum: 1,
          description: `Timeout in milliseconds (default ${defaultTimeoutMs}; values above ${maxTimeoutMs} are clamped to ${maxTimeoutMs}).`,
        },
        description: {
          type: 'string',
          description: 'A short human-readable summary of what the command does, shown to the user.',
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
    annotations: { title: 'Run shell command', readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    // Leave room for the tool's own timeout handling and kill grace before any executor limit.
    timeoutMs: maxTimeoutMs + killGraceMs + REAP_WAIT_MS + 30_000,
    async execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      const command = args.command as string;
      const requested = typeof args.timeout_ms === 'number' ? args.timeout_ms : defaultTimeoutMs;
      const timeoutMs = Math.max(1, Math.min(requested, maxTimeoutMs));
      if (context.signal.aborted) throw new WeftError('TOOL_CANCELLED', 'Cancelled');

      const outcome = await runCommand(command, {
        cwd: context.workspaceRoot,
        timeoutMs,
        signal: context.signal,
        maxCaptureBytes,
        killGraceMs,
        ...(context.sandbox === undefined ? {} : { sandbox: context.sandbox }),
      });
      if (outcome.cancelled) throw new WeftError('TOOL_CANCELLED', 'Cancelled');
      const refused = context.sandbox?.noticeViolations(outcome.stderr, context.workspaceRoot) ?? [];
      const notes = refused.map((violation) => `\n[weft: ${describeViolation(violation)}]`).join('');

      return textResult(formatOutcome(outcome, timeoutMs, maxTimeoutMs) + notes, {
        isError: outcome.exitCode !== 0,
        structuredContent: {
          exitCode: outcome.exitCode,
          stdout: outcome.stdout,
          stderr: outcome.stderr,
          timedOut: outcome.timedOut,
          ...(outcome.signal ? { signal: outcome.signal } : {}),
        },
      });
    },
  };
}

export const shellTool: Tool = createShellTool();

function formatOutcome(outcome: ShellOutcome, timeoutMs: number, maxTimeoutMs: number): string {
  const parts: string[] = [];
  if (outcome.timedOut) {
    const hint = timeoutMs < maxTimeoutMs ? ` Pass a larger timeout_ms (up to ${maxTimeoutMs}) if the command needs more time.` : '';
    parts.push(`Command timed out after ${seconds(timeoutMs)}s; its whole process group was killed.${hint} Output captured so far:`);
  } else if (outcome.exitCode !== null) {
    parts.push(`Exit code: ${outcome.exitCode}`);
  } else {
    parts.push(`Exit code: none (terminated by ${outcome.signal ?? 'a signal'})`);
  }
  if (outcome.stdout.length > 0) parts.push(`<stdout>\n${trimFinalNewline(outcome.stdout)}\n</stdout>`);
  if (outcome.stderr.length > 0) parts.push(`<stderr>\n${trimFinalNewline(outcome.stderr)}\n</stderr>`);
  if (outcome.stdout.length === 0 && outcome.stderr.length === 0) parts.push('(no output)');
  if (outcome.pipesHeldOpen) {
    parts.push('(A background process started by the command still holds its output open; later output is not captured.)');
  }
  return parts.join('\n');
}

function trimFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** `500` → `0.5`, `120000` → `120`. */
function seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(3)));
}
