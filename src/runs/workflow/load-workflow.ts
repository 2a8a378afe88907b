/**
 * Reads a workflow file and validates it; any problem becomes one `WORKFLOW_INVALID` error
 * listing every problem on its own line as `file:line: message — how to fix`.
 */
import { readFile } from 'node:fs/promises';
import { WeftError } from '../../core/errors.js';
import type { Workflow, WorkflowProblem } from './types.js';
import { validateWorkflowText } from './validate-workflow.js';

/** `file:line: message`, one problem per line. */
export function formatProblems(problems: readonly WorkflowProblem[]): string {
  return problems.map((problem) => `${problem.file}:${problem.line}: ${problem.message}`).join('\n');
}

export async function loadWorkflow(file: string): Promise<Workflow> {
  // Loaded only for module workflows, so TOML users never load the module machinery.
  if (/\.(mjs|js|ts|mts)$/.test(file)) return (await import('./workflow-module.js')).loadWorkflowModule(file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new WeftError('FILE_NOT_FOUND', `Workflow file '${file}' does not exist — check the path.`, { data: { file }, cause: error });
    }
    throw new WeftError('FILE_NOT_READ', `Workflow file '${file}' cannot be read (${(error as Error).message}).`, {
      data: { file },
      cause: error,
    });
  }
  const { workflow, problems } = validateWorkflowText(file, text);
  if (!workflow) throw new WeftError('WORKFLOW_INVALID', formatProblems(problems), { data: { file, problems } });
  return workflow;
}
