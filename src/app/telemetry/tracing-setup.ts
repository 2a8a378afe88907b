/**
 * Whether this process exports traces, decided from the standard OpenTelemetry variables
 * alone, and the SDK loaded only when it does: without `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) nothing of the SDK or the exporter is imported and
 * every span weft starts is the API's no-op.
 */
import { registerEncodedSecret } from '../../core/redact.js';

export interface Tracing {
  /** Exports every ended span and stops; call before the process exits. */
  shutdown(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none` switch tracing off as the spec says. */
export function tracingWanted(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/**
 * Header values (`key=value,…`, often an API key for a hosted collector) are secrets
 * whatever the variable's name: never printed, stored or exported.
 */
export function registerExporterHeaderSecrets(env: Env): void {
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']) {
    for (const pair of (env[name] ?? '').split(',')) {
      if (pair.includes('=')) registerEncodedSecret(pair.slice(pair.indexOf('=') + 1).trim(), name);
    }
  }
}

/**
 * Starts exporting traces when the environment asks for it; undefined otherwise.
 *
 * @example const tracing = await startTracingIfWanted(process.env, { version: '0.1.0', logger }); … await tracing?.shutdown();
 */
export async function startTracingIfWanted(
  env: Env,
  options: { version: string; onError: (message: string) => void },
): Promise<Tracing | undefined> {
  registerExporterHeaderSecrets(env);
  if (!tracingWanted(env)) return undefined;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol === 'grpc')
    options.onError(
      "tracing: weft exports OTLP over HTTP (JSON), not gRPC; point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (usually 4318)",
    );
  const { startOtlpTracing } = await import('./otlp-tracing.js');
  return startOtlpTracing({ ...options, env });
}
