/**
 * `tools/call` sent by the hub itself on a stdio server's transport, beside the SDK's
 * `Client`, which keeps everything else (initialize, lists, notifications, the server's
 * requests, pings). The SDK's request path costs more client CPU than the rest of a call
 * (bench/mcp-call: its per-request closures and maps, a promise per step, a `Number()` of
 * every id, a zod parse of the JSON-RPC envelope and then of the whole `CallToolResult`,
 * including trial parses of the content-block union); here a call is one map entry and one
 * promise, and a result is checked by hand in the common shape (text blocks) and by the
 * SDK's own schema otherwise.
 *
 * Ids are strings (`weft-<n>`) and so never collide with the SDK's numeric ids; responses
 * and `notifications/progress` carrying them are taken off the transport before the SDK
 * sees them (`InboundClaim`). What the SDK would do is kept: the progress token, progress
 * reports, `notifications/cancelled` on abort or timeout (the hub's `CallSignal` keeps the
 * time), errors as `ProtocolError`/`SdkError`, structured content checked against the
 * tool's output schema with the SDK's validator and the SDK's messages, and pending calls
 * failed when the connection closes. Only for the 2025 era: the 2026 era adds result
 * kinds (`input_required`), request envelopes and header mirroring, which stay the SDK's.
 *
 * Upstream, the SDK could make this unnecessary: check a result synchronously when the
 * schema is synchronous (`validateStandardSchema` awaits even a sync validator), parse
 * content blocks as a union discriminated on `type` instead of trying each branch, set no
 * per-request timer when the caller keeps the time, and cache the output validator it
 * compiles for a passed `toolDefinition`.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  type CallToolResult,
  type JSONRPCRequest,
  type Tool as McpToolDefinition,
} from '@modelcontextprotocol/client';
import type { ToolContext } from '../../tools/tool.js';
import type { CallSignal } from '../hub/call-signal.js';
import type { InboundClaim, StdioProcessTransport } from './stdio-transport.js';
import type { WeftClient } from './weft-client.js';

const ID_PREFIX = 'weft-';

type OutputCheck = ReturnType<WeftClient['schemaValidators']['getValidator']>;
type CompiledOutput = { ok: true; check: OutputCheck } | { ok: false; error: unknown };

interface PendingCall {
  name: string;
  definition: McpToolDefinition | undefined;
  signal: CallSignal;
  onAbort: () => void;
  /** Whose `onProgress` hears the server's progress (called on it, as a method may be). */
  progressTo: Pick<ToolContext, 'onProgress'>;
  resolve: (result: CallToolResult) => void;
  reject: (error: unknown) => void;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether `result` is a 2025-era `CallToolResult` in the shape nearly every tool returns
 * — text blocks without annotations or `_meta`, no `_meta` of its own — which the SDK's
 * schema would accept and return unchanged in every field weft reads. Anything else goes
 * to the SDK's schema.
 */
function isPlainTextResult(result: Record<string, unknown>): boolean {
  const { content, isError, structuredContent } = result;
  if (!Array.isArray(content) || result._meta !== undefined) return false;
  if (isError !== undefined && typeof isError !== 'boolean') return false;
  if (structuredContent !== undefined && (!isRecord(structuredContent) || Object.getPrototypeOf(structuredContent) !== Object.prototype))
    return false;
  for (const block of content as unknown[]) {
    if (
      !isRecord(block) ||
      block.type !== 'text' ||
      typeof block.text !== 'string' ||
      block.annotations !== undefined ||
      block._meta !== undefined
    )
      return false;
  }
  return true;
}

export class DirectToolCalls implements InboundClaim {
  readonly #transport: StdioProcessTransport;
  readonly #client: WeftClient;
  readonly #pending = new Map<string, PendingCall>();
  /** Tools' output schemas compiled once per listed definition, as the SDK caches them per tool. */
  readonly #outputChecks = new WeakMap<McpToolDefinition, CompiledOutput>();
  #nextId = 0;
  #closed = false;

  constructor(transport: StdioProcessTransport, client: WeftClient) {
    this.#transport = transport;
    this.#client = client;
    transport.claims = this;
  }

  /** Whether the negotiated era is one whose `tools/call` this class speaks (2025). */
  static serves(client: WeftClient): boolean {
    return client.getProtocolEra() === 'legacy';
  }

  /**
   * Calls `name` with `args`; `signal` aborts it (the caller's cancellation or the hub's
   * timeout), `progressTo.onProgress` hears the server's progress, and `definition`'s output
   * schema (if any) checks the result. Rejects as the SDK's `callTool` would.
   */
  call(
    name: string,
    args: Record<string, unknown>,
    signal: CallSignal,
    progressTo: Pick<ToolContext, 'onProgress'>,
    definition: McpToolDefinition | undefined,
  ): Promise<CallToolResult> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#closed) return Promise.reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
    const compiled = definition ? this.#outputCheck(definition) : undefined;
    if (compiled && !compiled.ok) return Promise.reject(invalidOutputSchema(name, compiled.error));

