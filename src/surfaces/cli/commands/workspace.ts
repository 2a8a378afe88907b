/**
 * `weft diff`, `weft rewind`, `weft fork` and `weft merge`: a run's files, through the
 * workspace service (see `app/services/workspace-service.ts`).
 */
import type { Command } from 'commander';
import type { RunDiff } from '../../../app/services/workspace-service.js';
import { printJson, withApp } from '../command-context.js';
import { collect, parseInputs } from '../options.js';

/** `--stat`: one line per file, then the totals, as `git diff --stat` would say them. */
function statLines(diff: RunDiff): string {
  const lines = diff.files.map((file) => `  ${file.status} ${file.path}  ${file.binary ? 'binary' : `+${file.added} -${file.removed}`}`);
  lines.push(`${diff.filesChanged} file${diff.filesChanged === 1 ? '' : 's'} changed, +${diff.linesAdded} -${diff.linesRemoved}`);
  return `${lines.join('\n')}\n`;
}

export function registerWorkspaceCommands(program: Command): void {
  program
    .command('diff')
    .description("show what a run changed in its workspace (since its base), or what one stage's checkpoint changed")
    .argument('<run-id>')
    .option('--stage <id>', 'only this stage (e.g. build, or build@2 for one attempt)')
    .option('--stat', 'files changed and lines added/removed, no text')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { stage?: string; stat?: boolean; json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const diff = await (
          await app.workspaces()
        ).diff(id, { ...(options.stage === undefined ? {} : { stage: options.stage }), stat: options.stat === true });
        if (options.json) return printJson(diff);
        if (diff.unchanged) process.stderr.write(`${diff.stageId ?? 'The stage'} changed no file.\n`);
        if (options.stat === true) process.stdout.write(statLines(diff));
        else process.stdout.write(diff.text ?? '');
        if (diff.truncated) process.stderr.write(`The diff was cut; see it whole with: git diff ${diff.from} ${diff.to}\n`);
      });
    });

  program
    .command('rewind')
    .description("take a failed or cancelled run back to a stage's checkpoint; it runs on from there as a new attempt (nothing is deleted)")
    .argument('<run-id>')
    .requiredOption('--to <stage>', 'the stage whose checkpoint the run goes back to (e.g. build, or build@1)')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { to: string; json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const run = await (await app.workspaces()).rewind(id, options.to);
        if (options.json) printJson(run);
        else
          process.stdout.write(
            `Rewound run ${run.id} to ${options.to}; it runs on from there (${run.status}). Follow it with: weft logs ${run.id} --follow\n`,
          );
      });
    });

  program
    .command('fork')
    .description("start a new run from a stage of a run: its files start at that stage's checkpoint and the stages up to it count as done")
    .argument('<run-id>')
    .requiredOption('--from <stage>', 'the stage to fork after (e.g. plan, or plan@2)')
    .option('--input <key=value>', 'override an input of the original run (repeatable)', collect, [])
    .option('--json', 'print JSON')
    .action(async (id: string, options: { from: string; input: string[]; json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const run = await (await app.workspaces()).fork(id, { fromStage: options.from, inputs: parseInputs(options.input) });
        if (options.json) printJson(run);
        else
          process.stdout.write(
            `Forked run ${run.id} from ${options.from} of run ${id} (${run.status}${run.status === 'pending' ? `: weft approve ${run.id}` : ''})\n`,
          );
      });
    });

  program
    .command('merge')
    .description("bring a run's result into your branch: fast-forward, else a merge commit; a conflict changes nothing and lists the files")
    .argument('<run-id>')
    .option('--into <branch>', 'the branch to merge into (default: the branch the run was created from)')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { into?: string; json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const result = await (await app.workspaces()).merge(id, options.into);
        if (options.json) return printJson(result);
        const how =
          result.kind === 'up-to-date'
            ? 'already up to date'
            : result.kind === 'fast-forward'
              ? `fast-forwarded to ${result.commit.slice(0, 12)}`
              : `merge commit ${result.commit.slice(0, 12)}`;
        process.stdout.write(
          `Merged run ${result.runId} into ${result.into}: ${how}${result.updatedWorktree === undefined ? '' : ` (updated ${result.updatedWorktree})`}\n`,
        );
      });
    });
}
