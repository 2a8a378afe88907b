/**
 * Turns one server's MCP tool definitions into weft tools: allow/deny lists, qualified
 * names (collisions dropped with a warning), `[<server>] ` descriptions, and an
 * `execute` that routes to the server under the tool's original name.
 */
import type { Tool as McpToolDefinition } from '@modelcontextprotocol/client';
import type { JsonSchema } from '../../core/json-schema.js';
import type { Logger } from '../../core/logger.js';
import type { Tool, ToolAnnotations, ToolContext, ToolResult } from '../../tools/tool.js';
import type { McpServerConfig } from '../config/server-config.js';
import { describeTool, filterTools, nameServerTools } from './tool-names.js';

/** `definition` is the server's own, as listed: the hub can hand it to the SDK instead of having it looked up. */
export type ToolInvoker = (
  originalName: string,
  args: Record<string, unknown>,
  context: ToolContext,
  definition: McpToolDefinition,
) => Promise<ToolResult>;

export interface ServerTools {
  tools: Tool[];
  /** Qualified name → the server's own tool name. */
  originalNames: Map<string, string>;
}

// The hub keeps tool_timeout itself (extended by progress up to max_tool_timeout, standing
// still while weft answers the server), so the executor must not set a clock of its own.
const HUB_KEEPS_TIME = Number.POSITIVE_INFINITY;

function annotationsOf(definition: McpToolDefinition): ToolAnnotations | undefined {
  const source = definition.annotations;
  const annotations: ToolAnnotations = {};
  const title = definition.title ?? source?.title;
  if (title) annotations.title = title;
  if (typeof source?.readOnlyHint === 'boolean') annotations.readOnlyHint = source.readOnlyHint;
  if (typeof source?.destructiveHint === 'boolean') annotations.destructiveHint = source.destructiveHint;
  if (typeof source?.idempotentHint === 'boolean') annotations.idempotentHint = source.idempotentHint;
  if (typeof source?.openWorldHint === 'boolean') annotations.openWorldHint = source.openWorldHint;
  return Object.keys(annotations).length > 0 ? annotations : undefined;
}

/**
 * `warned` remembers collisions already reported, so a reconnect or a list_changed does
 * not repeat the same warning.
 */
export function buildServerTools(
  config: McpServerConfig,
  definitions: readonly McpToolDefinition[],
  invoke: ToolInvoker,
  logger: Logger,
  warned = new Set<string>(),
): ServerTools {
  const server = config.name;
  const { named, dropped } = nameServerTools(server, filterTools(definitions, config));
  for (const drop of dropped) {
    if (warned.has(drop.reason)) continue;
    warned.add(drop.reason);
    logger.warn(`MCP [${server}] tool '${drop.originalName}' dropped: ${drop.reason}`);
  }
  const originalNames = new Map<string, string>();
  const tools = named.map(({ qualifiedName, originalName, tool: definition }): Tool => {
    originalNames.set(qualifiedName, originalName);
    const annotations = annotationsOf(definition);
    return {
      name: qualifiedName,
      description: describeTool(server, definition.description ?? definition.title),
      inputSchema: definition.inputSchema as JsonSchema,
      ...(definition.outputSchema ? { outputSchema: definition.outputSchema as JsonSchema } : {}),
      ...(annotations ? { annotations } : {}),
      source: 'mcp',
      server,
      timeoutMs: HUB_KEEPS_TIME,
      execute: (args, context) => invoke(originalName, args, context, definition),
    };
  });
  return { tools, originalNames };
}
