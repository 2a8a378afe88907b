/**
 * The stdio side of `subscriptions/listen` (listen-watches.ts): a transport between the
 * SDK's `serveStdio` and stdin/stdout that checks and watches a listen request's resource
 * URIs before the SDK acknowledges it, answers a bad one with the error
 * `resources/subscribe` would give, and releases the watches when the subscription ends
 * (the client's `notifications/cancelled`, an error or the server's closing result for
 * its id, or the connection closing).
 */
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { listenRefusal, listenRequest, type ListenWatches } from './listen-watches.js';

type RequestId = string | number;

function cancelledRequestId(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message) return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The id of a response (a result or an error), which ends a listen subscription with that id. */
function responseId(message: JSONRPCMessage): RequestId | undefined {
  return !('method' in message) && 'id' in message && message.id !== null ? (message.id as RequestId) : undefined;
}

export class ListenCheckingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  readonly #listens: ListenWatches;
  /** Open subscriptions by listen request id: what releases their watches. */
  readonly #open = new Map<RequestId, () => void>();
  /** Messages are handed on in order, a listen request once its URIs are watched. */
  #inbound: Promise<void> = Promise.resolve();

  constructor(inner: Transport, listens: ListenWatches) {
    this.#inner = inner;
    this.#listens = listens;
    inner.onmessage = (message, extra) => {
      this.#inbound = this.#inbound.then(() => this.#receive(message, extra));
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      this.#releaseAll();
      this.onclose?.();
    };
  }

  setProtocolVersion = (version: string): void => this.#inner.setProtocolVersion?.(version);

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const id = responseId(message);
    if (id !== undefined) this.#release(id);
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    this.#releaseAll();
    return this.#inner.close();
  }

  async #receive(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): Promise<void> {
    const listen = listenRequest(message);
    if (listen) {
      try {
        this.#open.set(listen.id, await this.#listens.open(listen.uris));
      } catch (error) {
        await this.#inner
          .send(listenRefusal(listen.id, error))
          .catch((failed: unknown) => this.onerror?.(failed instanceof Error ? failed : new Error(String(failed))));
        return;
      }
    }
    const cancelled = cancelledRequestId(message);
    if (cancelled !== undefined) this.#release(cancelled);
    this.onmessage?.(message, extra);
  }

  #release(id: RequestId): void {
    const release = this.#open.get(id);
    this.#open.delete(id);
    release?.();
  }

  #releaseAll(): void {
    for (const release of this.#open.values()) release();
    this.#open.clear();
  }
}
