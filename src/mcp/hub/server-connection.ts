/**
 * One configured server's lifecycle: connecting → ready, or failed; ready → offline (the
 * process exited or the HTTP server dropped) → reconnect with backoff → ready; any → closed.
 * Owns the server's group in the tool registry, its discovered resources and prompts,
 * and routes calls to whichever connection is current (the calls themselves: server-calls.ts). A generation counter makes sure
 * only the newest connection attempt may replace the state.
 */
import type { Client, Tool as McpToolDefinition } from '@modelcontextprotocol/client';
import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { ToolResult } from '../../tools/tool.js';
import type { McpServerConfig } from '../config/server-config.js';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import type { ListKind } from './client-factory.js';
import { EMPTY_DISCOVERY, refetchList, type Discovery } from './discovery.js';
import { describeDiff } from './list-diff.js';
import { buildServerTools } from './mcp-tools.js';
import { ConnectFailure, disposeParts, openSession, type Session, type SessionDeps, type SessionParts } from './session.js';
import { connectionStatus, readySession, type ConnectionState } from './connection-status.js';
import { ServerCalls, type CallContext } from './server-calls.js';
import { withStderrTail } from './startup-failure.js';
import { localProcess } from './transport-factory.js';
import type { McpServerStatus } from './types.js';

export interface ConnectionDeps extends SessionDeps {
  registry: ToolRegistry;
  backoff: BackoffOptions;
  random: () => number;
  /** Epoch ms: the state's `since`, connect timings and retry times read it. */
  clock: () => number;
  /** How long an HTTP liveness ping may take before the server counts as dropped. */
  pingTimeoutMs: number;
  onResourceUpdated?: (server: string, uri: string) => void;
}

export class ServerConnection {
  readonly config: McpServerConfig;
  readonly #deps: ConnectionDeps;
  readonly #logger: Logger;
  #state: ConnectionState;
  #generation = 0;
  #discovery: Discovery = EMPTY_DISCOVERY;
  #originalNames = new Map<string, string>();
  #attempt: SessionParts | undefined;
  #inflight: Promise<unknown> = Promise.resolve();
  #retryTimer: NodeJS.Timeout | undefined;
  #refreshes: Promise<void> = Promise.resolve();
  #probing = false;
  #startedAt: number | undefined;
  #lastAttemptStartedAt: number | undefined;
  #connectMs: number | undefined;
  #reconnects = 0;
  #stderrTail: string[] = [];
  readonly #subscriptions = new Set<string>();
  readonly #reportedCollisions = new Set<string>();
  readonly #calls: ServerCalls;

  constructor(config: McpServerConfig, deps: ConnectionDeps) {
    this.config = config;
    this.#deps = deps;
    this.#logger = deps.logger;
    this.#state = { kind: 'connecting', since: deps.clock() };
    this.#calls = new ServerCalls(config, (session) => this.#probe(session));
  }

  get name(): string {
    return this.config.name;
  }

  get state(): ConnectionState['kind'] {
    return this.#state.kind;
  }

  /** The failure line (with stderr tail) when the server failed to start. */
  get failure(): string | undefined {
    return this.#state.kind === 'failed' ? withStderrTail(this.#state.error, this.#stderrTail) : undefined;
  }

  get discovery(): Discovery {
    return this.#discovery;
  }

  originalToolName(qualifiedName: string): string | undefined {
    return this.#originalNames.get(qualifiedName);
  }

