import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordSpans, type SpanKit } from '../../../test/kits/span-kit.js';
import { registerSecret } from '../redact.js';
import { contextOfTraceparent, contextWith, recordFailure, startSpan, traceparentOf } from './tracing.js';

let kit: SpanKit;
beforeAll(() => {
  kit = recordSpans();
});
afterAll(() => kit.stop());
beforeEach(() => kit.reset());

describe('weft spans', () => {
  it('redact every string attribute and failure message, and record the failure as status, error.type and an exception event', () => {
    registerSecret('unit-secret-value-31337', 'UNIT_API_KEY');
    const span = startSpan('stage leak', { attributes: { 'weft.note': 'uses unit-secret-value-31337', 'weft.count': 3 } });
    recordFailure(span, 'stage_failed', 'cannot use unit-secret-value-31337');
    span.end();
    const [exported] = kit.spans();
    expect(exported!.attributes).toEqual({ 'weft.note': 'uses [redacted:UNIT_API_KEY]', 'weft.count': 3, 'error.type': 'stage_failed' });
    expect(exported!.status).toEqual({ code: 2, message: 'cannot use [redacted:UNIT_API_KEY]' });
    expect(exported!.events.map((event) => [event.name, event.attributes])).toEqual([
      ['exception', { 'exception.type': 'stage_failed', 'exception.message': 'cannot use [redacted:UNIT_API_KEY]' }],
    ]);
  });

  it('continue a trace from a stored traceparent: the new span is a child of the stored one', () => {
    const first = startSpan('invoke_workflow w', {});
    const traceparent = traceparentOf(first)!;
    first.end();
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const second = startSpan('invoke_workflow w', {}, contextOfTraceparent(traceparent));
    const child = startSpan('stage a', {}, contextWith(second, contextOfTraceparent(traceparent)));
    child.end();
    second.end();
    const [, exportedChild, exportedSecond] = kit.spans();
    expect(exportedSecond!.spanContext().traceId).toBe(first.spanContext().traceId);
    expect(exportedSecond!.parentSpanContext?.spanId).toBe(first.spanContext().spanId);
    expect(exportedChild!.parentSpanContext?.spanId).toBe(second.spanContext().spanId);
  });

  it('read no parent from a malformed or all-zero traceparent', () => {
    expect(
      [
        '',
        'nonsense',
        '00-00000000000000000000000000000000-0000000000000000-01',
        '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      ].map(contextOfTraceparent),
    ).toEqual([undefined, undefined, undefined, undefined]);
  });
});
