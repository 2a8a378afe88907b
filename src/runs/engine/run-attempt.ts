/**
 * What one attempt at a run works with once it is set up: the loaded workflow, the state
 * replayed from the log, the control watcher, the log writer, the files and the sandbox.
 * All of it exists before the first stage starts, so the loop and the stage ports take it
 * whole instead of filling fields in as the attempt goes.
 */
import type { PreparedSandbox } from '../../core/sandbox/index.js';
import type { RunRecord } from '../model/run-record.js';
import type { RunStore } from '../store/run-store.js';
import type { Workflow } from '../workflow/index.js';
import type { ExecutionState } from './execution-state.js';
import type { HeldStarts } from './held-starts.js';
import type { RunControl } from './run-control.js';
import type { RunFiles, WorkspaceHost } from './run-files.js';
import type { RunLog } from './run-log.js';
import type { RunTracing } from './run-tracing.js';
import type { EngineServices, RunSandboxFactory, RunToolboxFactory } from './stage-context.js';
import type { ModelCallStore } from '../store/model-call-store.js';

export interface RunExecutorDeps extends Omit<EngineServices, 'toolbox' | 'runs' | 'sandbox' | 'modelCalls'> {
  /** The executor's own: stages get `stageRuns` over it, never the store. */
  store: RunStore;
  toolboxFactory: RunToolboxFactory;
  /** Absent: runs are never sandboxed (tests of the engine alone). */
  sandboxFactory?: RunSandboxFactory;
  /** Aborts when the runner lost its lease: stop at once and write nothing more. */
  leaseLost: AbortSignal;
  /** The runner whose lease every append is made under; the store refuses it once another runner took the run over. */
  leaseOwner?: string;
  /** Where this host keeps run workspaces; without it every run works in its cwd (in place). */
  workspaces?: WorkspaceHost;
  /** Model-limit slots and windows (`[llm.limits]`); stages get a gate over it bound to the run and `leaseOwner`. */
  modelCalls?: ModelCallStore;
}

export interface RunAttempt {
  run: RunRecord;
  deps: RunExecutorDeps;
  workflow: Workflow;
  state: ExecutionState;
  control: RunControl;
  tracing: RunTracing;
  log: RunLog;
  heldStarts: HeldStarts;
  files: RunFiles;
  sandbox: PreparedSandbox | undefined;
}
