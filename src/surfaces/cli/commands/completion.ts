/**
 * `weft completion bash|zsh|fish`: prints the shell's completion script for the whole tree.
 */
import type { Command } from 'commander';
import { WeftError } from '../../../core/errors.js';
import { COMPLETION_SHELLS, completionScript, type CompletionShell } from '../completion-script.js';

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print the completion script of a shell: eval "$(weft completion bash)"')
    .argument('<shell>', COMPLETION_SHELLS.join(', '))
    .action((shell: string) => {
      if (!(COMPLETION_SHELLS as readonly string[]).includes(shell))
        throw new WeftError('USAGE', `No completion for '${shell}': use one of ${COMPLETION_SHELLS.join(', ')}.`);
      process.stdout.write(completionScript(program, shell as CompletionShell));
    });
}
