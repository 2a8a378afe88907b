/**
 * Which concurrency keys a new run gets: its workflow's `[run.concurrency]`, else the
 * default in the settings of the run's directory (`.weft/settings.toml`, else the user's).
 * A default's templates are checked against the workflow's declared inputs here, at
 * creation, since the settings file cannot know them: one that names an input the workflow
 * lacks is refused by file and key, never rendered into a key every run shares.
 */
import { WeftError } from '../../core/errors.js';
import type { ConcurrencyDefaults } from '../../core/settings/settings.js';
import { keyTemplateProblems, type Workflow } from '../../runs/workflow/index.js';
import type { ConcurrencySpec } from '../../runs/workflow/types.js';

/** The settings' default for runs created in `cwd`; undefined when none is set. */
export type ConcurrencyDefaultsReader = (cwd: string) => Promise<ConcurrencyDefaults | undefined>;

export async function concurrencyTemplates(
  workflow: Pick<Workflow, 'run' | 'inputs' | 'name'>,
  cwd: string,
  defaults: ConcurrencyDefaultsReader | undefined,
): Promise<readonly ConcurrencySpec[] | undefined> {
  if (workflow.run.concurrency !== undefined || defaults === undefined) return workflow.run.concurrency;
  const fallback = await defaults(cwd);
  if (fallback === undefined) return undefined;
  const inputs = new Set(Object.keys(workflow.inputs));
  const problems = fallback.keys.flatMap(({ key }) => keyTemplateProblems(key, inputs).map((problem) => `key "${key}": ${problem}`));
  if (problems.length > 0)
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `[run.concurrency] in ${fallback.file} (the default for workflows without one) does not fit workflow '${workflow.name}': ${problems.join('; ')}. Give the workflow its own [run.concurrency], or declare the input.`,
    );
  return fallback.keys;
}
