/**
 * Where `--scope local` servers live: this project, this user only. Like Claude Code (which
 * keys them by project path in `~/.claude.json`), they stay out of the project tree, in an
 * `.mcp.json`-shaped file in the user's storage dir named after the project's path:
 * `~/.weft/projects/<path with every other character as '-'>/mcp.json`.
 */
import path from 'node:path';

/** The local-scope server file of one workspace, e.g. `/home/me/.weft/projects/-work-app/mcp.json`. */
export function localMcpJsonFile(storageDir: string, workspaceRoot: string): string {
  return path.join(storageDir, 'projects', path.resolve(workspaceRoot).replace(/[^A-Za-z0-9_.]/g, '-'), 'mcp.json');
}
