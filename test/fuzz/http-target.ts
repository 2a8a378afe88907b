/**
 * `weft mcp start --http` as a fuzz target: each frame of a case is one POST to `/mcp`
 * with the bearer token and the era's headers (a 2025-era session id, or the 2026-era
 * MCP-Protocol-Version / Mcp-Method / Mcp-Name headers derived from the body, as a real
 * client sends them), sometimes with hostile headers instead. Every POST must get an
 * HTTP answer; a truncated frame is sent as a body cut short and abandoned.
 */
import { LEGACY_VERSION, MODERN_VERSION, message, probe, type Era, type FuzzCase, type ToolSpec } from './jsonrpc-corpus.js';
import { abandon, HANG_UP_ALLOWED_ABOVE_BYTES, messagesOf, send } from './http-client.js';
import type { Rng } from './rng.js';
import type { CaseOutcome, FuzzTarget, RpcMessage } from './stdio-target.js';

const PRINTABLE = /^[\x20-\x7e]{1,200}$/;

function bodyHeaders(body: Buffer): Record<string, string> {
  let parsed: { method?: unknown; params?: { name?: unknown; uri?: unknown } } | undefined;
  try {
    parsed = JSON.parse(body.toString('utf8')) as typeof parsed;
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || typeof parsed.method !== 'string' || !PRINTABLE.test(parsed.method))
    return {};
  const headers: Record<string, string> = { 'mcp-method': parsed.method };
  const name = parsed.method === 'resources/read' || parsed.method === 'resources/subscribe' ? parsed.params?.uri : parsed.params?.name;
  if (typeof name === 'string' && PRINTABLE.test(name)) headers['mcp-name'] = name;
  return headers;
}

/** Headers a hostile or broken client sends instead of the right ones. */
const HEADER_MUTATIONS: ((headers: Record<string, string>) => Record<string, string>)[] = [
  (headers) => ({ ...headers, 'mcp-protocol-version': '1999-01-01' }),
  (headers) => ({ ...headers, 'mcp-session-id': 'not-a-session' }),
  (headers) => ({ ...headers, 'content-type': 'text/plain' }),
  (headers) => ({ ...headers, accept: 'image/png' }),
  (headers) => ({ ...headers, authorization: 'Bearer wrong' }),
  (headers) => ({ ...headers, 'mcp-method': 'tools/list' }),
  (headers) => ({ ...headers, 'mcp-name': '=?base64?!!!?=' }),
  (headers) => ({ ...headers, origin: 'http://evil.example' }),
  (headers) => ({ ...headers, 'content-encoding': 'gzip' }),
];

export class HttpTarget implements FuzzTarget {
  readonly name: string;
  #session: string | undefined;
  #probes = 0;

  constructor(
    private readonly era: Era,
    private readonly url: string,
    private readonly token: string,
    readonly pid: number,
    private readonly rng: Rng,
    private readonly serverStderr: () => string,
  ) {
    this.name = `http/${era}`;
  }

  stderr(): string {
    return this.serverStderr();
  }

  #headers(body: Buffer): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.era === 'legacy') {
      if (this.#session) Object.assign(headers, { 'mcp-session-id': this.#session, 'mcp-protocol-version': LEGACY_VERSION });
      return headers;
    }
    return { ...headers, 'mcp-protocol-version': MODERN_VERSION, ...bodyHeaders(body) };
  }

  async #post(body: Buffer, headers = this.#headers(body), split = false): Promise<RpcMessage[] | undefined> {
    const answer = await send(this.url, 'POST', headers, body, split);
    if (!answer || (answer.status === 0 && body.length <= HANG_UP_ALLOWED_ABOVE_BYTES)) return undefined;
    return answer.status === 0 ? [{ error: { code: 0, message: answer.body } }] : (messagesOf(answer) as RpcMessage[]);
  }

  async open(): Promise<void> {
    if (this.era === 'modern') return;
    const init = Buffer.from(
      JSON.stringify(
        message(
          'legacy',
          'initialize',
          { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'weft-fuzz', version: '1' } },
          'init',
        ),
      ),
    );
    const answer = await send(this.url, 'POST', this.#headers(init), init);
    const session = answer?.headers['mcp-session-id'];
    if (typeof session !== 'string') throw new Error(`initialize over HTTP failed: ${answer?.status} ${answer?.body}`);
    this.#session = session;
    await this.#post(Buffer.from(JSON.stringify(message('legacy', 'notifications/initialized', undefined))));
  }

  async tools(): Promise<ToolSpec[]> {
    const answers = await this.#post(Buffer.from(JSON.stringify(message(this.era, 'tools/list', {}, 'tools'))));
    return answers?.find((answer) => answer.id === 'tools')?.result?.tools ?? [];
  }

  async run(fuzzCase: FuzzCase): Promise<CaseOutcome> {
    const answers: RpcMessage[] = [];
    const unanswered: string[] = [];
    for (const [index, body] of fuzzCase.frames.entries()) {
      if (fuzzCase.truncated) {
        await abandon(this.url, this.#headers(body), body);
        continue;
      }
      // The warm-up opens the store the later cases compare against: it goes with the right headers.
      const hostile = fuzzCase.kind !== 'warm-up' && this.rng.chance(0.15);
      const headers = hostile ? this.rng.pick(HEADER_MUTATIONS)(this.#headers(body)) : this.#headers(body);
      const got = await this.#post(body, headers, fuzzCase.split === true);
      if (got) answers.push(...got);
      else unanswered.push(`POST #${index + 1} of the case`);
    }
    this.#probes += 1;
    const probeId = `probe-${this.#probes}`;
    const probed = await this.#post(probe(this.era, probeId));
    return { answers, unanswered, alive: probed?.some((answer) => answer.id === probeId && answer.result !== undefined) === true };
  }

  async close(): Promise<void> {}
}
