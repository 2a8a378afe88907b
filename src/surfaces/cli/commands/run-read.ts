/**
 * Reading runs: `ps`, `inspect`, `events`, `logs`, `wait`.
 */
import type { StageRecord } from '../../../runs/stage-fold.js';
import type { Command } from 'commander';
import { redactGitText } from '../../../runs/workspace/git.js';
import { formatDuration } from '../../../core/duration.js';
import { WeftError } from '../../../core/errors.js';
import type { RunRecord } from '../../../runs/model/run-record.js';
import { isRunStatus, RUN_STATUSES, type RunStatus } from '../../../runs/model/run-status.js';
import { printJson, withApp } from '../command-context.js';
import { eventLine } from '../event-lines.js';
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK } from '../exit-codes.js';
import { untilInterrupted } from '../interrupt.js';
import { collect, parseLabels, parseSeconds } from '../options.js';
import { followRun, type FollowOptions } from '../run-follow.js';
import { costCell, costLine, stageLines, tokensLine } from '../stage-lines.js';
import { addTokenUsage, costText, NO_TOKENS } from '../../../runs/model/token-usage.js';
import type { RunService } from '../../../app/services/run-service.js';
import { parseSince, summarizeUsage, USAGE_GROUPS, type UsageGroupBy, type UsageSummary } from '../../../app/services/usage-summary.js';
import { usageSummaryView } from '../../../app/views/usage-view.js';
import { waitText } from '../../../app/services/concurrency-waits.js';

function age(run: RunRecord): string {
  return `${formatDuration(Date.now() - run.createdAt)} ago`;
}

function parseStatuses(values: string[]): RunStatus[] | undefined {
  if (values.length === 0) return undefined;
  const statuses = values.flatMap((value) => value.split(','));
  for (const status of statuses) {
    if (!isRunStatus(status))
      throw new WeftError('USAGE', `--status '${status}' is not a run status; use one of ${RUN_STATUSES.join(', ')}.`);
  }
  return statuses as RunStatus[];
}

/** Follows until the run ends, or until Ctrl-C: then exit 130 as a shell expects, the run going on. */
async function followToEnd(runs: RunService, id: string, options: Omit<FollowOptions, 'signal'>): Promise<void> {
  const stopped = await untilInterrupted(async (signal) => {
    await followRun(runs, id, { ...options, signal });
    return signal.aborted;
  });
  if (stopped) process.exitCode = EXIT_INTERRUPTED;
}

const PS_COLUMNS = ['ID', 'STATUS', 'WORKFLOW', 'AGE', 'COST', 'GOAL'] as const;

/** What made a run: a schedule (and its due time) or a webhook trigger (and its delivery), from the labels they set. */
function madeBy(labels: Record<string, string>, short: boolean): string {
  const schedule = labels['weft.schedule'];
  const trigger = labels['weft.trigger'];
  if (schedule !== undefined) return short ? `[schedule ${schedule}] ` : `schedule ${schedule}, due ${labels['weft.due'] ?? '?'}`;
  if (trigger !== undefined) return short ? `[trigger ${trigger}] ` : `trigger ${trigger}, delivery ${labels['weft.delivery'] ?? '?'}`;
  return '';
}

function psRow(id: string, status: string, workflow: string, age: string, cost: string, goal: string): string {
  return `${id.padEnd(26)}  ${status.padEnd(9)}  ${workflow.padEnd(16)}  ${age.padEnd(10)}  ${cost.padEnd(9)}${goal ? `  ${goal}` : ''}`.trimEnd();
}

interface PsOptions {
  status: string[];
  label: string[];
  parent?: string;
  workflow?: string;
  all?: boolean;
  limit: string;
  since?: string;
  groupBy?: string;
  json?: boolean;
}

function parseGroupBy(value: string | undefined, since: number | undefined): UsageGroupBy | undefined {
  if (value === undefined) return undefined;
  if (since === undefined) throw new WeftError('USAGE', '--group-by sums spend over a time window: add --since, e.g. --since 7d.');
  if (!(USAGE_GROUPS as readonly string[]).includes(value))
    throw new WeftError('USAGE', `--group-by must be one of ${USAGE_GROUPS.join(', ')}, not '${value}'.`);
  return value as UsageGroupBy;
}

