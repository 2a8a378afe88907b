/**
 * What a server offers: its tools (all pages), and its resources, resource templates and
 * prompts when it advertises them. Only the tool list is essential; the others degrade
 * to empty with a warning, since many servers implement them partially.
 */
import type {
  Client,
  Prompt,
  RequestOptions,
  Resource,
  ResourceTemplateType,
  Tool as McpToolDefinition,
} from '@modelcontextprotocol/client';
import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { ListKind } from './client-factory.js';
import { diffNames, type ListDiff } from './list-diff.js';

export interface Discovery {
  tools: McpToolDefinition[];
  resources: Resource[];
  resourceTemplates: ResourceTemplateType[];
  prompts: Prompt[];
}

export const EMPTY_DISCOVERY: Discovery = { tools: [], resources: [], resourceTemplates: [], prompts: [] };

// Always ask the server: a list_changed or a reconnect must never be answered from cache.
const fresh = (options: RequestOptions) => ({ ...options, cacheMode: 'refresh' as const });

export async function listTools(client: Client, options: RequestOptions): Promise<McpToolDefinition[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  return (await client.listTools(undefined, fresh(options))).tools;
}

export async function listResources(
  client: Client,
  options: RequestOptions,
  logger: Logger,
  server: string,
): Promise<Pick<Discovery, 'resources' | 'resourceTemplates'>> {
  if (!client.getServerCapabilities()?.resources) return { resources: [], resourceTemplates: [] };
  const [resources, resourceTemplates] = await Promise.all([
    client.listResources(undefined, fresh(options)).then(
      (result) => result.resources,
      (error: unknown) => degrade(logger, server, 'resources/list', error, [] as Resource[]),
    ),
    client.listResourceTemplates(undefined, fresh(options)).then(
      (result) => result.resourceTemplates,
      (error: unknown) => degrade(logger, server, 'resources/templates/list', error, [] as ResourceTemplateType[]),
    ),
  ]);
  return { resources, resourceTemplates };
}

export async function listPrompts(client: Client, options: RequestOptions, logger: Logger, server: string): Promise<Prompt[]> {
  if (!client.getServerCapabilities()?.prompts) return [];
  return client.listPrompts(undefined, fresh(options)).then(
    (result) => result.prompts,
    (error: unknown) => degrade(logger, server, 'prompts/list', error, [] as Prompt[]),
  );
}

export async function discover(client: Client, options: RequestOptions, logger: Logger, server: string): Promise<Discovery> {
  const [tools, resources, prompts] = await Promise.all([
    listTools(client, options),
    listResources(client, options, logger, server),
    listPrompts(client, options, logger, server),
  ]);
  return { tools, ...resources, prompts };
}

function degrade<T>(logger: Logger, server: string, method: string, error: unknown, fallback: T): T {
  logger.warn(`MCP [${server}] ${method} failed: ${errorMessage(error)}; continuing without`);
  return fallback;
}

/** Re-fetches one list after a `list_changed`; says what was added and removed. */
export async function refetchList(
  client: Client,
  kind: ListKind,
  previous: Discovery,
  options: RequestOptions,
  logger: Logger,
  server: string,
): Promise<{ discovery: Discovery; change: ListDiff }> {
  switch (kind) {
    case 'tools': {
      const tools = await listTools(client, options);
      const change = diffNames(
        previous.tools.map((tool) => tool.name),
        tools.map((tool) => tool.name),
      );
      return { discovery: { ...previous, tools }, change };
    }
    case 'resources': {
      const listed = await listResources(client, options, logger, server);
      const change = diffNames(
        previous.resources.map((resource) => resource.uri),
        listed.resources.map((resource) => resource.uri),
      );
      return { discovery: { ...previous, ...listed }, change };
    }
    case 'prompts': {
      const prompts = await listPrompts(client, options, logger, server);
      const change = diffNames(
        previous.prompts.map((prompt) => prompt.name),
        prompts.map((prompt) => prompt.name),
      );
      return { discovery: { ...previous, prompts }, change };
    }
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown list ${String(unreachable)}`);
    }
  }
}
