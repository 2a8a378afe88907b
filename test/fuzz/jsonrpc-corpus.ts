/**
 * The MCP fuzz corpus: cases built from the server's own tool list (its input schemas)
 * and the JSON-RPC grammar, each a few raw frames plus the request ids that must be
 * answered. Frames are bytes, not objects, so a case can hold what no JSON encoder
 * writes: invalid UTF-8, 1e999, a frame cut in half, a line of 10 MB.
 */
import type { Rng } from './rng.js';
import { deepNest, MUTATIONS, mutate, RAW_NUMBER_TEXTS, validValue, type JsonSchema } from './schema-values.js';

export type Era = 'legacy' | 'modern';

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';

export interface ToolSpec {
  name: string;
  inputSchema: JsonSchema;
}

export interface FuzzCase {
  /** What kind of case this is (the counts in the results are per kind). */
  kind: string;
  /** Written in order; over stdio each is one line unless `split` says otherwise. */
  frames: Buffer[];
  /** Request ids that must get an answer (a result or an error). */
  mustAnswer: (string | number)[];
  /** Over stdio: write each frame in two pieces with a pause between (a half-written frame). */
  split?: boolean;
  /** Over stdio: the last frame has no newline and is cut short (then a newline ends it). */
  truncated?: boolean;
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'weft-fuzz', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A request (or, with `id` undefined, a notification) as the era writes it. */
export function message(
  era: Era,
  method: string,
  params: Record<string, unknown> | undefined,
  id?: string | number | null | unknown,
): Record<string, unknown> {
  const withMeta =
    era === 'modern' ? { ...(params ?? {}), _meta: { ...MODERN_META, ...((params?._meta as object | undefined) ?? {}) } } : params;
  return { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, ...(withMeta === undefined ? {} : { params: withMeta }) };
}

const frame = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

/** The request a case sends to prove the server still answers (2026-era has no ping). */
export function probe(era: Era, id: string): Buffer {
  return frame(era === 'legacy' ? message(era, 'ping', undefined, id) : message(era, 'tools/list', {}, id));
}

const KNOWN_METHODS = [
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'subscriptions/listen',
  'initialize',
  'ping',
];

export class CorpusBuilder {
  #next = 0;

  constructor(
    private readonly rng: Rng,
    private readonly era: Era,
    private readonly tools: readonly ToolSpec[],
  ) {}

  #id(): string | number {
    this.#next += 1;
    return this.rng.chance(0.5) ? `f${this.#next}` : 1_000_000 + this.#next;
  }

