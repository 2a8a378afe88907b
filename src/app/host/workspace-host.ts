/**
 * Where this host keeps run workspaces (worktrees and clones) and who their checkpoints are
 * by: `WEFT_WORKSPACE_ROOT`, else `[workspace] root` (relative to the storage dir), else
 * `<storage dir>/workspaces` — so two workers on one machine can keep theirs apart.
 */
import { join, resolve } from 'node:path';
import type { Settings } from '../../core/settings/settings.js';
import type { WorkspaceHost } from '../../runs/engine/run-files.js';

export function workspaceHost(storageDir: string, settings: Settings, env: Record<string, string | undefined>): WorkspaceHost {
  const root = env.WEFT_WORKSPACE_ROOT
    ? resolve(env.WEFT_WORKSPACE_ROOT)
    : settings.workspace.root !== undefined
      ? resolve(storageDir, settings.workspace.root)
      : join(storageDir, 'workspaces');
  const { authorName, authorEmail } = settings.workspace;
  return authorName === undefined && authorEmail === undefined
    ? { root }
    : { root, identity: { name: authorName ?? 'weft', email: authorEmail ?? 'weft@localhost' } };
}