/** The spend block `ps --since` prints above the runs. */
function usageLines(usage: UsageSummary): string[] {
  const cost = costText(usage.usage);
  const total = `${usage.runs} run${usage.runs === 1 ? '' : 's'} since ${new Date(usage.since).toISOString()}: ${usage.usage.totalTokens} tokens${cost === '' ? '' : ` · ${cost}`}`;
  return [
    total,
    ...(usage.groups ?? []).map(
      (group) =>
        `  ${group.key.padEnd(24)}  ${String(group.runs).padStart(5)} runs  ${String(group.usage.totalTokens).padStart(10)} tokens  ${costCell(group.usage)}`,
    ),
  ];
}

/** The filters given to `ps`, as typed, for "no runs match …". */
function describeFilters(options: { status: string[]; label: string[]; parent?: string; workflow?: string }): string[] {
  return [
    ...options.status.map((status) => `--status ${status}`),
    ...options.label.map((label) => `--label ${label}`),
    ...(options.parent ? [`--parent ${options.parent}`] : []),
    ...(options.workflow ? [`--workflow ${options.workflow}`] : []),
  ];
}

/** A stage as `inspect --json` has always shown it: `finished` (its status) once it ended, beside the newer fields. */
function stageJson(stage: StageRecord): StageRecord & { finished?: string } {
  return stage.status === 'running' ? stage : { ...stage, finished: stage.status };
}

