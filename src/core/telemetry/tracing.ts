/**
 * weft's spans, through the OpenTelemetry API only: without a registered tracer provider
 * (no `OTEL_EXPORTER_OTLP_ENDPOINT`, see `app/telemetry/`) every span is a no-op. The layers
 * that trace (engine, agent, tool executor) start spans here with an explicit parent, so no
 * context manager is needed and a library user's own provider receives the same spans.
 *
 * Every string attribute and status message passes through `redactSecrets`: spans leave the
 * machine, so they follow the same rule as events and logs.
 */
import {
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { redactSecrets } from '../redact.js';

export { SpanKind, type Span };
/** Where a span is started: the span that contains it (`trace.setSpan`), or a stored trace's context. */
export type TraceContext = Context;

/** The instrumentation scope of every weft span. */
export const TRACER_NAME = 'weft';
/** Longest text an attribute or status message carries; traces hold names and reasons, never transcripts. */
const MAX_TEXT = 1024;

const tracer = trace.getTracer(TRACER_NAME);

/** Attributes with every string redacted and clipped. */
export function safeAttributes(attributes: Attributes): Attributes {
  const safe: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    safe[key] = typeof value === 'string' ? safeText(value) : value;
  }
  return safe;
}

function safeText(text: string): string {
  const clipped = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
  return redactSecrets(clipped);
}

/**
 * Starts a span under `parent` (default: the active context, ROOT without a context manager).
 *
 * @example const span = startSpan('execute_tool read_file', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.tool.name': 'read_file' } }, stage.traceContext);
 */
export function startSpan(name: string, options: { kind?: SpanKind; attributes?: Attributes }, parent?: TraceContext): Span {
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL }, parent ?? context.active());
  // Redacting costs a pass over every string: paid only by a span that is recorded (with no
  // provider registered every span is a no-op, and a tool call must stay cheap).
  if (options.attributes !== undefined && span.isRecording()) span.setAttributes(safeAttributes(options.attributes));
  return span;
}

/** The context whose spans are children of `span`. */
export function contextWith(span: Span, parent?: TraceContext): TraceContext {
  return trace.setSpan(parent ?? context.active(), span);
}

/** Marks `span` failed: status ERROR with the (redacted) message, `error.type`, and an exception event without a stack. */
export function recordFailure(span: Span, errorType: string, message: string): void {
  if (!span.isRecording()) return;
  const text = safeText(message);
  span.setStatus({ code: SpanStatusCode.ERROR, message: text });
  span.setAttribute(ATTR_ERROR_TYPE, errorType);
  span.recordException({ name: errorType, message: text });
}

/** Sets attributes on a live span, redacted like the ones it started with. */
export function setSpanAttributes(span: Span, attributes: Attributes): void {
  if (span.isRecording()) span.setAttributes(safeAttributes(attributes));
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The W3C `traceparent` of a recording span, to store and continue the trace in another
 * process; undefined when nothing is traced.
 *
 * @example traceparentOf(span) // → '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
 */
export function traceparentOf(span: Span): string | undefined {
  const spanContext = span.spanContext();
  if (!span.isRecording() || !isSpanContextValid(spanContext)) return undefined;
  return `00-${spanContext.traceId}-${spanContext.spanId}-${spanContext.traceFlags.toString(16).padStart(2, '0')}`;
}

/** The `traceparent` of the span `context` holds (a stage's), to hand to a run it starts. */
export function traceparentIn(context: TraceContext): string | undefined {
  const span = trace.getSpan(context);
  return span === undefined ? undefined : traceparentOf(span);
}

/** The context of a stored `traceparent` (a remote parent); undefined for anything malformed. */
export function contextOfTraceparent(traceparent: string | undefined): TraceContext | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const spanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true };
  return isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : undefined;
}
