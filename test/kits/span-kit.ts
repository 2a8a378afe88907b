/**
 * Records the spans weft starts in this test file: registers an SDK tracer provider with an
 * in-memory exporter as the global one (what `app/telemetry/` does with the OTLP exporter).
 */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export interface SpanKit {
  /** Spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  reset(): void;
  stop(): Promise<void>;
}

/** @example const kit = recordSpans(); … expect(kit.spans().map((span) => span.name)).toEqual([...]); await kit.stop(); */
export function recordSpans(): SpanKit {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    stop: async () => {
      trace.disable();
      await provider.shutdown();
    },
  };
}
