/**
 * `web_fetch`: fetches an http(s) URL and returns it as text the model can read. HTML becomes
 * Markdown, text and JSON pass through, binary content is described. The body is read as a
 * stream with a hard byte limit and the output is capped; with a `prompt` and a configured
 * summariser the tool returns the summariser's answer instead of the page. Only public
 * addresses are reached, unless the settings allow the host (`web-address-policy.ts`).
 */
import type { IncomingMessage } from 'node:http';
import { WeftError, errorMessage } from '../../core/errors.js';
import type { Tool, ToolContext, ToolResult } from '../tool.js';
import { textResult } from '../tool.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { WebAddressPolicy, type ResolveHost } from './web-address-policy.js';
import { ACCEPT_ENCODING, decodedBody, getFollowingRedirects, parseHttpUrl } from './web-request.js';

export type Summarise = (markdown: string, prompt: string, signal: AbortSignal) => Promise<string>;

export interface WebFetchToolOptions {
  /** Answers `prompt` about the page with a (small) model; absent when no summariser model is configured. */
  summarise?: Summarise;
  /** Cap on the text returned; default 100 KiB. */
  maxOutputBytes?: number;
  /** Cap on the raw body read from the network; default 10 MiB. */
  maxBodyBytes?: number;
  /** `[tools.web_fetch] allow_hosts`: hosts reached even at loopback, private or link-local addresses. */
  allowHosts?: readonly string[];
  /** How host names become addresses; DNS by default. */
  resolveHost?: ResolveHost;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_OUTPUT_BYTES = 100 * 1024;
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Time allowed to the summariser on top of the fetch, for the executor's per-tool limit. */
const SUMMARISE_ALLOWANCE_MS = 120_000;

type BodyKind = 'html' | 'text' | 'json' | 'binary' | 'unknown';

interface FetchedBody {
  bytes: Buffer;
  /** The body was longer than the raw limit and reading stopped there. */
  truncated: boolean;
}

export function createWebFetchTool(options: WebFetchToolOptions = {}): Tool {
  const summarise = options.summarise;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const policy = new WebAddressPolicy(options.allowHosts, options.resolveHost);

  return {
    name: 'web_fetch',
    source: 'builtin',
    description:
      'Fetch an http or https URL and return its content as text: HTML is converted to Markdown (scripts and ' +
      'styles removed), plain text and JSON are returned as they are, binary content is described but not shown. ' +
      `Output is capped at ${Math.round(maxOutputBytes / 1024)} KB. ` +
      'With `prompt`, a summariser model answers the prompt about the page and only its answer is returned ' +
      '(when no summariser is configured the page itself is returned). ' +
      `timeout_ms defaults to ${DEFAULT_TIMEOUT_MS} and is clamped to ${MAX_TIMEOUT_MS}. Other URL schemes (file:, ftp:, …) are refused, ` +
      'and so are loopback, private, link-local and cloud metadata addresses unless the settings allow the host.',
    inputSchema: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'The absolute http:// or https:// URL to fetch.' },
        prompt: {
          type: 'string',
          description:
            'Optional question or instruction about the page; a summariser model answers it instead of returning the whole page.',
        },
        timeout_ms: {
          type: 'integer',
          minimum: 1,
          description: `Timeout for the request in milliseconds (default ${DEFAULT_TIMEOUT_MS}; values above ${MAX_TIMEOUT_MS} are clamped to ${MAX_TIMEOUT_MS}).`,
        },
      },
      required: ['url'],
      additionalProperties: false,
    },
    annotations: { title: 'Fetch web page', readOnlyHint: true, openWorldHint: true },
    timeoutMs: MAX_TIMEOUT_MS + 10_000 + (summarise ? SUMMARISE_ALLOWANCE_MS : 0),
    async execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      const url = parseHttpUrl(args.url as string);
      const requested = typeof args.timeout_ms === 'number' ? args.timeout_ms : DEFAULT_TIMEOUT_MS;
      const timeoutMs = Math.max(1, Math.min(requested, MAX_TIMEOUT_MS));
      const prompt = typeof args.prompt === 'string' && args.prompt.trim() !== '' ? args.prompt : undefined;
      if (context.signal.aborted) throw cancelled();

      const page = await fetchPage(url, { policy, timeoutMs, maxBodyBytes, signal: context.signal });
      const rendered = render(page, maxOutputBytes);
      const structuredContent: Record<string, unknown> = {
        url: url.href,
        finalUrl: page.finalUrl,
        status: page.status,
        contentType: page.contentType,
        bytesRead: page.body?.bytes.length ?? 0,
        truncated: rendered.truncated,
      };
      const redirect = page.finalUrl !== url.href ? `Redirected to ${page.finalUrl}\n\n` : '';

      if (prompt === undefined) return textResult(redirect + rendered.text, { structuredContent });
      if (!summarise) {
        return textResult(
          `No summariser model is configured, so the prompt was not applied; the page content follows.\n\n${redirect}${rendered.text}`,
          { structuredContent: { ...structuredContent, summarised: false } },
        );
      }
      try {
        const answer = await summarise(redirect + rendered.text, prompt, context.signal);
        return textResult(answer, { structuredContent: { ...structuredContent, summarised: true } });
      } catch (error) {
        if (context.signal.aborted) throw cancelled();
        context.logger.warn('web_fetch summariser failed', { url: url.href, error: errorMessage(error) });
        return textResult(
          `The summariser failed (${errorMessage(error)}), so the prompt was not applied; the page content follows.\n\n${redirect}${rendered.text}`,
          { structuredContent: { ...structuredContent, summarised: false } },
        );
      }
    },
  };
}