  /** The first connection: ends ready or failed (never throws). */
  async start(): Promise<void> {
    this.#startedAt = this.#deps.clock();
    this.#state = { kind: 'connecting', since: this.#deps.clock() };
    await this.#connect('connecting', (error) => {
      const failure = error instanceof ConnectFailure ? error : new ConnectFailure(errorMessage(error), []);
      this.#stderrTail = failure.stderrTail;
      this.#state = { kind: 'failed', since: this.#deps.clock(), error: failure.message };
    });
  }

  async callTool(
    originalName: string,
    args: Record<string, unknown>,
    context: CallContext,
    definition?: McpToolDefinition,
  ): Promise<ToolResult> {
    return this.#calls.callTool(this.#readySession(), originalName, args, context, definition);
  }

  /** Runs a request on the current connection, bounded by `tool_timeout`, with errors phrased for weft. */
  async request<T>(
    what: string,
    run: (client: Client, options: { timeout: number; signal?: AbortSignal }) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.#calls.request(this.#readySession(), what, run, signal);
  }

  async subscribeResource(uri: string): Promise<void> {
    await this.request(`resources/subscribe of '${uri}'`, (client, options) => client.subscribeResource({ uri }, options));
    this.#subscriptions.add(uri);
  }

  async unsubscribeResource(uri: string): Promise<void> {
    this.#subscriptions.delete(uri);
    await this.request(`resources/unsubscribe of '${uri}'`, (client, options) => client.unsubscribeResource({ uri }, options));
  }

  status(): McpServerStatus {
    return connectionStatus(this.#state, {
      name: this.name,
      type: this.config.type,
      tools: this.#originalNames.size,
      discovery: this.#discovery,
      reconnects: this.#reconnects,
      startedAt: this.#startedAt,
      connectMs: this.#connectMs,
      stderrTail: this.#stderrTail,
      attempt: this.#attempt,
      now: this.#deps.clock(),
    });
  }

  /** Disconnects, stops reconnecting, and takes the server's tools out of the registry. */
  async close(): Promise<void> {
    const previous = this.#state;
    this.#state = { kind: 'closed', since: this.#deps.clock() };
    this.#generation += 1;
    clearTimeout(this.#retryTimer);
    this.#calls.close();
    this.#deps.registry.removeGroup(this.name);
    this.#originalNames = new Map();
    const attempt = this.#attempt;
    if (attempt) await disposeParts(attempt);
    if (previous.kind === 'ready') await this.#dispose(previous.session);
    await this.#inflight.catch(() => {});
  }

  // ---- connecting -------------------------------------------------------------------

  #open(generation: number): Promise<Session> {
    const { config } = this;
    return openSession({
      config,
      deps: this.#deps,
      generation,
      serverLogger: this.#logger.child(config.name),
      events: (client) => ({
        onListChanged: (kind) => this.#onListChanged(client, kind),
        onResourceUpdated: (uri) => this.#onResourceUpdated(client, uri),
        onAnswering: (busy) => this.#calls.answering(busy),
        callOrigin: () => this.#calls.lastOrigin(),
      }),
      onAttempt: (attempt, over) => {
        if (!over) this.#attempt = attempt;
        else if (this.#attempt?.client === attempt.client) this.#attempt = undefined;
      },
      onLost: (session, reason) => this.#onConnectionLost(session, reason),
      onError: (session, error) => this.#onClientError(session, error),
    });
  }

  #becomeReady(session: Session): void {
    const wasOffline = this.#state.kind === 'offline';
    this.#state = { kind: 'ready', since: this.#deps.clock(), session };
    this.#stderrTail = [];
    this.#connectMs = this.#deps.clock() - (this.#lastAttemptStartedAt ?? this.#deps.clock());
    this.#discovery = session.discovery;
    const diff = this.#registerTools(session);
    if (wasOffline) {
      this.#reconnects += 1;
      const change = describeDiff(diff);
      this.#logger.info(`MCP [${this.name}] reconnected (${this.#originalNames.size} tools${change === 'no change' ? '' : `; ${change}`})`);
      for (const uri of this.#subscriptions) {
        session.client.subscribeResource({ uri }, { timeout: this.config.toolTimeoutMs }).catch((error: unknown) => {
          this.#logger.warn(`MCP [${this.name}] could not re-subscribe to ${uri}: ${errorMessage(error)}`);
        });
      }
    }
  }

  #registerTools(session: Session): { added: string[]; removed: string[] } {
    const built = buildServerTools(
      this.config,
      session.discovery.tools,
      (name, args, context, definition) => this.callTool(name, args, context, definition),
      this.#logger,
      this.#reportedCollisions,
    );
    this.#originalNames = built.originalNames;
    return this.#deps.registry.replaceGroup(this.name, built.tools);
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#lastAttemptStartedAt = this.#deps.clock();
    this.#inflight = promise.catch(() => {});
    return promise;
  }

  #isCurrent(generation: number, kind: ConnectionState['kind']): boolean {
    return generation === this.#generation && this.#state.kind === kind;
  }

  // ---- losing and regaining the connection ------------------------------------------

  #readySession(): Session {
    return readySession(this.#state, this.name);
  }

  #onClientError(session: Session, error: Error): void {
    if (!this.#isSession(session)) return;
    this.#logger.debug(`MCP [${this.name}] transport error: ${errorMessage(error)}`);
    if (session.built.kind !== 'stdio') this.#probe(session);
  }

  /** HTTP and SSE give no reliable close event: a failing ping is what "dropped" means there. */
  #probe(session: Session): void {
    if (this.#probing || !this.#isSession(session)) return;
    this.#probing = true;
    session.client
      .ping({ timeout: this.#deps.pingTimeoutMs })
      .then(
        () => undefined,
        (error: unknown) => this.#onConnectionLost(session, `the server stopped answering (${errorMessage(error)})`),
      )
      .finally(() => {
        this.#probing = false;
      });
  }

  #isSession(session: Session): boolean {
    return this.#state.kind === 'ready' && this.#state.session === session;
  }

  #onConnectionLost(session: Session, fallbackReason: string): void {
    if (!this.#isSession(session)) return;
    const exit = localProcess(session.built)?.exitDescription;
    const reason = exit ? `the server ${exit}` : fallbackReason;
    const tail = localProcess(session.built)?.stderrTail.lines() ?? [];
    this.#stderrTail = tail;
    this.#logger.warn(withStderrTail(`MCP [${this.name}] ${reason} — reconnecting`, tail.slice(-10)));
    this.#state = { kind: 'offline', since: this.#deps.clock(), reason, attempt: 0 };
    void this.#dispose(session);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    const state = this.#state;
    if (state.kind !== 'offline') return;
    const attempt = state.attempt + 1;
    const delay = backoffDelay(attempt, this.#deps.backoff, this.#deps.random);
    this.#state = { ...state, attempt, nextRetryAt: this.#deps.clock() + delay };
    this.#retryTimer = setTimeout(() => void this.#reconnect(), delay);
    this.#retryTimer.unref();
  }

  async #reconnect(): Promise<void> {
    const state = this.#state;
    if (state.kind !== 'offline') return;
    this.#state = { kind: 'offline', since: state.since, reason: state.reason, attempt: state.attempt };
    await this.#connect('offline', (error) => {
      const message = errorMessage(error);
      if (error instanceof ConnectFailure) this.#stderrTail = error.stderrTail;
      const current = this.#state as Extract<ConnectionState, { kind: 'offline' }>;
      const line = `MCP [${this.name}] reconnect attempt ${current.attempt} failed: ${message}`;
      if (current.attempt === 1) this.#logger.warn(line);
      else this.#logger.debug(line);
      this.#state = { ...current, reason: message };
      this.#scheduleReconnect();
    });
  }

  /**
   * Opens a session and makes it the connection's, unless the connection moved on meanwhile
   * (closed, or another attempt began): then the session is dropped, and so is a failure.
   */
  async #connect(from: 'connecting' | 'offline', failed: (error: unknown) => void): Promise<void> {
    const generation = ++this.#generation;
    try {
      const session = await this.#track(this.#open(generation));
      if (!this.#isCurrent(generation, from)) return void (await this.#dispose(session));
      this.#becomeReady(session);
    } catch (error) {
      if (this.#isCurrent(generation, from)) failed(error);
    }
  }

  async #dispose(session: Session): Promise<void> {
    await disposeParts(session);
  }

  // ---- change notifications ---------------------------------------------------------

  #onListChanged(client: Client, kind: ListKind): void {
    this.#refreshes = this.#refreshes
      .then(() => this.#refresh(client, kind))
      .catch((error: unknown) => {
        this.#logger.warn(`MCP [${this.name}] could not refresh its ${kind} after list_changed: ${errorMessage(error)}`);
      });
  }

  async #refresh(client: Client, kind: ListKind): Promise<void> {
    const state = this.#state;
    if (state.kind !== 'ready' || state.session.client !== client) return;
    const { session } = state;
    const fetched = await refetchList(client, kind, session.discovery, { timeout: this.config.startupTimeoutMs }, this.#logger, this.name);
    if (!this.#isSession(session)) return;
    session.discovery = fetched.discovery;
    this.#discovery = fetched.discovery;
    // For tools, what agents see is the registry's view: qualified names after the filters.
    const change = kind === 'tools' ? this.#registerTools(session) : fetched.change;
    this.#logger.info(`MCP [${this.name}] ${kind} changed: ${describeDiff(change)}`);
  }

  #onResourceUpdated(client: Client, uri: string): void {
    const state = this.#state;
    if (state.kind !== 'ready' || state.session.client !== client) return;
    this.#logger.debug(`MCP [${this.name}] resource updated: ${uri}`);
    this.#deps.onResourceUpdated?.(this.name, uri);
  }
}
