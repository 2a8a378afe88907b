/**
 * `command` stages: a shell script in the workspace. Exit code 0 succeeds; stdout is the
 * output, streamed while it runs as `stage-output` events (`live-output.ts`). Cancellation and timeouts kill the whole process group (see `runCommand`), and
 * so does the death of the runner (the process watchdog). The group is recorded in the
 * log before the script runs, so a runner that takes the run over can end it first.
 */
import { resolve } from 'node:path';
import { formatDuration } from '../../../core/duration.js';
import { runCommand } from '../../../tools/builtin/run-command.js';
import { describeViolation } from '../../../core/sandbox/index.js';
import { renderTemplate, type CommandNode } from '../../workflow/index.js';
import { ENGINE_EVENT, type StageProcessStartedPayload } from '../../model/event-types.js';
import type { NodeExecutor } from '../stage-context.js';
import { liveOutput } from './live-output.js';

const DEFAULT_TIMEOUT_MS = 60 * 60 * 1000;
const MAX_OUTPUT_CHARS = 64 * 1024;

function cap(text: string): string {
  return text.length > MAX_OUTPUT_CHARS
    ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n[… ${text.length - MAX_OUTPUT_CHARS} more characters]`
    : text;
}

export const executeCommandNode: NodeExecutor<CommandNode> = async (stage) => {
  const { node, context, workDir } = stage;
  const script = renderTemplate(node.run, context);
  const env = Object.fromEntries(Object.entries(node.env ?? {}).map(([key, value]) => [key, renderTemplate(value, context)]));
  const timeoutMs = node.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const live = liveOutput((events) => stage.emit(events));
  const sandbox = stage.services.sandbox();
  const cwd = resolve(workDir, node.cwd ?? '.');
  const outcome = await runCommand(script, {
    cwd,
    ...(sandbox === undefined ? {} : { sandbox }),
    env,
    timeoutMs,
    signal: stage.signal,
    maxCaptureBytes: 4 * 1024 * 1024,
    killGraceMs: 1000,
    beforeStart: async (group) => {
      const payload: StageProcessStartedPayload = { pgid: group.pid, host: group.host, start: group.start };
      await stage.emit([{ type: ENGINE_EVENT.stageProcessStarted, payload }]);
    },
    onOutput: live.push,
  }).finally(() => live.close());
  const stdout = cap(outcome.stdout.replace(/\n$/, ''));
  // Refusals are recorded even when the command went on and succeeded.
  const refused = sandbox?.noticeViolations(outcome.stderr, cwd) ?? [];
  if (outcome.cancelled) return { status: 'cancelled', output: stdout, exitCode: outcome.exitCode, error: 'Cancelled' };
  if (outcome.timedOut)
    return { status: 'failed', output: stdout, exitCode: outcome.exitCode, error: `Command timed out after ${formatDuration(timeoutMs)}` };
  if (outcome.exitCode === 0) return { status: 'succeeded', output: stdout, exitCode: 0 };
  const stderr = cap(outcome.stderr.trim());
  const error = [
    stderr || `exit code ${outcome.exitCode ?? outcome.signal}`,
    ...refused.map((violation) => `weft: ${describeViolation(violation)}`),
  ].join('\n');
  return { status: 'failed', output: stdout, exitCode: outcome.exitCode, error };
};
