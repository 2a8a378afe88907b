/**
 * A configured MCP server after loading, precedence, interpolation and validation:
 * the one shape the connection manager consumes, whatever file it came from.
 */

export type McpTransportType = 'stdio' | 'http' | 'sse' | 'sandbox';

export type McpConfigSourceKind = 'workflow' | 'project-settings' | 'project-mcp-json' | 'cursor-mcp-json' | 'user-settings' | 'runtime';

export interface McpConfigSource {
  kind: McpConfigSourceKind;
  /** Absolute path of the file the entry came from (or a label such as `workflow.toml`). */
  file: string;
}

export interface McpServerConfig {
  name: string;
  type: McpTransportType;
  /** stdio/sandbox: executable then its arguments, already interpolated. */
  command?: string[];
  /** stdio/sandbox: a shell script run with `/bin/sh -c`, alternative to `command`. */
  script?: string;
  /** stdio: working directory (absolute); defaults to the workspace root. */
  cwd?: string;
  /** stdio/sandbox: extra environment, already interpolated. */
  env: Record<string, string>;
  /** stdio: names of host variables passed through. */
  envVars: string[];
  /** http/sse: endpoint, already interpolated. */
  url?: string;
  headers: Record<string, string>;
  /** http/sse: name of the variable whose value becomes `Authorization: Bearer …`. */
  bearerTokenEnvVar?: string;
  /** sandbox: the port the server listens on, and how to speak to it. */
  port?: number;
  protocol: 'streamable_http' | 'sse';
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  maxToolTimeoutMs: number;
  enabled: boolean;
  required: boolean;
  /** Allow-list (applied first); undefined means all tools. */
  enabledTools?: string[];
  disabledTools: string[];
  /** Whether `sampling/createMessage` from this server is served by weft's model. */
  sampling: boolean;
  source: McpConfigSource;
}

export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]+$/;

export const MCP_DEFAULTS = {
  startupTimeoutMs: 10_000,
  toolTimeoutMs: 60_000,
  maxToolTimeoutFactor: 10,
} as const;
