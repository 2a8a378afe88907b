/**
 * What the HTTP routes share: the application services they call (opened on first use)
 * and where the server works.
 */
import type { McpRegistry } from '../../app/services/mcp-registry.js';
import type { RunService } from '../../app/services/run-service.js';
import type { ScheduleService } from '../../app/services/schedule-service.js';
import type { TriggerService } from '../../app/services/trigger-service.js';

export interface HttpDeps {
  runs: () => Promise<RunService>;
  /** Schedules (`/api/v1/schedules`); absent in a server built without them (the library's). */
  schedules?: () => Promise<ScheduleService>;
  /** Webhook triggers (`POST /api/v1/triggers/{name}`). */
  triggers?: () => Promise<TriggerService>;
  /** Servers added and removed at runtime, and the status of every server. */
  mcp: () => Promise<McpRegistry>;
  /** The workspace: relative workflow paths resolve here. */
  workspaceRoot: string;
  storageDir: string;
  /** Reads a full tool output kept in the database (`weft-artifact:<id>`); absent where none are kept there. */
  readArtifact?: (ref: string) => Promise<string>;
}
