/**
 * `weft schedule add|list|show|pause|resume|rm` and `weft trigger add|list|rm`: schedules that
 * create runs on a cron expression and webhook triggers that create them from signed
 * deliveries to `weft serve` (docs/schedules.md). Schedules fire only while a long-lived
 * worker ticks (`weft worker`, `weft serve`); `list` warns when one is overdue.
 */
import type { Command } from 'commander';
import { collect, parseInputs } from '../options.js';
import { printJson, withApp } from '../command-context.js';
import { parseInputMap } from '../../../app/services/trigger-service.js';
import type { ScheduleRecord } from '../../../runs/store/schedule-store.js';

/** An active schedule due this long ago has not been ticked: no worker runs. */
const OVERDUE_MS = 5_000;
const NO_WORKER = "Schedules fire only while a 'weft worker' (without --until-idle) or 'weft serve' runs against this store.";

function iso(time: number | null): string {
  return time === null ? '—' : new Date(time).toISOString().replace('.000Z', 'Z');
}

function scheduleLine(schedule: ScheduleRecord): string {
  const spec = schedule.spec;
  return [
    schedule.name,
    spec.workflow,
    `${spec.cron}${spec.timezone ? ` (${spec.timezone})` : ''}`,
    schedule.paused ? 'paused' : iso(schedule.nextDue),
    `catch_up=${spec.catchUp} overlap=${spec.overlap}`,
    spec.source,
  ].join('\t');
}

