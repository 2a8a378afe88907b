import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { silentLogger } from '../../core/logger.js';
import type { ToolContext } from '../tool.js';
import { createFileReadTracker, resultText } from '../tool.js';
import { capUtf8, createWebFetchTool, parseHttpUrl, webFetchTool } from './web-fetch.js';

const PAGE = `<!doctype html>
<html><head><title>Weft Test Page</title>
<style>.secret-style { color: red; }</style>
<script>var secretScript = "SCRIPT-CONTENT";</script>
</head><body>
<noscript>NOSCRIPT-CONTENT</noscript>
<h1>Main Heading</h1>
<p>Intro with a <a href="/docs/guide">relative link</a> and <a href="https://example.com/abs">absolute link</a>.</p>
<h2>Second Heading</h2>
<ul><li>first item</li><li>second item</li></ul>
<script type="module">console.log("MODULE-SCRIPT")</script>
<template>TEMPLATE-CONTENT</template>
<iframe src="/frame">IFRAME-CONTENT</iframe>
</body></html>`;

const PARAGRAPH = '<p>Lorem ipsum dolor sit amet, <b>consectetur</b> adipiscing elit, <a href="/x">sed do</a> eiusmod.</p>\n';
const BIG_PAGE = `<html><body><h1>Big</h1>${PARAGRAPH.repeat(Math.ceil((5 * 1024 * 1024) / PARAGRAPH.length))}</body></html>`;

let server: Server;
let base: string;
/** Responses the slow handlers hold open; released in teardown so nothing hangs. */
const held = new Set<ServerResponse>();
let slowRequestArrived: (() => void) | undefined;
let endlessClosed: Promise<void> | undefined;

/** Every request the test server received, as `host path`. */
const received: string[] = [];

function handle(request: IncomingMessage, response: ServerResponse): void {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  received.push(`${request.headers.host ?? ''} ${path}`);
  const port = (server.address() as AddressInfo).port;
  switch (path) {
    case '/compressed': {
      const encoding = String(request.headers['accept-encoding'] ?? '').includes('gzip') ? 'gzip' : 'identity';
      const body = Buffer.from('squeezed text\n'.repeat(1000));
      response
        .writeHead(200, { 'content-type': 'text/plain', 'content-encoding': encoding })
        .end(encoding === 'gzip' ? gzipSync(body) : body);
      return;
    }
    case '/to-localhost':
      response.writeHead(302, { location: `http://localhost:${port}/page` }).end();
      return;
    case '/to-mapped':
      response.writeHead(301, { location: `http://[::ffff:127.0.0.1]:${port}/page` }).end();
      return;
    case '/loop':
      response.writeHead(307, { location: '/loop' }).end();
      return;
    case '/page':
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      return;
    case '/big':
      response.writeHead(200, { 'content-type': 'text/html' }).end(BIG_PAGE);
      return;
    case '/endless': {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'z');
      endlessClosed = new Promise((resolve) => response.once('close', () => resolve()));
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
      return;
    }
    case '/slow':
      held.add(response);
      slowRequestArrived?.();
      return;
    case '/missing':
      response.writeHead(404, { 'content-type': 'text/plain' }).end('nothing here');
      return;
    case '/data.json':
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"weft","tags":["<b>raw</b>"]}');
      return;
    case '/notes.txt':
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('plain <b>text</b> stays\n');
      return;
    case '/latin1':
      response
        .writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' })
        .end(Buffer.from([...Buffer.from('<p>caf'), 0xe9, ...Buffer.from('</p>')]));
      return;
    case '/image.png':
      response
        .writeHead(200, { 'content-type': 'image/png', 'content-length': '8' })
        .end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      return;
    case '/redirect':
      response.writeHead(302, { location: '/page' }).end();
      return;
    default:
      response.writeHead(500).end();
  }
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let workspace: string;
let controller: AbortController;

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'weft-fetch-'));
  controller = new AbortController();
});

