/**
 * Shared fixture of the RunStore contract: a store built by the implementation under test
 * with a hand-driven clock and real ULIDs, plus helpers to create runs and catch errors.
 */
import { afterEach, beforeEach } from 'vitest';
import { WeftError, type WeftErrorCode } from '../../src/core/errors.js';
import { newId, type IdGenerator } from '../../src/core/ids.js';
import type { RunRecord } from '../../src/runs/model/run-record.js';
import type { RunStatus } from '../../src/runs/model/run-status.js';
import type { Clock, CreateRunParams, RunStore } from '../../src/runs/store/run-store.js';

export type MakeRunStore = (deps: { clock: Clock; newId: IdGenerator }) => Promise<RunStore>;

export const T0 = Date.UTC(2025, 0, 1);

export interface ContractContext {
  store: RunStore;
  /** Moves the injected clock forward. */
  advance(ms: number): void;
  now(): number;
  create(params?: Partial<CreateRunParams>): Promise<RunRecord>;
  /** Creates a run and walks it through the given statuses. */
  createIn(status: RunStatus, params?: Partial<CreateRunParams>): Promise<RunRecord>;
  /** Opens a second store on the same data (same process), where the implementation allows it. */
  make: MakeRunStore;
  clock: Clock;
}

const PATH_TO: Record<RunStatus, RunStatus[]> = {
  submitted: [],
  pending: ['pending'],
  queued: ['queued'],
  starting: ['queued', 'starting'],
  running: ['queued', 'starting', 'running'],
  blocked: ['queued', 'starting', 'running', 'blocked'],
  paused: ['queued', 'starting', 'running', 'paused'],
  succeeded: ['queued', 'starting', 'running', 'succeeded'],
  failed: ['queued', 'starting', 'failed'],
  cancelled: ['queued', 'cancelled'],
};

/** Registers before/after hooks and returns a context whose fields are live in each test. */
export function useContractStore(make: MakeRunStore): ContractContext {
  let now = T0;
  const clock: Clock = () => now;
  const context = {
    advance: (ms: number) => {
      now += ms;
    },
    now: () => now,
    clock,
    make,
  } as ContractContext;
  context.create = (params = {}) =>
    context.store.createRun({ workflow: 'build', workflowPath: 'workflows/build.toml', cwd: '/work/project', ...params });
  context.createIn = async (status, params = {}) => {
    const run = await context.create(params);
    const path = PATH_TO[status];
    if (path.length === 0) return run;
    await context.store.appendEvents(
      run.id,
      path.map((to) => ({ type: 'run-status-changed', payload: { to } })),
    );
    return (await context.store.getRun(run.id)) as RunRecord;
  };
  beforeEach(async () => {
    now = T0;
    context.store = await make({ clock, newId });
  });
  afterEach(async () => {
    await context.store.close();
  });
  return context;
}

/** The WeftError a promise rejects with; fails the test if it resolves or throws something else. */
export async function rejection(promise: Promise<unknown>, code: WeftErrorCode): Promise<WeftError> {
  try {
    await promise;
  } catch (error) {
    if (WeftError.is(error, code)) return error;
    throw new Error(
      `expected a WeftError ${code}, got ${error instanceof Error ? `${error.name} ${(error as WeftError).code ?? ''}: ${error.message}` : String(error)}`,
      { cause: error },
    );
  }
  throw new Error(`expected a WeftError ${code}, but the call succeeded`);
}
