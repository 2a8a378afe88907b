/**
 * Workflow files that are JavaScript or TypeScript modules (`weft run flow.mjs`): the
 * module's default export is a `WorkflowDefinition`. `.mjs`/`.js` load with Node itself;
 * `.ts`/`.mts` through tsx, a dependency of the package (Node 20 has no type stripping), so
 * a project that installed weft alone runs them; tsx stays outside the bundle and loads only
 * for a TypeScript workflow.
 */
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WeftError } from '../../core/errors.js';
import { workflowFromDefinition, type WorkflowDefinition } from './definition.js';
import type { Workflow } from './types.js';

function isDefinition(value: unknown): value is WorkflowDefinition {
  return typeof value === 'object' && value !== null && 'workflow' in value && 'nodes' in value;
}

async function importTypeScript(file: string): Promise<unknown> {
  let tsImport: (specifier: string, parent: string) => Promise<unknown>;
  try {
    ({ tsImport } = (await import('tsx/esm/api')) as { tsImport: typeof tsImport });
  } catch (error) {
    throw new WeftError(
      'WORKFLOW_INVALID',
      `Workflow module '${file}' is TypeScript, and tsx (the dependency of weft that loads it) could not be loaded: ${(error as Error).message} — reinstall weft-runtime (its dependencies were not all installed), or compile the workflow to .mjs.`,
      { data: { file }, cause: error },
    );
  }
  return tsImport(pathToFileURL(file).href, import.meta.url);
}

/** Imports the module and validates its default export like a workflow file. */
export async function loadWorkflowModule(file: string): Promise<Workflow> {
  let module: { default?: unknown };
  try {
    const extension = extname(file);
    module = (await (extension === '.ts' || extension === '.mts' ? importTypeScript(file) : import(pathToFileURL(file).href))) as {
      default?: unknown;
    };
  } catch (error) {
    if (error instanceof WeftError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(file)) {
      throw new WeftError('FILE_NOT_FOUND', `Workflow file '${file}' does not exist — check the path.`, { data: { file }, cause: error });
    }
    throw new WeftError('WORKFLOW_INVALID', `Workflow module '${file}' failed to load: ${(error as Error).message}`, {
      data: { file },
      cause: error,
    });
  }
  const definition = module.default;
  if (!isDefinition(definition)) {
    throw new WeftError(
      'WORKFLOW_INVALID',
      `Workflow module '${file}' must export default a workflow definition ({ workflow: { name }, nodes: { … } }) — write 'export default defineWorkflow({ … })'.`,
      { data: { file } },
    );
  }
  return workflowFromDefinition(file, definition);
}
