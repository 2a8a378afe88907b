/**
 * Records what a run's sandbox refused: a `sandbox-violation` event and a span event, on
 * the stage started last (the proxy and a process's stderr cannot tell which stage asked).
 * A violation that cannot be recorded is logged, never thrown into the sandbox's reader.
 */
import { describeViolation, type SandboxViolation } from '../../core/sandbox/index.js';
import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { ENGINE_EVENT, type SandboxViolationPayload } from '../model/event-types.js';
import type { NewRunEvent } from '../model/run-event.js';
import type { RunTracing } from './run-tracing.js';

export interface ViolationSink {
  runId: string;
  tracing: RunTracing;
  logger: Logger;
  /** The stage started last, if one is in flight. */
  lastStage: () => string | undefined;
  append: (events: NewRunEvent[]) => Promise<unknown>;
}

export async function recordViolation(violation: SandboxViolation, sink: ViolationSink): Promise<void> {
  const { kind, setting } = violation;
  const refused = violation.kind === 'network' ? `${violation.host}:${violation.port}` : violation.path;
  const payload: SandboxViolationPayload = {
    kind,
    setting,
    message: describeViolation(violation),
    ...(violation.kind === 'network' ? { host: violation.host, port: violation.port } : { path: violation.path }),
  };
  const stageId = sink.lastStage();
  sink.tracing.violation(stageId, { 'weft.sandbox.kind': kind, 'weft.sandbox.setting': setting, 'weft.sandbox.refused': refused });
  await sink
    .append([{ type: ENGINE_EVENT.sandboxViolation, ...(stageId === undefined ? {} : { stageId }), payload }])
    .catch((error: unknown) => sink.logger.warn(`could not record a sandbox violation of ${sink.runId}: ${errorMessage(error)}`));
}
