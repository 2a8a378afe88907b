/**
 * `subscriptions/listen`, the 2026-era way to subscribe, for weft's run resources. The
 * SDK's serving entries own the wire — the acknowledgement, each stream's filter, the
 * subscription id stamped on every notification, teardown — and deliver whatever
 * `notifications/resources/updated` they are handed to the streams that listed its URI;
 * they accept any URI, though, and cannot see a store another process writes. So before
 * a listen request reaches the SDK, weft checks each URI in its `resourceSubscriptions`
 * (one weft serves, a run that exists: the errors `resources/subscribe` gives) and keeps
 * one store watch per URI while any open stream lists it, publishing each change once.
 */
import { ProtocolError, type JSONRPCErrorResponse } from '@modelcontextprotocol/server';
import { toProtocolError } from './error-codes.js';
import type { RunResource } from './resource-uri.js';
import { subscribable } from './resources.js';
import type { McpServerDeps } from './tool-kit.js';

const LISTEN_METHOD = 'subscriptions/listen';

export interface ListenRequest {
  id: string | number;
  /** The filter's `resourceSubscriptions`, empty when it lists none. */
  uris: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The id and resource URIs of a `subscriptions/listen` request; `undefined` for any other
 * message, or a listen request too malformed to name URIs (the SDK answers it).
 */
export function listenRequest(message: unknown): ListenRequest | undefined {
  if (!isRecord(message) || message.method !== LISTEN_METHOD) return undefined;
  const { id, params } = message;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const filter = isRecord(params) ? params.notifications : undefined;
  const uris = isRecord(filter) ? filter.resourceSubscriptions : undefined;
  if (uris === undefined) return { id, uris: [] };
  return Array.isArray(uris) && uris.every((uri) => typeof uri === 'string') ? { id, uris } : undefined;
}

/** The in-band JSON-RPC error refusing a listen request before it is acknowledged. */
export function listenRefusal(id: string | number, error: unknown): JSONRPCErrorResponse {
  const refused = error instanceof ProtocolError ? error : toProtocolError(error);
  return {
    jsonrpc: '2.0',
    id,
    error: { code: refused.code, message: refused.message, ...(refused.data === undefined ? {} : { data: refused.data }) },
  };
}

interface Watched {
  /** Open listen streams listing the URI. */
  streams: number;
  stop: Promise<() => void>;
  /** `stop`'s value once it has one, so a release stops the watch at once. */
  stopNow?: () => void;
}

export class ListenWatches {
  readonly #deps: McpServerDeps;
  readonly #publish: (uri: string) => void;
  readonly #watched = new Map<string, Watched>();

  /** `publish` hands a changed URI to the SDK's entry, which sends it on the streams listing it. */
  constructor(deps: McpServerDeps, publish: (uri: string) => void) {
    this.#deps = deps;
    this.#publish = publish;
  }

  /** URIs watched for at least one open stream. */
  get size(): number {
    return this.#watched.size;
  }

  /**
   * Checks every URI, then watches them for one listen stream; resolves once their current
   * state is known (a change right after the acknowledgement is reported) to the function
   * that releases them when the stream ends. Throws the `ProtocolError` to answer the
   * request with when a URI is bad, watching nothing then.
   */
  async open(uris: readonly string[]): Promise<() => void> {
    const resources = new Map<string, RunResource>();
    for (const uri of uris) if (!resources.has(uri)) resources.set(uri, await subscribable(this.#deps, uri));
    const held: string[] = [];
    try {
      for (const [uri, resource] of resources) {
        const watched = this.#acquire(uri, resource);
        held.push(uri);
        await watched.stop;
      }
    } catch (error) {
      for (const uri of held) this.#release(uri);
      throw error instanceof ProtocolError ? error : toProtocolError(error);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const uri of held) this.#release(uri);
    };
  }

  #acquire(uri: string, resource: RunResource): Watched {
    let watched = this.#watched.get(uri);
    if (!watched) {
      const created: Watched = { streams: 0, stop: this.#deps.watcher.watch(uri, resource, this.#publish) };
      created.stop.then(
        (stop) => (created.stopNow = stop),
        () => undefined,
      );
      this.#watched.set(uri, created);
      watched = created;
    }
    watched.streams += 1;
    return watched;
  }

  #release(uri: string): void {
    const watched = this.#watched.get(uri);
    if (!watched) return;
    watched.streams -= 1;
    if (watched.streams > 0) return;
    this.#watched.delete(uri);
    if (watched.stopNow) return watched.stopNow();
    void watched.stop.then(
      (stop) => stop(),
      () => undefined,
    );
  }
}
