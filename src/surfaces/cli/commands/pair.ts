/**
 * `weft pair <run> [--stage S] [--json] [--status | --end]`: talk to a running agent stage.
 * Parses, calls the run service's pairing, prints; the conversation itself is
 * `pair-loop.ts`.
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { formatDuration } from '../../../core/duration.js';
import type { PairStatus } from '../../../app/services/pair-service.js';
import { printJson, withApp } from '../command-context.js';
import { runPairLoop } from '../pair-loop.js';
import { untilInterrupted } from '../interrupt.js';

const HELP = `
On a terminal: prints the stage's transcript so far, then each new entry as it lands,
and the agent's answer as it streams; type a line and press Enter to send it (the agent reads it on its next turn); /end or
Ctrl-D ends the session. Otherwise each line of standard input is sent as a message, the
transcript is printed as plain lines (JSON Lines with --json), and end of input ends the
session. Either way it ends by itself when the stage or the run finishes.

Examples:
  weft pair 01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC
  weft pair 01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC --stage implement@1
  echo "Use the v2 API instead" | weft pair 01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC
  weft pair 01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC --status
  weft pair 01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC --end`;

/** Who the session is recorded as started by. */
function pairer(): string {
  try {
    return `cli (${userInfo().username})`;
  } catch {
    return 'cli';
  }
}

function statusLines(status: PairStatus): string[] {
  const { run, stages, session } = status;
  return [
    `run ${run.id}  ${run.status}`,
    ...(stages.length === 0
      ? ['  no agent stage is running']
      : stages.map(
          (stage) =>
            `  ${stage.kind} stage ${stage.stageId} running for ${formatDuration(Date.now() - stage.startedAt)}, ${stage.turns} turn${stage.turns === 1 ? '' : 's'}`,
        )),
    session
      ? `  pair session ${session.sessionId} on ${session.stageId}, started by ${session.by} ${formatDuration(Date.now() - session.startedAt)} ago`
      : '  no pair session is open',
  ];
}

export function registerPairCommand(program: Command): void {
  program
    .command('pair')
    .description('pair with a running agent stage: follow its transcript and send it messages')
    .argument('<run-id>')
    .option('--stage <stage-id>', 'the agent stage to pair with, e.g. implement@1 (needed only when several run)')
    .option('--status', 'show the running agent stages and the open session, then exit')
    .option('--end', 'end the open pair session (e.g. one a killed `weft pair` left), then exit')
    .option('--json', 'print JSON (transcript entries as JSON Lines)')
    .addHelpText('after', HELP)
    .action(async (ref: string, options: { stage?: string; status?: boolean; end?: boolean; json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const runs = await app.runs();
        const { id } = await runs.get(ref);
        const pairing = runs.pairing;
        if (options.status) {
          const status = await pairing.status(id);
          if (options.json)
            return printJson({ run: { id: status.run.id, status: status.run.status }, stages: status.stages, session: status.session });
          return void process.stdout.write(`${statusLines(status).join('\n')}\n`);
        }
        if (options.end) {
          const ended = await pairing.end(id);
          if (options.json) return printJson({ sessionId: ended.session.sessionId, stageId: ended.session.stageId, reason: ended.reason });
          return void process.stdout.write(`Ended pair session ${ended.session.sessionId} on ${ended.session.stageId}.\n`);
        }
        const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true && !options.json;
        await untilInterrupted(
          (signal) =>
            runPairLoop({
              pairing,
              runId: id,
              ...(options.stage === undefined ? {} : { stageId: options.stage }),
              by: pairer(),
              input: process.stdin,
              output: process.stdout,
              notes: interactive ? process.stdout : process.stderr,
              interactive,
              json: options.json === true,
              changes: () => runs.changes([id]),
              signal,
            }),
          ['SIGINT', 'SIGTERM'],
        );
      });
    });
}
