/**
 * Deterministic synthetic runs for the store benchmark: a realistic mix of statuses,
 * labels, workflows and event types, spread over 30 days, exactly `eventsPerRun` events
 * per run (including `run-created`).
 */
import type { NewRunEvent } from '../../src/runs/model/run-event.js';
import type { RunStatus } from '../../src/runs/model/run-status.js';
import type { Random } from '../../src/core/seeded-random.js';
import type { ImportedRun } from '../../src/runs/store/sqlite/sqlite-run-store.js';

export const T0 = Date.UTC(2025, 0, 1);
export const DAY_MS = 24 * 60 * 60 * 1000;
export const TEAMS = ['core', 'web', 'infra', 'data', 'ml', 'mobile', 'security', 'docs', 'billing', 'search'];
const WORKFLOWS = ['fix-issue', 'review-pr', 'release', 'triage', 'refactor'];
const ENVS = ['prod', 'staging', 'dev'];

/** Final status and the share of runs that end in it. */
const OUTCOMES: [RunStatus, number][] = [
  ['succeeded', 0.6],
  ['failed', 0.15],
  ['cancelled', 0.1],
  ['running', 0.05],
  ['queued', 0.05],
  ['blocked', 0.03],
  ['paused', 0.02],
];

const PATHS: Record<string, RunStatus[]> = {
  succeeded: ['queued', 'starting', 'running', 'succeeded'],
  failed: ['queued', 'starting', 'running', 'failed'],
  cancelled: ['queued', 'cancelled'],
  running: ['queued', 'starting', 'running'],
  queued: ['queued'],
  blocked: ['queued', 'starting', 'running', 'blocked'],
  paused: ['queued', 'starting', 'running', 'paused'],
};

function outcome(random: Random): RunStatus {
  let roll = random();
  for (const [status, share] of OUTCOMES) {
    if (roll < share) return status;
    roll -= share;
  }
  return 'succeeded';
}

/** Yields the runs and pushes each run's id into `ids` (for random reads later). */
export function* generateRuns(count: number, eventsPerRun: number, random: Random, ids: string[]): Generator<ImportedRun> {
  const spacing = (30 * DAY_MS) / count;
  for (let index = 0; index < count; index += 1) {
    const createdAt = Math.floor(T0 + index * spacing);
    const id = ulidAt(createdAt, random);
    ids.push(id);
    const path = PATHS[outcome(random)] as RunStatus[];
    const live = path.indexOf('running') + 1;
    const head = live > 0 ? path.slice(0, live) : path.slice(0, 1);
    const tail = live > 0 ? path.slice(live) : path.slice(1);
    const fillers = eventsPerRun - 1 - path.length;
    let at = createdAt;
    const status = (to: RunStatus): NewRunEvent => ({ type: 'run-status-changed', payload: { to }, at: (at += 1000) });
    const events: NewRunEvent[] = [...head.map(status)];
    for (let filler = 0; filler < fillers; filler += 1) events.push(fillerEvent(filler, (at += 5000)));
    events.push(...tail.map(status));
    yield {
      run: {
        id,
        workflow: WORKFLOWS[index % WORKFLOWS.length] as string,
        workflowPath: `workflows/${WORKFLOWS[index % WORKFLOWS.length]}.toml`,
        goal: `Synthetic run ${index}: fix the flaky test in module ${index % 97}`,
        inputs: { issue: index, repository: 'acme/widgets' },
        labels: {
          team: TEAMS[Math.floor(random() * TEAMS.length)] as string,
          env: ENVS[Math.floor(random() * ENVS.length)] as string,
          project: `p${Math.floor(random() * 100)}`,
        },
        cwd: '/work/acme/widgets',
      },
      createdAt,
      events,
    };
  }
}

function fillerEvent(index: number, at: number): NewRunEvent {
  const stageId = `step${Math.floor(index / 4)}@1`;
  switch (index % 4) {
    case 0:
      return { type: 'stage-started', stageId, payload: { node: 'implement', kind: 'agent' }, at };
    case 1:
      return { type: 'tool-call-started', stageId, payload: { tool: 'shell', arguments: { command: 'npm test -- --run' } }, at };
    case 2:
      return { type: 'tool-call-finished', stageId, payload: { tool: 'shell', ok: true, durationMs: 2381, outputBytes: 5120 }, at };
    default:
      return { type: 'stage-finished', stageId, payload: { outcome: 'succeeded', durationMs: 48_113 }, at };
  }
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID whose time part is `at`, so ids sort like their creation times. */
function ulidAt(at: number, random: Random): string {
  let time = '';
  let rest = at;
  for (let index = 0; index < 10; index += 1) {
    time = CROCKFORD[rest % 32] + time;
    rest = Math.floor(rest / 32);
  }
  let tail = '';
  for (let index = 0; index < 16; index += 1) tail += CROCKFORD[Math.floor(random() * 32)];
  return time + tail;
}