export function registerRunReadCommands(program: Command): void {
  program
    .command('ps')
    .description('list runs, newest first (archived runs only with --all)')
    .option('--status <status>', 'only runs in this status (repeatable, or comma-separated)', collect, [])
    .option('--label <key=value>', 'only runs with this label (repeatable)', collect, [])
    .option('--parent <run-id>', 'only the direct children of this run')
    .option('--workflow <name>', 'only runs of this workflow')
    .option('--all', 'include archived runs')
    .option('--limit <n>', 'at most this many', '50')
    .option(
      '--since <age>',
      'only runs created since: an age (7d, 12h) or an ISO time; adds the tokens and cost summed over all of them (archived too)',
    )
    .option('--group-by <what>', `with --since: the sums by ${USAGE_GROUPS.join(', ')}`)
    .option('--json', 'print JSON (with --since: {runs, usage})')
    .action(async (options: PsOptions, command: Command) => {
      await withApp(command, async (app) => {
        const runs = await app.runs();
        const since = options.since === undefined ? undefined : parseSince(options.since, Date.now(), '--since');
        const groupBy = parseGroupBy(options.groupBy, since);
        const page = await runs.search({
          status: parseStatuses(options.status),
          labels: parseLabels(options.label),
          ...(options.parent ? { parentId: options.parent } : {}),
          ...(options.workflow ? { workflow: options.workflow } : {}),
          ...(since === undefined ? {} : { createdAfter: since }),
          archived: options.all ? 'any' : false,
          limit: Number(options.limit) || 50,
        });
        const usage =
          since === undefined
            ? undefined
            : await summarizeUsage(runs, {
                since,
                ...(groupBy ? { groupBy } : {}),
                ...(options.workflow ? { workflow: options.workflow } : {}),
                labels: parseLabels(options.label),
              });
        if (options.json) return printJson(usage === undefined ? page.runs : { runs: page.runs, usage: usageSummaryView(usage) });
        if (usage !== undefined) process.stdout.write(`${usageLines(usage).join('\n')}\n\n`);
        if (page.runs.length === 0) {
          const filters = describeFilters(options);
          if (filters.length > 0)
            return void process.stdout.write(`No runs match ${filters.join(' ')}${options.all ? '' : ' (archived runs need --all)'}.\n`);
          return void process.stdout.write(
            `No runs${options.all ? '' : ' (archived runs need --all)'}. Start one with: weft run <workflow.toml>\n`,
          );
        }
        process.stdout.write(`${psRow(...PS_COLUMNS)}\n`);
        const waits = await runs.concurrencyWaits(page.runs);
        for (const run of page.runs) {
          const wait = waits.get(run.id);
          const goal = run.goal ? run.goal.replace(/\s+/g, ' ').slice(0, 50) : '';
          process.stdout.write(
            `${psRow(run.id, run.status, run.workflow, age(run), costCell(run.usage), `${madeBy(run.labels, true)}${wait === undefined ? goal : `(waits: ${waitText(wait)}) ${goal}`}`)}\n`,
          );
        }
      });
    });

  program
    .command('inspect')
    .description('show a run: status, stages, timings, pending questions; or, with --graph, its workflow coloured by stage state')
    .argument('<run-id>')
    .option('--json', 'print JSON')
    .option('--graph [format]', "draw the run's graph instead: svg (default), mermaid or dot")
    .action(async (id: string, options: { json?: boolean; graph?: string | true }, command: Command) => {
      await withApp(command, async (app) => {
        const runs = await app.runs();
        if (options.graph !== undefined) {
          const [{ drawRunGraph }, { parseGraphFormat }] = await Promise.all([
            import('../../../app/views/run-graph.js'),
            import('../../../runs/workflow/render-graph.js'),
          ]);
          return void process.stdout.write(
            await drawRunGraph(runs, id, parseGraphFormat(options.graph === true ? 'svg' : options.graph, '--graph')),
          );
        }
        const run = await runs.get(id);
        const [questions, stages, sandbox, waits] = await Promise.all([
          runs.questions(run.id, true),
          runs.stages(run.id),
          runs.sandbox(run),
          runs.concurrencyWaits([run]),
        ]);
        const waitingFor = waits.get(run.id) ?? [];
        const usage = stages.reduce((sum, stage) => (stage.usage === undefined ? sum : addTokenUsage(sum, stage.usage)), NO_TOKENS);
        if (options.json)
          return printJson({
            ...run,
            pendingQuestions: questions,
            stages: stages.map(stageJson),
            usage,
            sandbox: { sandboxed: sandbox.sandboxed, rules: sandbox.rules },
            waitingFor,
          });
        const lines = [
          `run ${run.id}  ${run.status}${run.reason ? ` — ${run.reason}` : ''}${run.archived ? ' (archived)' : ''}`,
          `  workflow  ${run.workflow} (${run.workflowPath})`,
          ...(run.goal ? [`  goal      ${run.goal}`] : []),
          `  cwd       ${run.cwd}`,
          ...(run.workspace === undefined
            ? []
            : [
                `  workspace ${run.workspace.mode} on branch ${run.workspace.branch} (from ${run.workspace.baseCommit.slice(0, 12)}${run.workspace.remoteUrl === undefined ? '' : `, pushed to ${redactGitText(run.workspace.remoteUrl)}`}); see it with: weft diff ${run.id}`,
              ]),
          ...(run.origin === undefined ? [] : [`  forked    from ${run.origin.stageId} of run ${run.origin.runId}`]),
          ...(madeBy(run.labels, false) === '' ? [] : [`  made by   ${madeBy(run.labels, false)}`]),
          `  sandbox   ${sandbox.summary}`,
          `  created   ${new Date(run.createdAt).toISOString()}${run.finishedAt ? `, finished after ${formatDuration(run.finishedAt - run.createdAt)}` : ''}`,
          `  attempt   ${run.attempt}  stages ${run.counts.stages}  tool calls ${run.counts.toolCalls}  events ${run.counts.events}`,
          ...(run.currentStageId ? [`  stage     ${run.currentStageId}`] : []),
          ...(run.priority ? [`  priority  ${run.priority}`] : []),
          ...(run.concurrency === undefined
            ? []
            : [`  keys      ${run.concurrency.map((slot) => `${slot.key} (limit ${slot.limit})`).join(', ')}`]),
          ...(waitingFor.length === 0
            ? []
            : [`  waiting   ${waitText(waitingFor)}; it starts when a run holding the key ends or its lease runs out`]),
          ...(run.budget ? [`  budget    ${JSON.stringify(run.budget)} (over the workflow's [run.budget])`] : []),
          ...(usage.totalTokens > 0 ? [tokensLine(usage)] : []),
          ...(usage.totalTokens > 0 ? [costLine(usage)].filter((line) => line !== undefined) : []),
          ...(run.pairSession
            ? [`  pair      session ${run.pairSession.sessionId} on ${run.pairSession.stageId} (by ${run.pairSession.by})`]
            : []),
          ...(run.parentId ? [`  parent    ${run.parentId}`] : []),
          ...Object.entries(run.labels).map(([key, value]) => `  label     ${key}=${value}`),
          ...stageLines(run, stages),
          ...questions.map(
            (question) =>
              `  ? ${question.id} ${question.prompt} [${question.kind}${question.options ? `: ${question.options.join(' | ')}` : ''}]`,
          ),
        ];
        process.stdout.write(`${lines.join('\n')}\n`);
      });
    });

  program
    .command('events')
    .description("print a run's events as JSON Lines")
    .argument('<run-id>')
    .option('--follow', 'keep printing until the run ends')
    .option('--type <type>', 'only events of this type (repeatable)', collect, [])
    .option('--json', 'JSON Lines (the default for this command)')
    .action(async (ref: string, options: { follow?: boolean; type: string[] }, command: Command) => {
      await withApp(command, async (app) => {
        const runs = await app.runs();
        const { id } = await runs.get(ref);
        if (options.follow) return followToEnd(runs, id, { json: true, types: options.type });
        for (let afterSeq = 0; ;) {
          const events = await runs.events(id, { afterSeq, limit: 1000, ...(options.type.length > 0 ? { types: options.type } : {}) });
          for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`);
          afterSeq = events.at(-1)?.seq ?? afterSeq;
          if (events.length < 1000) return;
        }
      });
    });

  program
    .command('logs')
    .description("a run's readable transcript")
    .argument('<run-id>')
    .option('--follow', 'keep printing until the run ends')
    .option('--json', "the run's events as JSON Lines, as `weft events` prints them")
    .option('--full', "print stages' whole outputs, every line")
    .action(async (ref: string, options: { follow?: boolean; json?: boolean; full?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const runs = await app.runs();
        const { id } = await runs.get(ref);
        if (options.follow) return followToEnd(runs, id, { json: options.json === true });
        let afterSeq = 0;
        for (;;) {
          const events = await runs.events(id, { afterSeq, limit: 1000 });
          for (const event of events) {
            const line = options.json ? JSON.stringify(event) : eventLine(event, { full: options.full === true });
            if (line !== undefined) process.stdout.write(`${line}\n`);
          }
          afterSeq = events.at(-1)?.seq ?? afterSeq;
          if (events.length < 1000) return;
        }
      });
    });

  program
    .command('wait')
    .description('wait until the runs end; exit 0 when all succeeded, 1 otherwise (or on timeout)')
    .argument('<run-id...>')
    .option('--timeout <seconds>', 'give up after this long', '3600')
    .option('--json', 'print JSON')
    .action(async (ids: string[], options: { timeout: string; json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const result = await (await app.runs()).wait(ids, parseSeconds(options.timeout, '--timeout') * 1000);
        if (options.json)
          printJson({
            timedOut: result.timedOut,
            runs: result.runs.map((run) => ({ id: run.id, status: run.status, reason: run.reason ?? null })),
          });
        else for (const run of result.runs) process.stdout.write(`${run.id}  ${run.status}${run.reason ? ` — ${run.reason}` : ''}\n`);
        if (result.timedOut && !options.json) process.stderr.write(`Timed out after ${options.timeout}s; the runs go on.\n`);
        process.exitCode = !result.timedOut && result.runs.every((run) => run.status === 'succeeded') ? EXIT_OK : EXIT_FAILURE;
      });
    });
}
