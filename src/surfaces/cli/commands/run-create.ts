/**
 * `weft run` (create, approve, start and follow) and `weft create` / `weft start`.
 */
import { type Command, Option } from 'commander';
import { join } from 'node:path';
import type { RunRecord } from '../../../runs/model/run-record.js';
import type { WorkspaceMode, WorkspaceSpec } from '../../../runs/model/run-workspace.js';
import type { CreateRunRequest } from '../../../app/services/run-service.js';
import { printJson, withApp } from '../command-context.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_INTERRUPTED, EXIT_USAGE, exitCodeFor } from '../exit-codes.js';
import type { WeftErrorCode } from '../../../core/errors.js';
import { ENGINE_EVENT } from '../../../runs/model/event-types.js';
import type { RunEvent } from '../../../runs/model/run-event.js';
import { followRun } from '../run-follow.js';
import { collect, parseInputs, parseLabels, parseBudget, parsePriority, parseSandbox } from '../options.js';
import { untilInterrupted } from '../interrupt.js';

interface CreateOptions {
  goal?: string;
  goalFile?: string;
  input: string[];
  label: string[];
  autoApprove?: boolean;
  dryRun?: boolean;
  parent?: string;
  model?: string;
  budget: string[];
  priority?: string;
  json?: boolean;
  workspace?: string;
  workspaceBase?: string;
  workspaceRemote?: string;
  workspaceRepo?: string;
  includeUncommitted?: boolean;
  keepBranch?: boolean;
  sandbox?: string;
  sandboxAllowWrite: string[];
  sandboxDenyRead: string[];
  sandboxNetwork?: string;
  sandboxMaxProcesses?: string;
}

function addCreateOptions(command: Command): Command {
  return command
    .argument('<workflow>', 'workflow file (TOML)')
    .addOption(new Option('--goal <text>', 'what the run is for').conflicts('goalFile'))
    .option('--goal-file <file>', 'read the goal from a file (inside the working directory)')
    .option(
      '--input <key=value>',
      'workflow input (repeatable; numbers, booleans and JSON are converted to the declared type)',
      collect,
      [],
    )
    .option('--label <key=value>', 'label (repeatable)', collect, [])
    .option('--auto-approve', 'skip approval (pending) and let MCP tools run without asking')
    .option('--dry-run', 'walk the graph and check every stage without side effects')
    .option('--parent <run-id>', 'make this a child of another run')
    .option('--model <model>', 'model for agent stages')
    .option(
      '--budget <key=value>',
      "the run's budget, over the workflow's [run.budget] (repeatable): max_cost_usd=5, max_tokens=2000000, max_duration=2h, on_exceeded=fail",
      collect,
      [],
    )
    .option('--priority <n>', 'claim order, higher first (-100 to 100, default 0; a minute earlier in the queue per step)')
    .addOption(
      new Option(
        '--workspace <mode>',
        'where the run works: its own git worktree (default inside a git repository), the directory itself, or a fresh clone',
      ).choices(['worktree', 'in-place', 'clone']),
    )
    .option('--workspace-base <ref>', 'commit, branch or tag the run branch starts from (default: the checked-out commit)')
    .option('--workspace-remote <remote>', 'git remote (name or URL) every checkpoint is pushed to, for runners on other hosts')
    .option('--workspace-repo <url>', 'the repository to clone (--workspace clone)')
    .option('--include-uncommitted', "carry this tree's uncommitted changes into the run as its first checkpoint")
    .option('--keep-branch', "keep the run's branch when the run is removed")
    .addOption(
      new Option(
        '--sandbox <mode>',
        'os: run everything the run executes inside the OS sandbox; none: without it (over [run.sandbox] mode)',
      ).choices(['os', 'none']),
    )
    .option(
      '--sandbox-allow-write <path>',
      'a folder the sandbox may write besides the workspace (repeatable; relative to the workspace)',
      collect,
      [],
    )
    .option('--sandbox-deny-read <path>', 'a path the sandbox hides besides the credential folders (repeatable)', collect, [])
    .option(
      '--sandbox-network <hosts>',
      'none, or the hosts the sandbox may reach, comma-separated (registry.npmjs.org,*.example.com,localhost:8080)',
    )
    .option('--sandbox-max-processes <n>', 'processes and threads the sandbox may hold at once (at least 300)')
    .option('--json', 'print JSON');
}

