/**
 * A tiny OTLP/HTTP trace receiver on 127.0.0.1: accepts `POST /v1/traces` in the JSON
 * encoding (what `@opentelemetry/exporter-trace-otlp-http` sends), keeps every span with its
 * resource and decoded attributes, and the request headers, so a test can assert the span
 * tree a weft process exported.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  scope: string;
  attributes: Record<string, AttributeValue>;
  resource: Record<string, AttributeValue>;
  status: { code: number; message?: string };
  events: { name: string; attributes: Record<string, AttributeValue> }[];
}

export interface OtlpReceiver {
  /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans: ReceivedSpan[];
  /** Every export request's headers. */
  headers: IncomingHttpHeaders[];
  /** Every request body as received, to search for text that must not leave weft. */
  bodies: string[];
  /** Resolves once a received span matches (checked on each export, not by polling). */
  waitForSpan(matches: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}
interface OtlpAnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpAnyValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number; message?: string };
  events?: { name: string; attributes?: OtlpKeyValue[] }[];
}
interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[] }[];
}

function decodeValue(value: OtlpAnyValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(decodeValue);
  return null;
}

function decodeAttributes(attributes: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((attributes ?? []).map((entry) => [entry.key, decodeValue(entry.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const bodies: string[] = [];
  const waiters: { matches: (span: ReceivedSpan) => boolean; resolve: (span: ReceivedSpan) => void }[] = [];

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (
        request.method !== 'POST' ||
        request.url !== '/v1/traces' ||
        !String(request.headers['content-type']).startsWith('application/json')
      ) {
        response.writeHead(415).end();
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      headers.push(request.headers);
      const decoded = JSON.parse(body) as OtlpRequest;
      for (const resourceSpans of decoded.resourceSpans ?? []) {
        const resource = decodeAttributes(resourceSpans.resource?.attributes);
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind,
              scope: scopeSpans.scope?.name ?? '',
              attributes: decodeAttributes(span.attributes),
              resource,
              status: { code: span.status?.code ?? 0, ...(span.status?.message ? { message: span.status.message } : {}) },
              events: (span.events ?? []).map((event) => ({ name: event.name, attributes: decodeAttributes(event.attributes) })),
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const waiter of [...waiters]) {
        const found = spans.find(waiter.matches);
        if (found) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(found);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    headers,
    bodies,
    waitForSpan(matches) {
      const found = spans.find(matches);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ matches, resolve }));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
