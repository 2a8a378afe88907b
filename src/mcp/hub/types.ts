/**
 * The public vocabulary of the MCP hub: server states and status, the pluggable
 * elicitation and sampling handlers, and the resource and prompt shapes it hands out.
 */
import type { CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/client';
import type { McpTransportType } from '../config/server-config.js';
import type { CallOrigin, ToolContent } from '../../tools/tool.js';

/** The host environment (`process.env` or a test's stand-in); stdio servers get a safe subset. */
export type HostEnv = Readonly<Record<string, string | undefined>>;

/** Where a server's connection is: `offline` servers are being reconnected with backoff; `failed` ones gave up. */
export type McpServerState = 'connecting' | 'ready' | 'offline' | 'failed' | 'closed';

export interface ElicitationRequest {
  server: string;
  params: ElicitRequestParams;
  signal: AbortSignal;
  /** The run stage whose tool call the server is serving (see `ServerConnection.callOrigin`); absent outside runs. */
  origin?: CallOrigin;
}

export interface SamplingRequest {
  server: string;
  params: CreateMessageRequestParams;
  signal: AbortSignal;
  /** The run stage whose tool call the server is serving (see `ServerConnection.callOrigin`); absent outside runs. */
  origin?: CallOrigin;
}

/** Answers `elicitation/create` (a run question or a terminal prompt, wired by the app layer). */
export type ElicitationHandler = (request: ElicitationRequest) => Promise<ElicitResult>;

/** Answers `sampling/createMessage` with weft's model, after the approval policy. */
export type SamplingHandler = (request: SamplingRequest) => Promise<CreateMessageResult>;

export interface McpHubHandlers {
  /** Offered to every server when set. */
  elicitation?: ElicitationHandler;
  /** Offered to every server; served only for those whose config says `sampling = true` (the others get an error naming the setting). */
  sampling?: SamplingHandler;
}

/** How long the steps of a server's last connection took, in milliseconds. */
export interface McpServerTimings {
  /** When the hub first tried to connect (ISO 8601). */
  startedAt?: string;
  /** Handshake + discovery of the last successful connection. */
  connectMs?: number;
  /** Since when the server has been in its current state (ISO 8601). */
  stateSince: string;
  /** While offline: when the next reconnect attempt runs. */
  nextRetryInMs?: number;
}

/** One server's state, tools, reconnects and timings, as `status()` reports them. */
export interface McpServerStatus {
  name: string;
  type: McpTransportType;
  state: McpServerState;
  /** The server process (stdio), while it runs. */
  pid?: number;
  tools: number;
  resources: number;
  resourceTemplates: number;
  prompts: number;
  /** Why it failed or went offline, with what to do about it. */
  error?: string;
  /** The last stderr lines of a stdio server (bounded). */
  stderrTail?: string[];
  serverInfo?: { name: string; version: string };
  protocolVersion?: string;
  reconnects: number;
  timings: McpServerTimings;
}

export interface McpResourceInfo {
  server: string;
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface McpResourceTemplateInfo {
  server: string;
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface McpPromptInfo {
  server: string;
  name: string;
  title?: string;
  description?: string;
  arguments: { name: string; description?: string; required?: boolean }[];
}

export interface McpPromptMessage {
  role: 'user' | 'assistant';
  content: ToolContent;
}

export interface McpPrompt {
  server: string;
  name: string;
  description?: string;
  messages: McpPromptMessage[];
}

export interface McpResourceRead {
  server: string;
  uri: string;
  contents: ToolContent[];
}
