/**
 * The OpenTelemetry SDK behind weft's spans: a tracer provider with the `weft` service
 * resource (`OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` win), a batch processor and
 * the OTLP/HTTP exporter, which reads its endpoint, headers, timeout and compression from
 * the standard `OTEL_EXPORTER_OTLP_*` variables itself. Loaded only by `tracing-setup.ts`.
 */
import { diag, DiagLogLevel, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { redactSecrets } from '../../core/redact.js';
import type { Tracing } from './tracing-setup.js';

/** How long a process that exits waits for its last spans to be exported. */
const FLUSH_LIMIT_MS = 3000;

export function startOtlpTracing(options: {
  version: string;
  env: Readonly<Record<string, string | undefined>>;
  onError: (message: string) => void;
}): Tracing {
  // The exporter reports failed exports (collector down, 4xx) through `diag`; say them once each, redacted.
  const said = new Set<string>();
  const report = (message: string, ...args: unknown[]) => {
    const text = redactSecrets(
      [message, ...args.map((arg) => (arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : ''))].filter(Boolean).join(' '),
    );
    if (said.has(text)) return;
    said.add(text);
    options.onError(`tracing: ${text}`);
  };
  diag.setLogger(
    { error: report, warn: () => undefined, info: () => undefined, debug: () => undefined, verbose: () => undefined },
    { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true },
  );

  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'weft', [ATTR_SERVICE_VERSION]: options.version }))
    .merge(detectResources({ detectors: [envDetector] }));
  // The spec's default export timeout (10 s, retries included) would hold every command on a collector that is down.
  const timeoutSet = Boolean(options.env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? options.env.OTEL_EXPORTER_OTLP_TIMEOUT);
  const exporter = new OTLPTraceExporter(timeoutSet ? {} : { timeoutMillis: FLUSH_LIMIT_MS });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  // A host application that registered its own provider keeps it; weft's spans go there.
  if (!trace.setGlobalTracerProvider(provider)) {
    void provider.shutdown();
    return { shutdown: async () => undefined };
  }
  return {
    shutdown: async () => {
      // A collector that is down must not hold a command for the exporter's retries (10 s): give up on what is left.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), FLUSH_LIMIT_MS);
        timer.unref();
      });
      try {
        if ((await Promise.race([provider.shutdown(), late])) === 'late')
          report(`spans not exported within ${FLUSH_LIMIT_MS / 1000} s were dropped`);
      } catch (error) {
        report('flushing spans failed', error);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
