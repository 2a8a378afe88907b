/**
 * The workflow files of a workspace, for the HTTP API and the dashboard: list them (each
 * checked), validate one given by path or as text, and draw one. Paths come from outside,
 * so each is confined to the workspace.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { globby } from 'globby';
import { WeftError } from '../../core/errors.js';
import { loadWorkflow } from '../../runs/workflow/load-workflow.js';
import type { Workflow, WorkflowProblem } from '../../runs/workflow/types.js';
import { validateWorkflowText } from '../../runs/workflow/validate-workflow.js';

/** A workspace is listed up to this many files deep into its tree; the rest is left out. */
const MAX_LISTED = 200;
const IGNORED = ['**/node_modules/**', '**/.git/**', '**/dist/**', '**/.weft/**'];

export interface WorkflowEntry {
  /** Relative to the workspace. */
  path: string;
  /** The workflow's name, `null` when the file is not a valid workflow. */
  name: string | null;
  valid: boolean;
  problems: WorkflowProblem[];
  /** Its `[inputs]`, in declaration order, so a form can ask for them (empty when invalid). */
  inputs: WorkflowInputEntry[];
  /** Its `[run]` goal, the default of a run's goal. */
  goal: string | null;
}

/** One declared input as a form shows it. */
export interface WorkflowInputEntry {
  name: string;
  type: string | null;
  description: string | null;
  required: boolean;
  default: unknown;
}

export interface WorkflowCheck {
  valid: boolean;
  name: string | null;
  problems: WorkflowProblem[];
}

/** `path` inside `root`, or PATH_OUTSIDE_WORKSPACE. */
export function workspaceFile(root: string, path: string): string {
  const file = resolve(root, path);
  const inside = relative(root, file);
  if (inside.startsWith('..') || isAbsolute(inside))
    throw new WeftError('PATH_OUTSIDE_WORKSPACE', `'${path}' is outside the workspace ${root}; give a path inside it.`, { data: { path } });
  return file;
}

function check(file: string, text: string): WorkflowCheck {
  const { workflow, problems } = validateWorkflowText(file, text);
  return { valid: workflow !== undefined, name: workflow?.name ?? null, problems };
}

/** `*.toml` files under `root` with a `[nodes` table or `[[nodes` array — workflows, not settings — with their text. */
async function workflowFiles(root: string): Promise<{ path: string; file: string; text: string }[]> {
  const paths = (await globby('**/*.toml', { cwd: root, ignore: IGNORED, dot: false, followSymbolicLinks: false }))
    .sort()
    .slice(0, MAX_LISTED);
  const files = await Promise.all(
    paths.map(async (path) => {
      const file = resolve(root, path);
      const text = await readFile(file, 'utf8').catch(() => undefined);
      return text === undefined || !/^\s*\[\[?nodes\b/m.test(text) ? undefined : { path, file, text };
    }),
  );
  return files.filter((entry) => entry !== undefined);
}

/** The workflow files under `root`, each checked. */
export async function listWorkflows(root: string): Promise<WorkflowEntry[]> {
  return (await workflowFiles(root)).map(({ path, file, text }) => {
    const { workflow, problems } = validateWorkflowText(file, text);
    const inputs = Object.values(workflow?.inputs ?? {}).map((input) => ({
      name: input.name,
      type: input.type ?? null,
      description: input.description ?? null,
      required: input.required,
      default: input.default ?? null,
    }));
    return { path, valid: workflow !== undefined, name: workflow?.name ?? null, problems, inputs, goal: workflow?.run.goal ?? null };
  });
}

/** The valid workflows under `root` (invalid files are left out: `listWorkflows` reports them). */
export async function loadWorkspaceWorkflows(root: string): Promise<{ path: string; workflow: Workflow }[]> {
  return (await workflowFiles(root)).flatMap(({ path, file, text }) => {
    const { workflow } = validateWorkflowText(file, text);
    return workflow === undefined ? [] : [{ path, workflow }];
  });
}

/** Checks a workflow file of the workspace, or workflow text (named `inline.toml` in problems). */
export async function validateWorkflow(root: string, source: { path: string } | { toml: string }): Promise<WorkflowCheck> {
  if ('toml' in source) return check('inline.toml', source.toml);
  const file = workspaceFile(root, source.path);
  try {
    return check(file, await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new WeftError('FILE_NOT_FOUND', `Workflow file '${source.path}' does not exist in ${root}.`, { data: { path: source.path } });
    throw new WeftError('FILE_NOT_READ', `Workflow file '${source.path}' cannot be read (${(error as Error).message}).`, { cause: error });
  }
}

/** @example await drawWorkflow(root, 'ci.toml', 'svg') */
export async function drawWorkflow(root: string, path: string, format: string): Promise<string> {
  const { renderGraph, parseGraphFormat } = await import('../../runs/workflow/render-graph.js');
  const parsed = parseGraphFormat(format, 'format');
  return renderGraph(await loadWorkflow(workspaceFile(root, path)), parsed);
}
