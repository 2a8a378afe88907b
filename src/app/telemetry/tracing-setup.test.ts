import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../core/redact.js';
import { registerExporterHeaderSecrets, startTracingIfWanted, tracingWanted } from './tracing-setup.js';

describe('tracing setup', () => {
  it('wants traces only with an OTLP endpoint, and not when the SDK or the traces exporter is switched off', () => {
    expect(
      [
        {},
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' },
        { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' },
        { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' },
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'TRUE' },
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' },
      ].map(tracingWanted),
    ).toEqual([false, true, true, false, false, false]);
  });

  it('starts nothing without an endpoint', async () => {
    expect(await startTracingIfWanted({}, { version: '0.0.0', onError: () => undefined })).toBeUndefined();
  });

  it('says that gRPC is not spoken when the protocol asks for it', async () => {
    const said: string[] = [];
    const tracing = await startTracingIfWanted(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      { version: '0.0.0', onError: (message) => said.push(message) },
    );
    await tracing?.shutdown();
    expect(said).toEqual([
      "tracing: weft exports OTLP over HTTP (JSON), not gRPC; point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (usually 4318)",
    ]);
  });

  it('treats the values of OTEL_EXPORTER_OTLP_HEADERS as secrets, encoded or not', () => {
    registerExporterHeaderSecrets({
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=team-key-0123456789,authorization=Basic%20dXNlcjpwYXNzd29yZA%3D%3D',
    });
    expect(redactSecrets('team-key-0123456789 / Basic dXNlcjpwYXNzd29yZA==')).toBe(
      '[redacted:OTEL_EXPORTER_OTLP_HEADERS] / [redacted:OTEL_EXPORTER_OTLP_HEADERS]',
    );
  });
});