  #toolCall(args: unknown, name?: string): { id: string | number; value: Record<string, unknown> } {
    const id = this.#id();
    const tool = name ?? this.rng.pick(this.tools).name;
    return { id, value: message(this.era, 'tools/call', { name: tool, arguments: args }, id) };
  }

  /** One case of a kind chosen at random; `big` allows the 10 MB frames. */
  next(big: boolean): FuzzCase {
    const kinds = [
      'tool-valid',
      'tool-mutated',
      'tool-mutated',
      'tool-unknown',
      'method-unknown',
      'method-random-params',
      'notification',
      'notification-with-id',
      'duplicate-ids',
      'batch',
      'bad-envelope',
      'invalid-utf8',
      'raw-number',
      'garbage',
      'deep-raw',
      'half-written',
      'truncated',
      'cancel-in-flight',
    ];
    if (big) kinds.push('huge-string');
    return this.build(this.rng.pick(kinds));
  }

  build(kind: string): FuzzCase {
    const rng = this.rng;
    const tool = rng.pick(this.tools);
    switch (kind) {
      case 'warm-up': {
        // Opens the store, so later cases compare against a store that exists.
        const call = this.#toolCall({}, 'weft_run_search');
        return { kind, frames: [frame(call.value)], mustAnswer: [call.id] };
      }
      case 'tool-valid': {
        const call = this.#toolCall(validValue(tool.inputSchema, rng), tool.name);
        return { kind, frames: [frame(call.value)], mustAnswer: [call.id] };
      }
      case 'tool-mutated': {
        const valid = validValue(tool.inputSchema, rng) as Record<string, unknown>;
        const call = this.#toolCall(mutate(valid, tool.inputSchema, rng.pick(MUTATIONS), rng), tool.name);
        return { kind, frames: [frame(call.value)], mustAnswer: [call.id] };
      }
      case 'tool-unknown': {
        const call = this.#toolCall({}, rng.pick([rng.string(20), '', 'weft_run_create ', '../weft_run_get', 'x'.repeat(5000)]));
        return { kind, frames: [frame(call.value)], mustAnswer: [call.id] };
      }
      case 'method-unknown': {
        const id = this.#id();
        return {
          kind,
          frames: [
            frame(
              message(this.era, rng.pick([rng.string(10), 'tools/call/extra', 'rpc.discover', '__proto__', 'notifications/x']), {}, id),
            ),
          ],
          mustAnswer: [id],
        };
      }
      case 'method-random-params': {
        const id = this.#id();
        const params = rng.pick<Record<string, unknown>>([
          {},
          { uri: rng.string(30) },
          { uri: `weft://runs/${rng.string(30)}` },
          { name: rng.string(), arguments: { x: rng.string() } },
          { level: rng.string() },
          { ref: { type: 'ref/prompt', name: rng.string() }, argument: { name: 'x', value: rng.string() } },
          { cursor: rng.string(40) },
        ]);
        return { kind, frames: [frame(message(this.era, rng.pick(KNOWN_METHODS), params, id))], mustAnswer: [id] };
      }
      case 'notification':
        return {
          kind,
          frames: [
            frame(
              message(
                this.era,
                rng.pick([
                  'notifications/initialized',
                  'notifications/cancelled',
                  'notifications/progress',
                  'notifications/roots/list_changed',
                  `notifications/${rng.string(8)}`,
                ]),
                { requestId: rng.string() },
              ),
            ),
          ],
          mustAnswer: [],
        };
      case 'notification-with-id':
        // Not a notification, not a valid request: an answer is allowed, silence too.
        return {
          kind,
          frames: [frame(message(this.era, rng.pick(['notifications/initialized', 'notifications/cancelled']), {}, this.#id()))],
          mustAnswer: [],
        };
      case 'duplicate-ids': {
        const id = this.#id();
        const first = message(this.era, 'tools/call', { name: tool.name, arguments: validValue(tool.inputSchema, rng) }, id);
        const second = message(this.era, rng.pick(['tools/list', 'prompts/list', 'tools/call']), {}, id);
        return { kind, frames: [frame(first), frame(second)], mustAnswer: [id] };
      }
      case 'batch': {
        const entries = Array.from({ length: rng.int(0, 4) }, () => message(this.era, rng.pick(KNOWN_METHODS), {}, this.#id()));
        return { kind, frames: [frame(entries)], mustAnswer: [] };
      }
      case 'bad-envelope': {
        const id = this.#id();
        const variants: unknown[] = [
          { jsonrpc: '1.0', id, method: 'tools/list' },
          { id, method: 'tools/list' },
          { jsonrpc: '2.0', id, method: 42 },
          { jsonrpc: '2.0', id: { nested: 1 }, method: 'tools/list' },
          { jsonrpc: '2.0', id: null, method: 'tools/list' },
          { jsonrpc: '2.0', id: true, method: 'tools/list' },
          { jsonrpc: '2.0', id: 1.5, method: 'tools/list' },
          { jsonrpc: '2.0', id, method: 'tools/list', params: 'not-an-object' },
          { jsonrpc: '2.0', id, method: 'tools/call', params: [1, 2] },
          { jsonrpc: '2.0', id, result: {} },
          { jsonrpc: '2.0', id, error: { code: 1, message: 'x' } },
          {},
          [],
          'a string',
          12,
          null,
        ];
        return { kind, frames: [frame(rng.pick(variants))], mustAnswer: [] };
      }
      case 'invalid-utf8': {
        // Bad bytes inside a string decode to U+FFFD: still a request, so still answered.
        const call = this.#toolCall({ run_id: 'PLACEHOLDER' }, 'weft_run_get');
        const text = JSON.stringify(call.value);
        const at = text.indexOf('PLACEHOLDER');
        const bad = Buffer.from(rng.pick([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]]));
        return {
          kind,
          frames: [Buffer.concat([Buffer.from(text.slice(0, at)), bad, Buffer.from(text.slice(at + 'PLACEHOLDER'.length))])],
          mustAnswer: [call.id],
        };
      }
      case 'raw-number': {
        const call = this.#toolCall(
          { limit: 'NUMBER', run_id: 'NUMBER', timeout_seconds: 'NUMBER' },
          rng.pick(['weft_run_events', 'weft_run_gather', 'weft_run_search']),
        );
        const text = JSON.stringify(call.value).replaceAll('"NUMBER"', rng.pick(RAW_NUMBER_TEXTS));
        return { kind, frames: [Buffer.from(text)], mustAnswer: [call.id] };
      }
      case 'garbage':
        return {
          kind,
          frames: [
            Buffer.from(
              rng.pick([
                '{',
                '}',
                '{"jsonrpc":"2.0",',
                'null',
                '\u0000\u0001\u0002',
                'Content-Length: 12\r\n\r\n{}',
                '{"a":1}{"b":2}',
                rng.string(40),
              ]),
            ),
          ],
          mustAnswer: [],
        };
      case 'deep-raw': {
        const call = this.#toolCall('DEEP', tool.name);
        const depth = rng.pick([1000, 20_000, 200_000]);
        const open = rng.chance(0.5) ? '[' : '{"a":';
        const close = open === '[' ? ']' : '}';
        const text = JSON.stringify(call.value).replace('"DEEP"', `${open.repeat(depth)}0${close.repeat(depth)}`);
        return { kind, frames: [Buffer.from(text)], mustAnswer: [call.id] };
      }
      case 'half-written': {
        const call = this.#toolCall(validValue(tool.inputSchema, rng), tool.name);
        return { kind, frames: [frame(call.value)], mustAnswer: [call.id], split: true };
      }
      case 'truncated': {
        const whole = frame(message(this.era, 'tools/list', {}, this.#id()));
        return { kind, frames: [whole.subarray(0, rng.int(1, whole.length - 1))], mustAnswer: [], truncated: true };
      }
      case 'cancel-in-flight': {
        const call = this.#toolCall({ run_ids: ['01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC'], timeout_seconds: 1 }, 'weft_run_gather');
        return {
          kind,
          frames: [frame(call.value), frame(message(this.era, 'notifications/cancelled', { requestId: call.id, reason: 'fuzz' }))],
          mustAnswer: [],
        };
      }
      case 'huge-string': {
        const call = this.#toolCall({ run_id: 'x', action: 'message', text: 'H'.repeat(10 * 1024 * 1024) }, 'weft_run_interact');
        return { kind, frames: [frame(call.value)], mustAnswer: [call.id] };
      }
      case 'deep-value':
      default: {
        const call = this.#toolCall({ data: deepNest(2000, true) }, tool.name);
        return { kind, frames: [frame(call.value)], mustAnswer: [call.id] };
      }
    }
  }
}
