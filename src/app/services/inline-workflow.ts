/**
 * A workflow sent as text (`POST /api/v1/runs` with `workflow_toml`): checked, then kept
 * as a file under the storage dir, because a run names its workflow by path and runners
 * in other processes load it from there. The file is named by a hash of its text, so
 * sending the same workflow twice reuses one file.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { formatProblems } from '../../runs/workflow/load-workflow.js';
import { validateWorkflowText } from '../../runs/workflow/validate-workflow.js';

export const INLINE_WORKFLOW_DIR = 'inline-workflows';

/** @example const path = await saveInlineWorkflow(storageDir, toml); await runs.create({ workflow: path, cwd }); */
export async function saveInlineWorkflow(storageDir: string, text: string): Promise<string> {
  const dir = join(storageDir, INLINE_WORKFLOW_DIR);
  const file = join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 32)}.toml`);
  const { workflow, problems } = validateWorkflowText(file, text);
  if (!workflow) throw new WeftError('WORKFLOW_INVALID', formatProblems(problems), { data: { file, problems } });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(file, text, { mode: 0o600 });
  return file;
}
