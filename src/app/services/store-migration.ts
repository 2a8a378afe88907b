/**
 * `weft store migrate --to postgres://…`: copies the SQLite store of a storage dir (runs
 * with their whole event logs, hence their questions, and the MCP server catalogue) into
 * PostgreSQL, then checks the counts on both sides. A run that a runner is executing is
 * refused — its log is still growing — and so is the whole copy, before anything is
 * written. Runs already in the target with the same log length are skipped, so a copy
 * that stopped half-way can be run again. Messages show the URL only masked.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WeftError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { eventsOf } from '../../runs/store/event-pages.js';
import { isPostgresUrl, maskDatabaseUrl } from '../../runs/store/postgres/database-url.js';
import type { RunStore } from '../../runs/store/run-store.js';

export interface MigrationReport {
  /** The target, masked. */
  target: string;
  runs: number;
  events: number;
  questions: number;
  mcpServers: number;
  /** Runs found in the target already, with the same number of events. */
  skipped: number;
}

const IN_PROGRESS = new Set(['starting', 'running', 'blocked']);

export async function migrateStoreToPostgres(params: {
  storageDir: string;
  url: string;
  logger: Logger;
  now?: () => number;
}): Promise<MigrationReport> {
  const target = maskDatabaseUrl(params.url);
  if (!isPostgresUrl(params.url))
    throw new WeftError('USAGE', `--to must be a PostgreSQL URL such as postgres://weft@db.internal:5432/weft (got ${target}).`);
  const file = join(params.storageDir, 'weft.db');
  if (!existsSync(file))
    throw new WeftError(
      'USAGE',
      `There is no SQLite store to migrate: ${file} does not exist. Pass --storage-dir with the directory that holds weft.db.`,
    );
  const [{ SqliteRunStore }, { PostgresRunStore }] = await Promise.all([
    import('../../runs/store/sqlite/sqlite-run-store.js'),
    import('../../runs/store/postgres/postgres-run-store.js'),
  ]);
  const source = await SqliteRunStore.open({ storageDir: params.storageDir, logger: params.logger });
  try {
    const runs = await allRuns(source);
    refuseRunsInProgress(runs, (params.now ?? Date.now)());
    const destination = await PostgresRunStore.open({ url: params.url, logger: params.logger });
    try {
      const report: MigrationReport = { target, runs: 0, events: 0, questions: 0, mcpServers: 0, skipped: 0 };
      // Oldest first, so a parent is usually there before its children; a link to a later run waits for another round.
      let waiting = runs.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      while (waiting.length > 0) {
        const missingParent: RunRecord[] = [];
        for (const run of waiting) {
          const copied = await copyOne(source, destination, run).catch((error: unknown) => {
            if (WeftError.is(error, 'RUN_NOT_FOUND') && error.data.runId !== run.id) return 'missing-parent' as const;
            throw error;
          });
          if (copied === 'missing-parent') missingParent.push(run);
          else if (copied === 'skipped') report.skipped += 1;
        }
        if (missingParent.length === waiting.length)
          throw new WeftError(
            'STORE_FAILED',
            `Could not copy ${missingParent.length} run(s) to ${target}: their parent runs are in neither store (first: ${missingParent[0]?.id}).`,
          );
        waiting = missingParent;
      }
      for (const server of await source.listMcpServers()) await destination.putMcpServer(server.name, server.config);
      await verifyCounts(source, destination, runs, target, report);
      return report;
    } finally {
      await destination.close();
    }
  } finally {
    await source.close();
  }
}

async function allRuns(store: RunStore): Promise<RunRecord[]> {
  const runs: RunRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.searchRuns({ archived: 'any', limit: 500, ...(cursor === undefined ? {} : { cursor }) });
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return runs;
}

function refuseRunsInProgress(runs: RunRecord[], now: number): void {
  const busy = runs.filter((run) => IN_PROGRESS.has(run.status) || (run.lease !== undefined && run.lease.expiresAt > now));
  if (busy.length === 0) return;
  const listed = busy
    .slice(0, 5)
    .map((run) => `${run.id} (${run.status})`)
    .join(', ');
  throw new WeftError(
    'RUN_NOT_TERMINAL',
    `Cannot migrate while runs are in progress: ${listed}${busy.length > 5 ? ` and ${busy.length - 5} more` : ''}. Stop the workers of this storage dir, let these runs finish or cancel them (weft cancel <id>), then migrate again; nothing was copied.`,
    { data: { runIds: busy.map((run) => run.id) } },
  );
}

async function copyOne(
  source: RunStore,
  destination: RunStore & { copyRun(id: string, events: readonly RunEvent[]): Promise<void> },
  run: RunRecord,
): Promise<'copied' | 'skipped'> {
  const there = await destination.getRun(run.id);
  if (there !== undefined) {
    if (there.counts.events === run.counts.events) return 'skipped';
    throw new WeftError(
      'STORE_FAILED',
      `Run ${run.id} is in the target already with ${there.counts.events} events, but has ${run.counts.events} here; it was changed on one side after an earlier copy. Resolve by hand (delete it in the target to copy it again).`,
    );
  }
  const events: RunEvent[] = [];
  for await (const event of eventsOf(source, run.id)) events.push(event);
  await destination.copyRun(run.id, events);
  return 'copied';
}

async function verifyCounts(
  source: RunStore,
  destination: RunStore,
  runs: RunRecord[],
  target: string,
  report: MigrationReport,
): Promise<void> {
  for (const run of runs) {
    const [copied, questions, copiedQuestions] = await Promise.all([
      destination.getRun(run.id),
      source.listQuestions(run.id),
      destination.listQuestions(run.id),
    ]);
    if (copied?.counts.events !== run.counts.events || copiedQuestions.length !== questions.length) {
      throw new WeftError(
        'STORE_FAILED',
        `Verification failed for run ${run.id}: ${run.counts.events} events and ${questions.length} questions here, ${copied?.counts.events ?? 0} and ${copiedQuestions.length} in ${target}. Run the migration again.`,
      );
    }
    report.runs += 1;
    report.events += run.counts.events;
    report.questions += questions.length;
  }
  const [servers, copiedServers] = await Promise.all([source.listMcpServers(), destination.listMcpServers()]);
  const names = new Set(copiedServers.map((server) => server.name));
  const missing = servers.filter((server) => !names.has(server.name));
  if (missing.length > 0)
    throw new WeftError(
      'STORE_FAILED',
      `Verification failed: MCP server(s) ${missing.map((server) => server.name).join(', ')} are not in ${target}. Run the migration again.`,
    );
  report.mcpServers = servers.length;
}