function createRequest(workflow: string, cwd: string, options: CreateOptions): CreateRunRequest {
  return {
    workflow,
    cwd,
    ...(options.goal !== undefined ? { goal: options.goal } : {}),
    ...(options.goalFile !== undefined ? { goalFile: options.goalFile } : {}),
    inputs: parseInputs(options.input),
    labels: parseLabels(options.label),
    ...(options.autoApprove ? { autoApprove: true } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(options.parent ? { parentId: options.parent } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.budget.length > 0 ? { budget: parseBudget(options.budget) } : {}),
    ...(options.priority !== undefined ? { priority: parsePriority(options.priority) } : {}),
    ...(workspaceOf(options) === undefined ? {} : { workspace: workspaceOf(options) }),
    ...sandboxOf(options),
  };
}

/** The workspace flags as a request; undefined when none was given (the workflow's `[run.workspace]` decides). */
function workspaceOf(options: CreateOptions): WorkspaceSpec | undefined {
  const spec: WorkspaceSpec = {
    ...(options.workspace === undefined ? {} : { mode: options.workspace as WorkspaceMode }),
    ...(options.workspaceBase === undefined ? {} : { base: options.workspaceBase }),
    ...(options.workspaceRemote === undefined ? {} : { remote: options.workspaceRemote }),
    ...(options.workspaceRepo === undefined ? {} : { repo: options.workspaceRepo }),
    ...(options.includeUncommitted ? { includeUncommitted: true } : {}),
    ...(options.keepBranch ? { keepBranch: true } : {}),
  };
  return Object.keys(spec).length === 0 ? undefined : spec;
}

/** The sandbox flags as the run's own `sandbox`; nothing when none was given (settings and workflow decide). */
function sandboxOf(options: CreateOptions): Pick<CreateRunRequest, 'sandbox'> {
  const sandbox = parseSandbox({
    ...(options.sandbox === undefined ? {} : { mode: options.sandbox }),
    allowWrite: options.sandboxAllowWrite,
    denyRead: options.sandboxDenyRead,
    ...(options.sandboxNetwork === undefined ? {} : { network: options.sandboxNetwork }),
    ...(options.sandboxMaxProcesses === undefined ? {} : { maxProcesses: options.sandboxMaxProcesses }),
  });
  return sandbox === undefined ? {} : { sandbox };
}

/** Where the run's files are, on the first line of `weft run` (the line every reader sees, before any stage output). */
function whereItWorks(run: RunRecord, workspaceRoot: string | undefined): string {
  const workspace = run.workspace;
  if (workspace === undefined) return `working in place in ${run.cwd}`;
  const dir =
    workspaceRoot === undefined
      ? `its ${workspace.mode}`
      : join(workspaceRoot, run.id, ...(workspace.subdir === '' ? [] : workspace.subdir.split('/')));
  return `working in ${dir} on branch ${workspace.branch}`;
}

function describeCreated(run: RunRecord): string {
  switch (run.status) {
    case 'pending':
      return `Created run ${run.id} (pending approval): weft approve ${run.id}`;
    case 'submitted':
      return `Created run ${run.id} (not started): weft start ${run.id}`;
    default:
      return `Created run ${run.id} (${run.status})`;
  }
}

export function registerRunCreateCommands(program: Command): void {
  addCreateOptions(program.command('run').description('create a run, start it and follow it until it ends (exit 0 when it succeeds)'))
    .option('--detach', 'return once the run is queued; it goes on in the background')
    .action(async (workflow: string, options: CreateOptions & { detach?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const runs = await app.runs();
        let run = await runs.create(createRequest(workflow, app.workspaceRoot, options));
        // Whoever types `weft run` approves the run; `weft create` leaves approval to someone else.
        if (run.status === 'pending') run = await runs.approve(run.id);
        if (options.detach) {
          if (options.json) printJson(run);
          else process.stdout.write(`${run.id}\n`);
          return;
        }
        // Stages that failed on a configuration mistake (no model, no key): the exit code says so.
        const configErrors: string[] = [];
        const onEvent = (event: RunEvent) => {
          const code =
            event.type === ENGINE_EVENT.stageFinished && event.payload.status === 'failed' && !event.payload.retrying
              ? event.payload.errorCode
              : undefined;
          // A code this version does not know maps to 1 (exitCodeFor's default), so the cast is safe.
          if (typeof code === 'string' && exitCodeFor(code as WeftErrorCode) === EXIT_USAGE)
            configErrors.push(`${event.stageId ?? '?'}: ${String(event.payload.error)}`);
        };
        const sandbox = options.json ? undefined : await runs.sandbox(run);
        // The header is written once Ctrl-C is handled, so whoever sees it can interrupt cleanly.
        const { finished, stopped } = await untilInterrupted(async (signal) => {
          if (!options.json)
            process.stderr.write(
              `run ${run.id} · ${run.workflow}${run.dryRun ? ' (dry run)' : ''} · ${whereItWorks(run, app.workspaceHost.root)}\nsandbox: ${sandbox?.summary ?? ''}\n`,
            );
          return { finished: await followRun(runs, run.id, { json: options.json === true, signal, onEvent }), stopped: signal.aborted };
        });
        if (stopped) {
          process.stderr.write(
            `Stopped following; run ${run.id} goes on (${finished.status}). Follow it again with: weft logs ${run.id} --follow\n`,
          );
          process.exitCode = EXIT_INTERRUPTED;
          return;
        }
        if (!options.json) process.stderr.write(`run ${finished.id} ${finished.status}${finished.reason ? ` — ${finished.reason}` : ''}\n`);
        // A dry run is a check: a configuration error fails it even when the workflow routes past the stage.
        if (configErrors.length > 0 && (finished.status !== 'succeeded' || finished.dryRun)) {
          if (!options.json)
            process.stderr.write(
              `configuration error (exit 2) — fix and run again:\n${configErrors.map((line) => `  ${line}`).join('\n')}\n`,
            );
          process.exitCode = EXIT_USAGE;
          return;
        }
        process.exitCode = finished.status === 'succeeded' ? EXIT_OK : EXIT_FAILURE;
      });
    });

  addCreateOptions(program.command('create').description('create a run without starting it (start it with `weft start`)')).action(
    async (workflow: string, options: CreateOptions, command: Command) => {
      await withApp(command, async (app) => {
        const run = await (await app.runs()).create({ ...createRequest(workflow, app.workspaceRoot, options), start: false });
        if (options.json) printJson(run);
        else process.stdout.write(`${describeCreated(run)}\n`);
      });
    },
  );

  program
    .command('start')
    .description('start a created run (it then waits for approval unless auto-approved), or resume a paused one')
    .argument('<run-id>')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const run = await (await app.runs()).start(id);
        if (options.json) printJson(run);
        else process.stdout.write(`${describeCreated(run)}\n`);
      });
    });
}