    const id = `${ID_PREFIX}${this.#nextId++}`;
    return new Promise<CallToolResult>((resolve, reject) => {
      const onAbort = () => this.#cancel(id, signal.reason);
      this.#pending.set(id, { name, definition, signal, onAbort, progressTo, resolve, reject });
      signal.addEventListener('abort', onAbort);
      const request: JSONRPCRequest = {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args, _meta: { progressToken: id } },
      };
      this.#transport.send(request).catch((error: unknown) => this.#settle(id)?.reject(error));
    });
  }

  claim(message: object): boolean {
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (method === undefined) {
      if (typeof id !== 'string' || !id.startsWith(ID_PREFIX)) return false;
      // A late answer to a call that was cancelled or timed out is dropped here, as the SDK drops it.
      const call = this.#settle(id);
      if (call) this.#answer(call, message as Record<string, unknown>);
      return true;
    }
    if (method !== 'notifications/progress') return false;
    const params = (message as { params?: unknown }).params;
    const token = isRecord(params) ? params.progressToken : undefined;
    if (typeof token !== 'string' || !token.startsWith(ID_PREFIX)) return false;
    const call = this.#pending.get(token);
    if (call && isRecord(params) && typeof params.progress === 'number') {
      call.signal.progress();
      call.progressTo.onProgress?.({
        progress: params.progress,
        ...(typeof params.total === 'number' ? { total: params.total } : {}),
        ...(typeof params.message === 'string' ? { message: params.message } : {}),
      });
    }
    return true;
  }

  closed(): void {
    this.#closed = true;
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
  }

  /** Takes the call off the books (and its abort listener off the signal); undefined if it was not pending. */
  #settle(id: string): PendingCall | undefined {
    const call = this.#pending.get(id);
    if (!call) return undefined;
    this.#pending.delete(id);
    call.signal.removeEventListener('abort', call.onAbort);
    return call;
  }

  #cancel(id: string, reason: unknown): void {
    const call = this.#settle(id);
    if (!call) return;
    this.#transport
      .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String(reason) } })
      .catch(() => {});
    call.reject(reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason)));
  }

  #answer(call: PendingCall, response: Record<string, unknown>): void {
    if (response.jsonrpc !== '2.0')
      return call.reject(new SdkError(SdkErrorCode.InvalidResult, `Invalid response for tools/call: not JSON-RPC 2.0`));
    const { error } = response;
    if (error !== undefined) {
      if (!isRecord(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
        return call.reject(new SdkError(SdkErrorCode.InvalidResult, 'Invalid error response for tools/call'));
      }
      return call.reject(ProtocolError.fromError(error.code, error.message, error.data));
    }
    const result = this.#checkedResult(response.result);
    if (result instanceof Error) return call.reject(result);
    const outputError = call.definition ? this.#checkOutput(call.name, call.definition, result) : undefined;
    if (outputError) return call.reject(outputError);
    call.resolve(result);
  }

  /** The result as the SDK's 2025-era decoding and schema would give it, or the error they would raise. */
  #checkedResult(raw: unknown): CallToolResult | Error {
    if (!isRecord(raw)) return new SdkError(SdkErrorCode.InvalidResult, 'Invalid result for tools/call: not an object');
    if (isPlainTextResult(raw)) return raw as CallToolResult;
    // The 2025 codec drops a `resultType` before validating.
    const { resultType: _dropped, ...rest } = raw;
    const checked = this.#client.checkToolResult(rest);
    return checked.ok
      ? (checked.value as CallToolResult)
      : new SdkError(SdkErrorCode.InvalidResult, `Invalid result for tools/call: ${checked.message}`);
  }

  /** The SDK `callTool`'s check of structured content against the tool's output schema, with its messages. */
  #checkOutput(name: string, definition: McpToolDefinition, result: CallToolResult): ProtocolError | undefined {
    const compiled = this.#outputCheck(definition);
    if (!compiled || !compiled.ok || result.isError) return undefined;
    if (result.structuredContent === undefined)
      return new ProtocolError(ProtocolErrorCode.InvalidRequest, `Tool ${name} has an output schema but did not return structured content`);
    try {
      const outcome = compiled.check(result.structuredContent);
      return outcome.valid
        ? undefined
        : new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `Structured content does not match the tool's output schema: ${outcome.errorMessage}`,
          );
    } catch (error) {
      return new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Failed to validate structured content: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  #outputCheck(definition: McpToolDefinition): CompiledOutput | undefined {
    if (!definition.outputSchema) return undefined;
    let compiled = this.#outputChecks.get(definition);
    if (!compiled) {
      try {
        compiled = { ok: true, check: this.#client.schemaValidators.getValidator(definition.outputSchema) };
      } catch (error) {
        compiled = { ok: false, error };
      }
      this.#outputChecks.set(definition, compiled);
    }
    return compiled;
  }
}

function invalidOutputSchema(name: string, error: unknown): ProtocolError {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 200);
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool '${name}' has an invalid outputSchema: ${message}`);
}
