/**
 * Builds the SDK `Client` for one connection attempt: identifies as `weft`, offers the
 * workspace root as the only root, offers elicitation and sampling when a handler is
 * wired, and routes the server's log messages and change notifications to the connection.
 * Sampling is offered to every server but served only where the server's config says
 * `sampling = true`; the others get an error that names the setting, so a sampling tool
 * fails with a fix instead of silently missing.
 */
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { ClientCapabilities, LoggingMessageNotificationParams } from '@modelcontextprotocol/client';
import type { Logger } from '../../core/logger.js';
import type { CallOrigin } from '../../tools/tool.js';
import type { McpHubHandlers } from './types.js';
import { WeftClient } from '../fast-path/weft-client.js';

export type ListKind = 'tools' | 'resources' | 'prompts';

export interface ClientEvents {
  onListChanged(kind: ListKind): void;
  onResourceUpdated(uri: string): void;
  /** weft started (true) or finished (false) answering a request of the server's: sampling or elicitation. */
  onAnswering(busy: boolean): void;
  /** The stage whose tool call on this server a request of the server's most likely serves. */
  callOrigin(): CallOrigin | undefined;
}

/** Brackets the answer to a server's request with `onAnswering`, so call timeouts stand still meanwhile. */
async function answering<T>(events: ClientEvents, answer: () => Promise<T>): Promise<T> {
  events.onAnswering(true);
  try {
    return await answer();
  } finally {
    events.onAnswering(false);
  }
}

function originOf(events: ClientEvents): { origin?: CallOrigin } {
  const origin = events.callOrigin();
  return origin ? { origin } : {};
}

export interface ClientSetup {
  server: string;
  clientVersion: string;
  workspaceRoot: string;
  handlers: McpHubHandlers;
  /** The server's config says `sampling = true`. */
  samplingEnabled: boolean;
  /** The file the server's entry came from, named when sampling is refused. */
  configFile: string;
  /** Tagged with the server; receives the server's `notifications/message`. */
  serverLogger: Logger;
  events: ClientEvents;
  /** weft's `Client` (and with it the hub's own `tools/call`) or, false, the SDK's own (`fast-path.ts`). */
  fastPath: boolean;
}

// Large enough for any real catalogue; the SDK walks `nextCursor` up to this many pages.
const LIST_MAX_PAGES = 1000;

export function createClient(setup: ClientSetup): Client {
  const { handlers, server } = setup;
  const capabilities: ClientCapabilities = { roots: { listChanged: false } };
  if (handlers.elicitation) capabilities.elicitation = {};
  const sampling = handlers.sampling;
  if (sampling) capabilities.sampling = {};

  const client = new (setup.fastPath ? WeftClient : Client)(
    { name: 'weft', version: setup.clientVersion },
    { capabilities, listMaxPages: LIST_MAX_PAGES },
  );

  const rootUri = pathToFileURL(setup.workspaceRoot).href;
  client.setRequestHandler('roots/list', () => ({ roots: [{ uri: rootUri, name: basename(setup.workspaceRoot) || setup.workspaceRoot }] }));

  const elicitation = handlers.elicitation;
  if (elicitation) {
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      answering(setup.events, () => elicitation({ server, params: request.params, signal: ctx.mcpReq.signal, ...originOf(setup.events) })),
    );
  }
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', (request, ctx) => {
      if (!setup.samplingEnabled) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, samplingOffMessage(server, setup.configFile));
      return answering(setup.events, () =>
        sampling({ server, params: request.params, signal: ctx.mcpReq.signal, ...originOf(setup.events) }),
      );
    });
  }

  client.setNotificationHandler('notifications/message', (notification) => logServerMessage(setup.serverLogger, notification.params));
  client.setNotificationHandler('notifications/tools/list_changed', () => setup.events.onListChanged('tools'));
  client.setNotificationHandler('notifications/resources/list_changed', () => setup.events.onListChanged('resources'));
  client.setNotificationHandler('notifications/prompts/list_changed', () => setup.events.onListChanged('prompts'));
  client.setNotificationHandler('notifications/resources/updated', (notification) =>
    setup.events.onResourceUpdated(notification.params.uri),
  );
  return client;
}

/** Why a server may not sample, and the setting that changes it (`.mcp.json` spells it in JSON). */
export function samplingOffMessage(server: string, configFile: string): string {
  const setting = configFile.endsWith('.json') ? '"sampling": true' : 'sampling = true';
  return `sampling is off for MCP server '${server}'; set ${setting} in its entry in ${configFile} to let it use weft's model`;
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
