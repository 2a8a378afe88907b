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
  start(names?: readonly string[]): Promise<unknown>;
  startForTool(toolName: string): Promise<void>;
}

export class ToolService {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly executor: ToolExecutor,
    private readonly mcp: McpToolSource,
    private readonly workspaceRoot: string,
  ) {}

  async list(filter: { server?: string } = {}): Promise<ToolInfo[]> {
    await this.mcp.start(filter.server === undefined ? undefined : [filter.server]);
    return this.registry
      .list()
      .filter((tool) => filter.server === undefined || tool.server === filter.server)
      .map((tool) => ({ name: tool.name, source: tool.source, server: tool.server ?? null, description: tool.description, inputSchema: tool.inputSchema }));
  }

  /** Throws for what is the caller's mistake (unknown tool, bad arguments); returns the tool's own result otherwise. */
  async call(name: string, args: unknown, signal: AbortSignal): Promise<ToolResult> {
    await this.mcp.startForTool(name);
    const tool = this.registry.get(name);
    if (!tool) {
      const similar = this.registry.list().map((t) => t.name).filter((n) => n.includes(name) || name.includes(n));
      throw new WeftError('TOOL_NOT_FOUND', `Unknown tool '${name}'.${similar.length > 0 ? ` Did you mean ${similar.slice(0, 3).map((n) => `'${n}'`).join(', ')}?` : ''} Run 'weft tools list' to see every tool.`);
    }
    const check = checkAgainstSchema(tool.inputSchema, args);
    if (!check.ok) {
      throw new WeftError('TOOL_INVALID_ARGS', `Invalid --args for '${name}': ${check.problems.join('; ')}. Run 'weft tools list --json' to see its input schema.`);
    }
    const outcome = await this.executor.execute(
      { id: 'cli', name, arguments: args },
      { workspaceRoot: this.workspaceRoot, readFiles: createFileReadTracker(), signal },
    );
    return outcome.result;
  }
}
