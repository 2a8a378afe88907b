/**
 * The application service behind `weft tools …`: lists every tool (built-in and MCP) and
 * makes one direct call. Explicitly naming a tool on the command line counts as approving
 * it, so only deny rules can stop such a call.
 */
import { WeftError } from '../../core/errors.js';
import { checkAgainstSchema } from '../../core/json-schema.js';
import type { JsonSchema } from '../../core/json-schema.js';
import type { ToolExecutor } from '../../tools/tool-executor.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { createFileReadTracker, type ToolResult, type ToolSource } from '../../tools/tool.js';

export interface ToolInfo {
  name: string;
  source: ToolSource;
  server: string | null;
  description: string;
  inputSchema: JsonSchema;
}

/** What the tool service needs from MCP: connecting the servers whose tools are asked for. */
export interface McpToolSource {
  /** Resolves once the servers are ready or failed, or after `patienceMs`; returns every server's state. */
  start(names?: readonly string[], options?: { patienceMs?: number }): Promise<readonly { name: string; state: string }[]>;
  startForTool(toolName: string): Promise<void>;
}

export interface ToolListing {
  tools: ToolInfo[];
  /** Servers that had not answered within the listing's patience; their tools are missing. */
  stillConnecting: string[];
  patienceMs: number;
}

/**
 * How long listing every tool waits for MCP servers. A healthy server is up well within it;
 * one that never answers `initialize` would otherwise hold the list for its whole
 * `startup_timeout`. Naming the server (`--server`) waits for it as long as it takes.
 */
export const LIST_PATIENCE_MS = 3000;

export class ToolService {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly executor: ToolExecutor,
    private readonly mcp: McpToolSource,
    private readonly workspaceRoot: string,
  ) {}

  async list(filter: { server?: string } = {}): Promise<ToolListing> {
    const statuses = await this.mcp.start(
      filter.server === undefined ? undefined : [filter.server],
      filter.server === undefined ? { patienceMs: LIST_PATIENCE_MS } : {},
    );
    const tools = this.registry
      .list()
      .filter((tool) => filter.server === undefined || tool.server === filter.server)
      .map((tool) => ({
        name: tool.name,
        source: tool.source,
        server: tool.server ?? null,
        description: tool.description,
        inputSchema: tool.inputSchema,
      }));
    return {
      tools,
      stillConnecting: statuses.filter((status) => status.state === 'connecting').map((status) => status.name),
      patienceMs: LIST_PATIENCE_MS,
    };
  }

  /** Throws for what is the caller's mistake (unknown tool, bad arguments); returns the tool's own result otherwise. */
  async call(name: string, args: unknown, signal: AbortSignal): Promise<ToolResult> {
    await this.mcp.startForTool(name);
    const tool = this.registry.get(name);
    if (!tool) {
      const similar = this.registry
        .list()
        .map((t) => t.name)
        .filter((n) => n.includes(name) || name.includes(n));
      throw new WeftError(
        'TOOL_NOT_FOUND',
        `Unknown tool '${name}'.${
          similar.length > 0
            ? ` Did you mean ${similar
                .slice(0, 3)
                .map((n) => `'${n}'`)
                .join(', ')}?`
            : ''
        } Run 'weft tools list' to see every tool.`,
      );
    }
    const check = checkAgainstSchema(tool.inputSchema, args);
    if (!check.ok) {
      throw new WeftError(
        'TOOL_INVALID_ARGS',
        `Invalid --args for '${name}': ${check.problems.join('; ')}. Run 'weft tools list --json' to see its input schema.`,
      );
    }
    const outcome = await this.executor.execute(
      { id: 'cli', name, arguments: args },
      { workspaceRoot: this.workspaceRoot, readFiles: createFileReadTracker(), signal },
    );
    return outcome.result;
  }
}