export const webFetchTool: Tool = createWebFetchTool({});

export { parseHttpUrl };

interface FetchedPage {
  finalUrl: string;
  status: number;
  contentType: string;
  mime: string;
  kind: BodyKind;
  contentLength: number | undefined;
  body: FetchedBody | undefined;
}

async function fetchPage(
  url: URL,
  params: { policy: WebAddressPolicy; timeoutMs: number; maxBodyBytes: number; signal: AbortSignal },
): Promise<FetchedPage> {
  const { timeoutMs, signal } = params;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const onAbort = (): void => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });

  try {
    const { url: answeredFrom, message } = await getFollowingRedirects(url, {
      policy: params.policy,
      signal: controller.signal,
      headers: {
        'user-agent': 'weft-web-fetch/0.1',
        'accept-encoding': ACCEPT_ENCODING,
        accept: 'text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.8',
      },
    });
    const finalUrl = answeredFrom.href;
    const status = message.statusCode ?? 0;
    if (status < 200 || status > 299) {
      message.destroy();
      const reason = message.statusMessage ? ` ${message.statusMessage}` : '';
      throw new WeftError('FETCH_FAILED', `HTTP ${status}${reason} from ${finalUrl}`, { data: { status, url: finalUrl } });
    }
    const contentType = message.headers['content-type'] ?? '';
    const mime = contentType.split(';')[0]!.trim().toLowerCase();
    const lengthHeader = Number(message.headers['content-length']);
    const contentLength = Number.isFinite(lengthHeader) && message.headers['content-length'] !== undefined ? lengthHeader : undefined;
    const kind = classify(mime);
    if (kind === 'binary') {
      message.destroy();
      return { finalUrl, status, contentType, mime, kind, contentLength, body: undefined };
    }
    const body = await readBounded(message, params.maxBodyBytes);
    return { finalUrl, status, contentType, mime, kind, contentLength, body };
  } catch (error) {
    if (WeftError.is(error)) throw error;
    if (signal.aborted) throw cancelled();
    if (timedOut) {
      throw new WeftError(
        'FETCH_FAILED',
        `Fetching ${url.href} timed out after ${seconds(timeoutMs)}s. Pass a larger timeout_ms (up to ${MAX_TIMEOUT_MS}) to wait longer.`,
        { cause: error },
      );
    }
    throw new WeftError('FETCH_FAILED', `Could not fetch ${url.href}: ${describeFetchError(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/** Reads the body chunk by chunk and stops at `limit` bytes, so a huge page cannot exhaust memory. */
async function readBounded(message: IncomingMessage, limit: number): Promise<FetchedBody> {
  // The limit applies to the decoded bytes, so a small compressed bomb stops at it too.
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  // Leaving the loop early destroys the stream, which hangs up on the server.
  for await (const chunk of decodedBody(message)) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      size = limit;
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks, size), truncated };
}

function classify(mime: string): BodyKind {
  if (mime === '') return 'unknown';
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime === 'application/json' || mime.endsWith('+json') || mime === 'application/x-ndjson') return 'json';
  if (mime.startsWith('text/')) return 'text';
  if (mime.endsWith('+xml') || TEXT_APPLICATION_TYPES.has(mime)) return 'text';
  return 'binary';
}

const TEXT_APPLICATION_TYPES = new Set([
  'application/xml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/graphql',
  'application/x-www-form-urlencoded',
]);

interface Rendered {
  text: string;
  truncated: boolean;
}

function render(page: FetchedPage, maxOutputBytes: number): Rendered {
  const notes: string[] = [];
  if (!page.body) {
    const size = page.contentLength === undefined ? 'size unknown' : `${page.contentLength} bytes`;
    return {
      text: `Binary content (${page.mime || 'unknown type'}, ${size}) at ${page.finalUrl} is not shown; web_fetch returns text, HTML, JSON and other textual content only.`,
      truncated: false,
    };
  }
  const { bytes } = page.body;
  if (page.body.truncated) {
    notes.push(`[The response was larger than ${bytes.length} bytes; only the first ${bytes.length} bytes were read.]`);
  }

  let kind = page.kind;
  if (kind === 'unknown') {
    const head = bytes.subarray(0, 8192);
    if (head.includes(0)) {
      return {
        text: `Binary content (no content type, at least ${bytes.length} bytes) at ${page.finalUrl} is not shown.`,
        truncated: false,
      };
    }
    kind = /^\s*(<!doctype html|<html|<head|<body)/i.test(head.toString('latin1')) ? 'html' : 'text';
  }

  const text = decode(bytes, page.contentType, kind === 'html');
  let content: string;
  let sourceNote = '';
  if (kind === 'html') {
    const conversion = htmlToMarkdown(text, { baseUrl: page.finalUrl, targetBytes: maxOutputBytes });
    content = conversion.markdown;
    if (conversion.convertedChars < conversion.totalChars) {
      sourceNote = ` converted from the first ${conversion.convertedChars} of ${conversion.totalChars} characters of HTML (the rest was not converted)`;
    }
  } else {
    content = text;
  }

  const capped = capUtf8(content, maxOutputBytes);
  let truncated = page.body.truncated || sourceNote !== '';
  if (capped.cutBytes > 0) {
    truncated = true;
    notes.push(
      `[Output truncated: showing the first ${capped.keptBytes} of ${capped.keptBytes + capped.cutBytes} bytes${sourceNote}; ${capped.cutBytes} bytes were cut.]`,
    );
  } else if (sourceNote !== '') {
    notes.push(`[Page truncated: this Markdown was${sourceNote}.]`);
  }
  const body = capped.text.length > 0 ? capped.text : '(empty response body)';
  return { text: notes.length > 0 ? `${body}\n\n${notes.join('\n')}` : body, truncated };
}

/** Decodes with the charset from the content type or, for HTML, a `<meta charset>`; UTF-8 otherwise. */
function decode(bytes: Buffer, contentType: string, html: boolean): string {
  let charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  if (!charset && html) {
    charset = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(bytes.subarray(0, 4096).toString('latin1'))?.[1];
  }
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** The longest prefix of `text` within `maxBytes` bytes of UTF-8, cut on a character boundary. */
export function capUtf8(text: string, maxBytes: number): { text: string; keptBytes: number; cutBytes: number } {
  const total = Buffer.byteLength(text, 'utf8');
  if (total <= maxBytes) return { text, keptBytes: total, cutBytes: 0 };
  const buffer = Buffer.from(text, 'utf8');
  let end = maxBytes;
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end -= 1; // do not split a character
  return { text: buffer.subarray(0, end).toString('utf8'), keptBytes: end, cutBytes: total - end };
}

function describeFetchError(error: unknown): string {
  const message = errorMessage(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return `${message} (${code ? `${code}: ` : ''}${cause.message})`;
  }
  return message;
}

function cancelled(): WeftError {
  return new WeftError('TOOL_CANCELLED', 'Cancelled');
}

function seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(3)));
}
