/**
 * Test support for the engine: a temp workspace with workflow files, an in-memory or
 * SQLite store, a run service, and a worker that executes until idle. Used by the
 * engine's tests only.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../../src/core/ids.js';
import { silentLogger } from '../../src/core/logger.js';
import type { ApprovalRule } from '../../src/tools/approval-policy.js';
import { fileArtifactSink } from '../../src/tools/artifact-sink.js';
import { buildToolbox } from '../../src/tools/toolbox.js';
import type { Tool } from '../../src/tools/tool.js';
import type { RunEvent } from '../../src/runs/model/run-event.js';
import type { RunRecord } from '../../src/runs/model/run-record.js';
import { RunService } from '../../src/app/services/run-service.js';
import { MemoryRunStore } from '../../src/runs/store/memory/memory-run-store.js';
import type { RunStore } from '../../src/runs/store/run-store.js';
import type { AgentStageRunner, RunSandboxFactory, RunToolboxFactory } from '../../src/runs/engine/stage-context.js';
import { Worker } from '../../src/runs/engine/worker.js';
import type { ModelCallStore } from '../../src/runs/store/model-call-store.js';

export interface EngineKit {
  dir: string;
  store: RunStore;
  service: RunService;
  write(name: string, text: string): Promise<string>;
  /** Runs a worker in the background until `stop()` (or until idle for `idleExitMs`); `done` is its end. */
  startWorker(options?: { agent?: AgentStageRunner; maxParallel?: number; idleExitMs?: number }): {
    stop(): Promise<void>;
    worker: Worker;
    done: Promise<void>;
  };
  /** Executes until nothing is left to run. */
  runUntilIdle(options?: { agent?: AgentStageRunner }): Promise<void>;
  until(runId: string, predicate: (run: RunRecord) => boolean, what: string): Promise<RunRecord>;
  events(runId: string): Promise<RunEvent[]>;
  close(): Promise<void>;
}

export interface EngineKitOptions {
  store?: RunStore;
  extraTools?: Tool[];
  rules?: ApprovalRule[];
  /** How often workers poll (default 20 ms); an hour shows that change notices alone drive them. */
  pollMs?: number;
  /** Whether creating a run wakes the kit's workers directly (default true), as `weft run` does. */
  wakeOnCreate?: boolean;
  /** Each run's sandbox (default: none). */
  sandboxFactory?: RunSandboxFactory;
  /** Model-limit slots and windows (`[llm.limits]`); default none: calls are not limited. */
  modelCalls?: ModelCallStore;
}

export async function createEngineKit(options: EngineKitOptions = {}): Promise<EngineKit> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-engine-'));
  const store = options.store ?? new MemoryRunStore();
  const workers: Worker[] = [];
  const service = new RunService({
    store,
    clock: Date.now,
    wakeRunners: () => (options.wakeOnCreate === false ? undefined : workers.forEach((worker) => worker.wake())),
  });
  const toolboxFactory: RunToolboxFactory = async (run, workflow, askApproval, _bridge, _workDir, sandbox) => {
    const { registry, executor } = buildToolbox({
      builtins: {},
      tools: options.extraTools ?? [],
      rules: [...(options.rules ?? []), ...workflow.run.approval],
      approvalMode: { interactive: false, autoApprove: run.autoApprove, sandboxed: sandbox !== undefined },
      artifacts: fileArtifactSink(join(dir, '.artifacts')),
      ...(sandbox ? { sandbox } : {}),
      logger: silentLogger,
      askApproval,
    });
    return { registry, executor, close: async () => {} };
  };
  const makeWorker = (agent?: AgentStageRunner, maxParallel = 8, idleExitMs?: number) =>
    new Worker({
      store,
      workerId: `test-${newId()}`,
      logger: silentLogger,
      clock: Date.now,
      newId,
      toolboxFactory,
      ...(options.sandboxFactory ? { sandboxFactory: options.sandboxFactory } : {}),
      ...(options.modelCalls ? { modelCalls: options.modelCalls } : {}),
      agent,
      leaseMs: 5000,
      heartbeatMs: 1000,
      maxParallel,
      pollMs: options.pollMs ?? 20,
      idleExitMs,
    });

  const kit: EngineKit = {
    dir,
    store,
    service,
    write: async (name, text) => {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
    startWorker: (workerOptions = {}) => {
      const worker = makeWorker(workerOptions.agent, workerOptions.maxParallel, workerOptions.idleExitMs);
      workers.push(worker);
      const controller = new AbortController();
      const done = worker.run(controller.signal);
      return {
        worker,
        done,
        stop: async () => {
          controller.abort();
          await done;
        },
      };
    },
    runUntilIdle: async (workerOptions = {}) => {
      const worker = makeWorker(workerOptions.agent, 8, 0);
      workers.push(worker);
      await worker.run(new AbortController().signal);
    },
    until: async (runId, predicate, what) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const run = await service.get(runId);
        if (predicate(run)) return run;
        if (Date.now() > deadline) throw new Error(`timed out waiting for run ${runId} to be ${what}; it is ${run.status}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    events: async (runId) => store.listEvents(runId, { limit: 1000 }),
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return kit;
}

/** Runs the workflow (TOML, written as `wf.toml`) to the end, auto-approved: the run as it ended and its events. */
export async function runToEnd(
  kit: EngineKit,
  toml: string,
  request: { inputs?: Record<string, unknown> } = {},
): Promise<{ run: RunRecord; events: RunEvent[] }> {
  const file = await kit.write('wf.toml', toml);
  const run = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true, ...request });
  await kit.runUntilIdle();
  return { run: await kit.service.get(run.id), events: await kit.events(run.id) };
}

/** `[stageId, status]` of every finished stage, in order. */
export function finishedStages(events: readonly RunEvent[]): [string, string][] {
  return events.filter((event) => event.type === 'stage-finished').map((event) => [event.stageId ?? '', String(event.payload.status)]);
}

export function statusChanges(events: readonly RunEvent[]): string[] {
  return events.filter((event) => event.type === 'run-status-changed').map((event) => String(event.payload.to));
}
