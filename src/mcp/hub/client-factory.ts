/**
 * Builds the SDK `Client` for one connection attempt: identifies as `weft`, offers the
 * workspace root as the only root, offers elicitation and sampling only when a handler
 * is wired (sampling also only where the server's config enables it), and routes the
 * server's log messages and change notifications to the connection.
 */
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import type { ClientCapabilities, LoggingMessageNotificationParams } from '@modelcontextprotocol/client';
import type { Logger } from '../../core/logger.js';
import type { McpHubHandlers } from './types.js';

export type ListKind = 'tools' | 'resources' | 'prompts';

export interface ClientEvents {
  onListChanged(kind: ListKind): void;
  onResourceUpdated(uri: string): void;
}

export interface ClientSetup {
  server: string;
  clientVersion: string;
  workspaceRoot: string;
  handlers: McpHubHandlers;
  /** The server's config says `sampling = true`. */
  samplingEnabled: boolean;
  /** Tagged with the server; receives the server's `notifications/message`. */
  serverLogger: Logger;
  events: ClientEvents;
}

// Large enough for any real catalogue; the SDK walks `nextCursor` up to this many pages.
const LIST_MAX_PAGES = 1000;

export function createClient(setup: ClientSetup): Client {
  const { handlers, server } = setup;
  const capabilities: ClientCapabilities = { roots: { listChanged: false } };
  if (handlers.elicitation) capabilities.elicitation = {};
  const sampling = setup.samplingEnabled ? handlers.sampling : undefined;
  if (sampling) capabilities.sampling = {};

  const client = new Client({ name: 'weft', version: setup.clientVersion }, { capabilities, listMaxPages: LIST_MAX_PAGES });

  const rootUri = pathToFileURL(setup.workspaceRoot).href;
  client.setRequestHandler('roots/list', () => ({ roots: [{ uri: rootUri, name: basename(setup.workspaceRoot) || setup.workspaceRoot }] }));

  const elicitation = handlers.elicitation;
  if (elicitation) {
    client.setRequestHandler('elicitation/create', (request, ctx) => elicitation({ server, params: request.params, signal: ctx.mcpReq.signal }));
  }
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', (request, ctx) => sampling({ server, params: request.params, signal: ctx.mcpReq.signal }));
  }

  client.setNotificationHandler('notifications/message', (notification) => logServerMessage(setup.serverLogger, notification.params));
  client.setNotificationHandler('notifications/tools/list_changed', () => setup.events.onListChanged('tools'));
  client.setNotificationHandler('notifications/resources/list_changed', () => setup.events.onListChanged('resources'));
  client.setNotificationHandler('notifications/prompts/list_changed', () => setup.events.onListChanged('prompts'));
  client.setNotificationHandler('notifications/resources/updated', (notification) => setup.events.onResourceUpdated(notification.params.uri));
  return client;
}

/** MCP's eight syslog levels onto weft's four. */
export function logServerMessage(logger: Logger, params: LoggingMessageNotificationParams): void {
  const text = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
  const fields = params.logger ? { logger: params.logger } : undefined;
  switch (params.level) {
    case 'debug':
      logger.debug(text, fields);
      return;
    case 'info':
    case 'notice':
      logger.info(text, fields);
      return;
    case 'warning':
      logger.warn(text, fields);
      return;
    case 'error':
    case 'critical':
    case 'alert':
    case 'emergency':
      logger.error(text, fields);
      return;
    default: {
      const unknownLevel: never = params.level;
      logger.info(text, { ...fields, level: String(unknownLevel) });
    }
  }
}
