/**
 * Executes one run that this runner has claimed: replays its log to find where it stands,
 * sets the attempt up (status, trace, the run's files reset to their last checkpoint, the
 * sandbox) and hands it to the run loop (`run-loop.ts`), which starts stages, follows edges
 * and ends the run — or stops when asked to cancel or interrupt. Every step is an event,
 * written before the run moves on, so another runner can pick up from the log alone.
 */
import { errorMessage } from '../../core/errors.js';
import type { PreparedSandbox } from '../../core/sandbox/index.js';
import { ENGINE_EVENT } from '../model/event-types.js';
import type { RunEvent } from '../model/run-event.js';
import type { RunRecord } from '../model/run-record.js';
import { eventsOf } from '../store/event-pages.js';
import { loadWorkflow, type Workflow } from '../workflow/index.js';
import { replay } from './execution-state.js';
import { HeldStarts } from './held-starts.js';
import type { RunAttempt, RunExecutorDeps } from './run-attempt.js';
import { RunControl } from './run-control.js';
import { inPlaceFiles, openRunFiles, type RunFiles } from './run-files.js';
import { RunLog, type RunLogDeps } from './run-log.js';
import { RunLoop } from './run-loop.js';
import { RunTracing } from './run-tracing.js';
import { withDiskFullNote } from './disk-full.js';
import { recordViolation } from './sandbox-violations.js';
import { lastStarted } from './stage-ports.js';

export type { RunExecutorDeps } from './run-attempt.js';

/** An attempt before its files and sandbox are open. */
type AttemptSetup = Omit<RunAttempt, 'files' | 'sandbox'>;

export class RunExecutor {
  readonly #run: RunRecord;
  readonly #deps: RunExecutorDeps;

  constructor(run: RunRecord, deps: RunExecutorDeps) {
    this.#run = run;
    this.#deps = deps;
  }

  async execute(): Promise<void> {
    const events: RunEvent[] = [];
    for await (const event of eventsOf(this.#deps.store, this.#run.id)) events.push(event);
    const tracing = new RunTracing(this.#run, events);
    const { store, leaseLost, leaseOwner } = this.#deps;
    const heldStarts = new HeldStarts();
    const logDeps: RunLogDeps = { store, leaseLost, heldStarts, ...(leaseOwner === undefined ? {} : { leaseOwner }) };
    let workflow: Workflow;
    try {
      workflow = await loadWorkflow(this.#run.workflowPath);
    } catch (error) {
      const log = new RunLog(this.#run, logDeps);
      try {
        await log.moveTo('starting');
        await log.finish('failed', `workflow ${this.#run.workflowPath} cannot be loaded: ${errorMessage(error)}`);
      } finally {
        tracing.end(log.status, log.endReason);
      }
      return;
    }
    const state = replay(events, workflow.start);
    // Control requests count from the start of this attempt: a cancel before a retry is history.
    const control = new RunControl(store, this.#run.id, state.attemptStartSeq, this.#deps.pollMs);
    const onAppended = (appended: RunEvent[]) => {
      state.lastSeq = appended.at(-1)?.seq ?? state.lastSeq;
      control.skipOwn(appended);
    };
    const log = new RunLog(this.#run, { ...logDeps, onAppended });
    try {
      await this.#attempt({ run: this.#run, deps: this.#deps, workflow, state, control, tracing, log, heldStarts }, events);
    } finally {
      tracing.end(log.status, log.endReason);
    }
  }

  async #attempt(setup: AttemptSetup, events: RunEvent[]): Promise<void> {
    const { control, tracing, log } = setup;
    control.start(events);
    let loop: RunLoop | undefined;
    let sandbox: PreparedSandbox | undefined;
    try {
      const traceparent = tracing.newTraceparent;
      if (traceparent !== undefined) await log.append([{ type: ENGINE_EVENT.traceStarted, payload: { traceparent } }]);
      // A blocked stage blocks the run again itself; a paused run waits for resume.
      await log.start();
      const files = await this.#openFiles(events, log);
      if (files === undefined) return;
      const prepared = await this.#prepareSandbox(setup, files);
      if (prepared === undefined) return;
      sandbox = prepared.sandbox;
      loop = new RunLoop({ ...setup, files, sandbox });
      await loop.run();
    } finally {
      control.stop();
      await loop?.close();
      await sandbox?.dispose();
    }
  }

  /** The run's files on this host, reset to the last checkpoint before any stage runs; a workspace that cannot be opened fails the run. */
  async #openFiles(events: RunEvent[], log: RunLog): Promise<RunFiles | undefined> {
    const host = this.#deps.workspaces;
    if (host === undefined || this.#run.dryRun) return inPlaceFiles(this.#run);
    try {
      return await openRunFiles(this.#run, events, host, (recorded) => log.append(recorded));
    } catch (error) {
      if (!this.#deps.leaseLost.aborted)
        await log.finish('failed', `the run's workspace cannot be opened on this host: ${await withDiskFullNote(host.root, error)}`);
      return undefined;
    }
  }

  /** The run's sandbox around its workspace; one that cannot be made fails the run before any stage, never running it unsandboxed. */
  async #prepareSandbox(setup: AttemptSetup, files: RunFiles): Promise<{ sandbox: PreparedSandbox | undefined } | undefined> {
    const { workflow, state, tracing, log } = setup;
    const sink = {
      runId: this.#run.id,
      tracing,
      logger: this.#deps.logger,
      lastStage: () => lastStarted(state),
      append: (events: Parameters<RunLog['append']>[0]) => log.append(events),
    };
    try {
      return {
        sandbox: await this.#deps.sandboxFactory?.(
          this.#run,
          workflow,
          (violation) => void recordViolation(violation, sink),
          files.workDir,
        ),
      };
    } catch (error) {
      if (!this.#deps.leaseLost.aborted) await log.finish('failed', errorMessage(error));
      return undefined;
    }
  }
}