afterEach(() => {
  for (const response of held) response.destroy();
  held.clear();
  slowRequestArrived = undefined;
  rmSync(workspace, { recursive: true, force: true });
});

function context(): ToolContext {
  return { workspaceRoot: workspace, signal: controller.signal, readFiles: createFileReadTracker(), logger: silentLogger };
}

// The test server listens on loopback, which web_fetch refuses unless the settings allow it.
const ALLOW_TEST_SERVER = ['127.0.0.1'];
const localTool = createWebFetchTool({ allowHosts: ALLOW_TEST_SERVER });

async function fetchText(args: Record<string, unknown>, tool = localTool): Promise<string> {
  const result = await tool.execute(args, context());
  expect(result.isError).toBe(false);
  return resultText(result);
}

async function failure(promise: Promise<unknown>): Promise<WeftError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WeftError);
  return error as WeftError;
}

describe('web_fetch tool', () => {
  it('declares a strict schema', () => {
    expect(webFetchTool.name).toBe('web_fetch');
    expect(webFetchTool.source).toBe('builtin');
    expect(webFetchTool.inputSchema).toMatchObject({ type: 'object', required: ['url'], additionalProperties: false });
    const properties = webFetchTool.inputSchema.properties as Record<string, { description?: string }>;
    expect(Object.keys(properties).sort()).toEqual(['prompt', 'timeout_ms', 'url']);
    for (const property of Object.values(properties)) expect(property.description).toBeTruthy();
  });

  it('converts HTML to Markdown without scripts, styles and other non-content elements', async () => {
    const text = await fetchText({ url: `${base}/page` });
    expect(text).toContain('# Main Heading');
    expect(text).toContain('## Second Heading');
    expect(text).toContain(`[relative link](${base}/docs/guide)`);
    expect(text).toContain('[absolute link](https://example.com/abs)');
    expect(text).toMatch(/^-\s+first item$/m);
    expect(text).toContain('Title: Weft Test Page');
    for (const hidden of ['SCRIPT-CONTENT', 'secret-style', 'MODULE-SCRIPT', 'NOSCRIPT-CONTENT', 'TEMPLATE-CONTENT', 'IFRAME-CONTENT']) {
      expect(text).not.toContain(hidden);
    }
    expect(text).not.toContain('<');
  });

  it('caps a 5 MB page at 100 KB with a note of what was cut, converting only the head of the page', async () => {
    const result = await localTool.execute({ url: `${base}/big` }, context());
    const text = resultText(result);
    expect(result.isError).toBe(false);
    const [content, note] = text.split('\n\n[Output truncated: ');
    expect(Buffer.byteLength(content!, 'utf8')).toBeLessThanOrEqual(100 * 1024);
    expect(Buffer.byteLength(content!, 'utf8')).toBeGreaterThan(90 * 1024);
    expect(content!.startsWith('# Big')).toBe(true);
    expect(note).toMatch(/^showing the first \d+ of \d+ bytes converted from the first \d+ of \d+ characters of HTML/);
    // What costs time is converting: only a head of the page was, not the 5 MB.
    const [, converted, total] = /from the first (\d+) of (\d+) characters/.exec(note!)!;
    expect(Number(converted)).toBeLessThan(Number(total) / 10);
    expect(note).toMatch(/\d+ bytes were cut\.\]$/);
    expect(result.structuredContent).toMatchObject({ truncated: true, status: 200 });
  });

  it('stops reading a body at the raw limit', async () => {
    const tool = createWebFetchTool({ maxBodyBytes: 1024 * 1024, maxOutputBytes: 1000, allowHosts: ALLOW_TEST_SERVER });
    const result = await tool.execute({ url: `${base}/endless` }, context());
    const text = resultText(result);
    expect(text).toContain('only the first 1048576 bytes were read');
    expect(text).toContain('[Output truncated: showing the first 1000 of 1048576 bytes; 1047576 bytes were cut.]');
    expect(result.structuredContent).toMatchObject({ bytesRead: 1024 * 1024, truncated: true });
    await endlessClosed; // the client hung up instead of reading for ever
  });

  it('times out on a server that does not answer, saying how to wait longer', async () => {
    const error = await failure(localTool.execute({ url: `${base}/slow`, timeout_ms: 300 }, context()));
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toContain('timed out after 0.3s');
    expect(error.message).toContain('timeout_ms');
  });

  it('throws TOOL_CANCELLED when the session is aborted mid-request', async () => {
    const arrived = new Promise<void>((resolve) => (slowRequestArrived = resolve));
    const running = failure(localTool.execute({ url: `${base}/slow` }, context()));
    await arrived;
    controller.abort();
    const error = await running;
    expect(error.code).toBe('TOOL_CANCELLED');
    expect(error.message).toBe('Cancelled');
  });

  it.each(['file:///etc/passwd', 'ftp://x', 'javascript:alert(1)', 'data:text/plain,hi'])('refuses %s', async (url) => {
    const error = await failure(webFetchTool.execute({ url }, context()));
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toContain('only http:// and https:// URLs are supported');
  });

  it('refuses a malformed URL', async () => {
    const error = await failure(webFetchTool.execute({ url: 'not a url' }, context()));
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toContain("Invalid URL 'not a url'");
    expect(() => parseHttpUrl('https://example.com/a')).not.toThrow();
  });

  it('reports a non-2xx status', async () => {
    const error = await failure(localTool.execute({ url: `${base}/missing` }, context()));
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toContain('HTTP 404 Not Found');
    expect(error.data).toMatchObject({ status: 404 });
  });

  it('reports a connection failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(localTool.execute({ url: `http://127.0.0.1:${port}/` }, context()));
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('passes JSON and plain text through unchanged', async () => {
    expect(await fetchText({ url: `${base}/data.json` })).toBe('{"name":"weft","tags":["<b>raw</b>"]}');
    expect(await fetchText({ url: `${base}/notes.txt` })).toBe('plain <b>text</b> stays\n');
  });

  it('asks for a compressed body and decodes it', async () => {
    expect(await fetchText({ url: `${base}/compressed` })).toBe('squeezed text\n'.repeat(1000));
  });

  it('decodes the declared charset', async () => {
    expect(await fetchText({ url: `${base}/latin1` })).toBe('café');
  });

  it('describes binary content instead of dumping it', async () => {
    const text = await fetchText({ url: `${base}/image.png` });
    expect(text).toContain('Binary content (image/png, 8 bytes)');
    expect(text).not.toContain('PNG');
  });

  it('follows redirects and says where it ended up', async () => {
    const text = await fetchText({ url: `${base}/redirect` });
    expect(text.startsWith(`Redirected to ${base}/page\n\n`)).toBe(true);
    expect(text).toContain('# Main Heading');
  });

  it('returns the summariser answer when given a prompt', async () => {
    const calls: { markdown: string; prompt: string }[] = [];
    const tool = createWebFetchTool({
      allowHosts: ALLOW_TEST_SERVER,
      summarise: async (markdown, prompt) => {
        calls.push({ markdown, prompt });
        return 'The page has two headings.';
      },
    });
    const result = await tool.execute({ url: `${base}/page`, prompt: 'How many headings?' }, context());
    expect(resultText(result)).toBe('The page has two headings.');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.prompt).toBe('How many headings?');
    expect(calls[0]!.markdown).toContain('# Main Heading');
    expect(calls[0]!.markdown).not.toContain('SCRIPT-CONTENT');
    expect(result.structuredContent).toMatchObject({ summarised: true });
  });

  it('returns the page with a note when a prompt is given but no summariser is configured', async () => {
    const text = await fetchText({ url: `${base}/page`, prompt: 'How many headings?' });
    const [firstLine] = text.split('\n');
    expect(firstLine).toMatch(/No summariser model is configured/);
    expect(text).toContain('# Main Heading');
  });

  it('falls back to the page when the summariser fails', async () => {
    const tool = createWebFetchTool({
      allowHosts: ALLOW_TEST_SERVER,
      summarise: async () => {
        throw new Error('model unavailable');
      },
    });
    const text = await fetchText({ url: `${base}/page`, prompt: 'Anything?' }, tool);
    expect(text.split('\n')[0]).toContain('The summariser failed (model unavailable)');
    expect(text).toContain('# Main Heading');
  });
});

