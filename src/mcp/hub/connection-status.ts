/**
 * What `weft mcp list` / `McpHub.status()` report for one server connection, from its state
 * and what it has counted: pid, server info and protocol once ready, the reason and next
 * retry while offline, the error when it failed.
 */
import { WeftError } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';
import { offlineError } from './call-errors.js';
import type { McpServerConfig } from '../config/server-config.js';
import type { Discovery } from './discovery.js';
import type { Session, SessionParts } from './session.js';
import { localProcess } from './transport-factory.js';
import type { McpServerStatus } from './types.js';

export type ConnectionState =
  | { kind: 'connecting'; since: number }
  | { kind: 'ready'; since: number; session: Session }
  | { kind: 'offline'; since: number; reason: string; attempt: number; nextRetryAt?: number }
  | { kind: 'failed'; since: number; error: string }
  | { kind: 'closed'; since: number };

/** What the connection knows besides its state. */
export interface ConnectionFacts {
  name: string;
  type: McpServerConfig['type'];
  tools: number;
  discovery: Discovery;
  reconnects: number;
  startedAt: number | undefined;
  connectMs: number | undefined;
  stderrTail: readonly string[];
  /** The session being opened, while connecting. */
  attempt: SessionParts | undefined;
  /** Epoch ms, for the time left to the next retry. */
  now: number;
}

export function connectionStatus(state: ConnectionState, facts: ConnectionFacts): McpServerStatus {
  const base: McpServerStatus = {
    name: facts.name,
    type: facts.type,
    state: state.kind,
    tools: facts.tools,
    resources: facts.discovery.resources.length,
    resourceTemplates: facts.discovery.resourceTemplates.length,
    prompts: facts.discovery.prompts.length,
    reconnects: facts.reconnects,
    timings: {
      ...(facts.startedAt ? { startedAt: new Date(facts.startedAt).toISOString() } : {}),
      ...(facts.connectMs !== undefined ? { connectMs: facts.connectMs } : {}),
      stateSince: new Date(state.since).toISOString(),
    },
    ...(facts.stderrTail.length ? { stderrTail: facts.stderrTail.map(redactSecrets) } : {}),
  };
  switch (state.kind) {
    case 'ready': {
      const { session } = state;
      const pid = localProcess(session.built)?.pid;
      return {
        ...base,
        ...(pid !== undefined ? { pid } : {}),
        ...(session.serverInfo ? { serverInfo: { name: session.serverInfo.name, version: session.serverInfo.version } } : {}),
        ...(session.protocolVersion ? { protocolVersion: session.protocolVersion } : {}),
      };
    }
    case 'offline':
      return {
        ...base,
        error: `${state.reason} — reconnecting (attempt ${state.attempt})`,
        timings: { ...base.timings, ...(state.nextRetryAt ? { nextRetryInMs: Math.max(0, state.nextRetryAt - facts.now) } : {}) },
      };
    case 'failed':
      return { ...base, error: state.error };
    case 'connecting': {
      const attempt = facts.attempt?.built;
      const pid = attempt ? localProcess(attempt)?.pid : undefined;
      return pid !== undefined ? { ...base, pid } : base;
    }
    case 'closed':
      return base;
    default: {
      const unreachable: never = state;
      return unreachable;
    }
  }
}

/** The session calls go to; any other state is `MCP_SERVER_UNAVAILABLE` saying why (offline, starting, failed, closed). */
export function readySession(state: ConnectionState, name: string): Session {
  switch (state.kind) {
    case 'ready':
      return state.session;
    case 'offline':
      throw offlineError(name);
    case 'connecting':
      throw new WeftError('MCP_SERVER_UNAVAILABLE', `[${name}] is still starting`, { data: { server: name } });
    case 'failed':
      throw new WeftError('MCP_SERVER_UNAVAILABLE', `[${name}] failed to start: ${state.error}`, { data: { server: name } });
    case 'closed':
      throw new WeftError('MCP_SERVER_UNAVAILABLE', `[${name}] is closed`, { data: { server: name } });
    default: {
      const unreachable: never = state;
      return unreachable;
    }
  }
}
