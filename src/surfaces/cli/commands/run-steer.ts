/**
 * Steering runs: `approve`, `deny`, `answer`, `message`, `signal`, `interrupt`, `cancel`, `retry`,
 * `archive`, `unarchive`, `rm`.
 */
import type { Command } from 'commander';
import { errorMessage, WeftError } from '../../../core/errors.js';
import type { JsonValue } from '../../../runs/model/json.js';
import type { RunRecord } from '../../../runs/model/run-record.js';
import type { RunService } from '../../../app/services/run-service.js';
import { printJson, withApp } from '../command-context.js';

type Steer = (runs: RunService, id: string, ...rest: string[]) => Promise<RunRecord | void>;

function steer(
  program: Command,
  name: string,
  description: string,
  action: Steer,
  done: (id: string, run: RunRecord | void) => string,
  extraArgs: string[] = [],
): Command {
  const command = program.command(name).description(description).argument('<run-id>');
  for (const arg of extraArgs) command.argument(arg);
  return command.option('--json', 'print JSON').action(async (...args: unknown[]) => {
    const self = args.at(-1) as Command;
    const options = args.at(-2) as { json?: boolean; reason?: string };
    const positional = args.slice(0, -2) as string[];
    await withApp(self, async (app) => {
      const runs = await app.runs();
      // Resolved once, so a prefix or @last is printed back as the whole id.
      const { id } = await runs.get(positional[0]!);
      const result = await action(runs, id, ...positional.slice(1), ...(options.reason !== undefined ? [options.reason] : []));
      if (options.json) printJson(result ?? { ok: true });
      else process.stdout.write(`${done(id, result)}\n`);
    });
  });
}

function parseData(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new WeftError(
      'USAGE',
      `--data is not JSON (${errorMessage(error)}); pass a JSON value, e.g. --data '{"ok":true}' or --data '"text"'.`,
    );
  }
}

const status = (run: RunRecord | void) => (run ? ` (${run.status})` : '');

export function registerRunSteerCommands(program: Command): void {
  steer(
    program,
    'approve',
    'approve a pending run',
    (runs, id) => runs.approve(id),
    (id, run) => `Approved run ${id}${status(run)}`,
  );
  steer(
    program,
    'deny',
    'deny a pending run (it ends cancelled)',
    (runs, id, reason) => runs.deny(id, reason),
    (id) => `Denied run ${id}`,
  ).option('--reason <text>', 'why');
  program
    .command('answer')
    .description("answer a run's question (yes/no, a choice, a,b for multi-select, or text)")
    .argument('<run-id>')
    .argument('<question-id>')
    .argument('<answer>')
    .option('--json', 'print JSON')
    .action(async (id: string, questionId: string, answer: string, options: { json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const question = await (await app.runs()).answerText(id, questionId, answer);
        if (options.json) printJson(question);
        else process.stdout.write(`Answered ${questionId}: ${JSON.stringify(question.answer)}\n`);
      });
    });
  steer(
    program,
    'message',
    'send a message to the run (agents see it on their next turn)',
    (runs, id, text) => runs.message(id, text!),
    (id) => `Sent to run ${id}`,
    ['<text>'],
  );
  program
    .command('signal')
    .description('send an event to a run; its `wait` stage with that `event` goes on (the event must be one the workflow awaits)')
    .argument('<run-id>')
    .argument('<event>')
    .option('--data <json>', 'JSON value handed to the wait stage as its output')
    .option('--json', 'print JSON')
    .action(async (id: string, event: string, options: { data?: string; json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const run = await (await app.runs()).signal(id, event, options.data === undefined ? null : parseData(options.data));
        if (options.json) printJson(run);
        else process.stdout.write(`Sent '${event}' to run ${id} (${run.status})\n`);
      });
    });
  steer(
    program,
    'interrupt',
    'stop the current stages and pause the run (resume with `weft start`)',
    (runs, id) => runs.interrupt(id),
    (id) => `Interrupt requested for run ${id}`,
  );
  steer(
    program,
    'cancel',
    'cancel a run (kills its commands and tool calls)',
    (runs, id, reason) => runs.cancel(id, reason),
    (id, run) => `Cancel requested for run ${id}${status(run)}`,
  ).option('--reason <text>', 'why');
  steer(
    program,
    'retry',
    'run a failed or cancelled run again from where it stopped',
    (runs, id) => runs.retry(id),
    (id, run) => `Retrying run ${id}${status(run)}`,
  );
  steer(
    program,
    'archive',
    'hide a finished run from listings',
    (runs, id) => runs.archive(id, true),
    (id) => `Archived run ${id}`,
  );
  steer(
    program,
    'unarchive',
    'show an archived run again',
    (runs, id) => runs.archive(id, false),
    (id) => `Unarchived run ${id}`,
  );
  steer(
    program,
    'rm',
    'delete a finished run and its events',
    (runs, id) => runs.remove(id),
    (id) => `Removed run ${id}`,
  );
}
