/**
 * What the HTTP routes share: the application services they call (opened on first use)
 * and where the server works.
 */
import type { McpRegistry } from '../../app/services/mcp-registry.js';
import type { RunService } from '../../app/services/run-service.js';

export interface HttpDeps {
  runs: () => Promise<RunService>;
  /** Servers added and removed at runtime, and the status of every server. */
  mcp: () => Promise<McpRegistry>;
  /** The workspace: relative workflow paths resolve here. */
  workspaceRoot: string;
  storageDir: string;
  /** Reads a full tool output kept in the database (`weft-artifact:<id>`); absent where none are kept there. */
  readArtifact?: (ref: string) => Promise<string>;
}