export function registerScheduleCommands(program: Command): void {
  const schedule = program.command('schedule').description('runs on a cron schedule, made by the workers (weft worker, weft serve)');
  schedule
    .command('add <name> <workflow>')
    .description('add a schedule: each due time makes one run of the workflow, across every worker')
    .requiredOption('--cron <expression>', 'five fields (minute hour day month weekday), or six with seconds first, e.g. "0 3 * * *"')
    .option('--timezone <zone>', "IANA time zone of the expression (default: the worker's)")
    .option('--input <key=value>', 'workflow input (repeatable)', collect, [])
    .option('--catch-up <policy>', 'due times missed while no worker ran: none | last | all', 'none')
    .option('--overlap <policy>', 'when the previous run is still going: skip | queue | cancel-previous', 'skip')
    .option('--auto-approve', 'start the runs without approval (default: as the workflow says)')
    .option('--replace', 'replace a schedule of that name')
    .option('--json', 'print the schedule as JSON')
    .action(
      async (
        name: string,
        workflow: string,
        options: {
          cron: string;
          timezone?: string;
          input: string[];
          catchUp: string;
          overlap: string;
          autoApprove?: boolean;
          replace?: boolean;
          json?: boolean;
        },
        command: Command,
      ) => {
        await withApp(command, async (app) => {
          const added = await (
            await app.schedules()
          ).add({
            name,
            workflow,
            cwd: app.workspaceRoot,
            cron: options.cron,
            ...(options.timezone === undefined ? {} : { timezone: options.timezone }),
            inputs: parseInputs(options.input),
            catchUp: options.catchUp,
            overlap: options.overlap,
            ...(options.autoApprove ? { autoApprove: true } : {}),
            replace: options.replace === true,
          });
          if (options.json) return printJson(added);
          process.stdout.write(`Schedule ${added.name}: ${added.spec.workflow} at "${added.spec.cron}", next due ${iso(added.nextDue)}.\n`);
          process.stderr.write(`${NO_WORKER}\n`);
        });
      },
    );
  schedule
    .command('list')
    .description('the schedules with their next due time')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const schedules = await (await app.schedules()).list();
        if (options.json) return printJson(schedules);
        if (schedules.length === 0)
          return void process.stdout.write('No schedules. Add one with: weft schedule add <name> <workflow> --cron "0 3 * * *"\n');
        process.stdout.write(['NAME\tWORKFLOW\tCRON\tNEXT DUE\tPOLICIES\tSOURCE', ...schedules.map(scheduleLine)].join('\n') + '\n');
        const overdue = schedules.filter((item) => !item.paused && item.nextDue !== null && item.nextDue < Date.now() - OVERDUE_MS);
        if (overdue.length > 0)
          process.stderr.write(
            `Warning: ${overdue.map((item) => `${item.name} (due ${iso(item.nextDue)})`).join(', ')} not fired yet: no worker is ticking. ${NO_WORKER}\n`,
          );
      });
    });
  schedule
    .command('show <name>')
    .description('a schedule and its last due times with their runs')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const view = await (await app.schedules()).get(name);
        if (options.json) return printJson(view);
        process.stdout.write(
          `${scheduleLine(view)}\n${view.recent.map((fire) => `  ${iso(fire.dueAt)}  ${fire.state.padEnd(8)} ${fire.state === 'skipped' ? '' : fire.runId}`).join('\n')}\n`,
        );
      });
    });
  for (const [verb, text] of [
    ['pause', 'stop making runs (the next due time is kept)'],
    ['resume', 'make runs again, from the next due time after now'],
  ] as const) {
    schedule
      .command(`${verb} <name>`)
      .description(text)
      .action(async (name: string, _options: unknown, command: Command) => {
        await withApp(command, async (app) => {
          const service = await app.schedules();
          const changed = verb === 'pause' ? await service.pause(name) : await service.resume(name);
          process.stdout.write(`Schedule ${changed.name} ${changed.paused ? 'paused' : `resumed, next due ${iso(changed.nextDue)}`}.\n`);
        });
      });
  }
  schedule
    .command('rm <name>')
    .description('remove a schedule (its runs stay)')
    .action(async (name: string, _options: unknown, command: Command) => {
      await withApp(command, async (app) => {
        await (await app.schedules()).remove(name);
        process.stdout.write(`Schedule ${name} removed.\n`);
      });
    });

  const trigger = program.command('trigger').description('webhook triggers: POST /api/v1/triggers/<name> on weft serve makes a run');
  trigger
    .command('add <name> <workflow>')
    .description('add a trigger; deliveries must be signed with HMAC-SHA256 (X-Hub-Signature-256) using the secret in the env var')
    .requiredOption('--secret-env <var>', "the environment variable of 'weft serve' holding the secret (the secret itself is never stored)")
    .option(
      '--input-map <input=$.path>',
      'a workflow input from the JSON body, e.g. number=$.pull_request.number (repeatable; a value without $ is a literal)',
      collect,
      [],
    )
    .option('--auto-approve', 'start the runs without approval (default: as the workflow says)')
    .option('--replace', 'replace a trigger of that name')
    .option('--json', 'print the trigger as JSON')
    .action(
      async (
        name: string,
        workflow: string,
        options: { secretEnv: string; inputMap: string[]; autoApprove?: boolean; replace?: boolean; json?: boolean },
        command: Command,
      ) => {
        await withApp(command, async (app) => {
          const added = await (
            await app.triggers()
          ).add({
            name,
            workflow,
            cwd: app.workspaceRoot,
            secretEnv: options.secretEnv,
            inputMap: parseInputMap(options.inputMap),
            ...(options.autoApprove ? { autoApprove: true } : {}),
            replace: options.replace === true,
          });
          if (options.json) return printJson(added);
          process.stdout.write(
            `Trigger ${added.name}: POST /api/v1/triggers/${added.name} on weft serve makes a run of ${added.spec.workflow} (secret from $${added.spec.secretEnv}).\n`,
          );
        });
      },
    );
  trigger
    .command('list')
    .description('the triggers')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const triggers = await (await app.triggers()).list();
        if (options.json) return printJson(triggers);
        if (triggers.length === 0)
          return void process.stdout.write('No triggers. Add one with: weft trigger add <name> <workflow> --secret-env VAR\n');
        process.stdout.write(
          [
            'NAME\tWORKFLOW\tSECRET ENV\tINPUT MAP',
            ...triggers.map((item) =>
              [
                item.name,
                item.spec.workflow,
                item.spec.secretEnv,
                Object.entries(item.spec.inputMap)
                  .map(([key, path]) => `${key}=${path}`)
                  .join(' ') || '—',
              ].join('\t'),
            ),
          ].join('\n') + '\n',
        );
      });
    });
  trigger
    .command('rm <name>')
    .description('remove a trigger and its delivery records (its runs stay)')
    .action(async (name: string, _options: unknown, command: Command) => {
      await withApp(command, async (app) => {
        await (await app.triggers()).remove(name);
        process.stdout.write(`Trigger ${name} removed.\n`);
      });
    });
}