describe('web_fetch address policy', () => {
  beforeEach(() => {
    received.length = 0;
  });

  it('refuses a loopback server by default, in every spelling, without connecting', async () => {
    const port = new URL(base).port;
    for (const host of ['127.0.0.1', 'localhost', '2130706433', '0x7f000001', '0177.0.0.1', '127.1', '[::ffff:127.0.0.1]', '[::1]']) {
      const error = await failure(webFetchTool.execute({ url: `http://${host}:${port}/page` }, context()));
      expect(error.code, host).toBe('FETCH_FAILED');
      expect(error.message, host).toMatch(
        /^Refusing to fetch from \S+: .*a loopback address\. web_fetch reaches public addresses only; to allow this host, add "\S+" to allow_hosts under \[tools\.web_fetch\]/,
      );
    }
    expect(received).toEqual([]);
  });

  it('reaches the same server once allow_hosts names it', async () => {
    const text = await fetchText({ url: `${base}/page` }, createWebFetchTool({ allowHosts: ['127.0.0.1'] }));
    expect(text).toContain('# Main Heading');
    expect(received).toEqual([`${new URL(base).host} /page`]);
    const byName = createWebFetchTool({ allowHosts: ['LOCALHOST'] });
    expect(await fetchText({ url: `http://localhost:${new URL(base).port}/notes.txt` }, byName)).toBe('plain <b>text</b> stays\n');
  });

  it('checks every redirect again: an allowed host cannot send the fetch to one that is not', async () => {
    for (const path of ['/to-localhost', '/to-mapped']) {
      const error = await failure(localTool.execute({ url: `${base}${path}` }, context()));
      expect(error.message, path).toMatch(/^Refusing to fetch from (localhost|\[::ffff:7f00:1\]): .*a loopback address/);
    }
    expect(received.map((line) => line.split(' ')[1])).toEqual(['/to-localhost', '/to-mapped']);
  });

  it('connects to the address it checked: the lookup of the connection itself is judged', async () => {
    const port = new URL(base).port;
    const lookups: string[] = [];
    const resolveHost = async (hostname: string) => {
      lookups.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const refused = await failure(
      createWebFetchTool({ allowHosts: ['127.0.0.1'], resolveHost }).execute({ url: `http://rebound.test:${port}/page` }, context()),
    );
    expect(refused.message).toMatch(/^Refusing to fetch from rebound\.test: rebound\.test resolves to 127\.0\.0\.1, a loopback address\./);
    expect(received).toEqual([]);
    const allowed = createWebFetchTool({ allowHosts: ['*.test'], resolveHost });
    expect(await fetchText({ url: `http://rebound.test:${port}/notes.txt` }, allowed)).toBe('plain <b>text</b> stays\n');
    expect(received).toEqual([`rebound.test:${port} /notes.txt`]);
    expect(lookups).toEqual(['rebound.test', 'rebound.test']);
  });

  it('stops after ten redirects', async () => {
    const error = await failure(localTool.execute({ url: `${base}/loop` }, context()));
    expect(error.message).toBe(`Too many redirects: ${base}/loop still redirects after 10 hops (last to /loop).`);
    expect(received).toHaveLength(11);
  });
});

describe('capUtf8', () => {
  it('cuts on a character boundary', () => {
    expect(capUtf8('abc', 10)).toEqual({ text: 'abc', keptBytes: 3, cutBytes: 0 });
    expect(capUtf8('aé€', 4)).toEqual({ text: 'aé', keptBytes: 3, cutBytes: 3 });
  });
});
