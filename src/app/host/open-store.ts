/**
 * Which run store this process uses: PostgreSQL when `WEFT_DATABASE_URL` or `[store] url`
 * names one (every host pointed at it shares runs, leases and artifacts), else the SQLite
 * file in the storage dir — the zero-setup default. Each kind loads only when chosen.
 */
import { WeftError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { Settings } from '../../core/settings/settings.js';
import type { Clock, RunStore } from '../../runs/store/run-store.js';
import type { ScheduleStore } from '../../runs/store/schedule-store.js';
import type { ModelCallStore } from '../../runs/store/model-call-store.js';
import { isPostgresUrl, maskDatabaseUrl } from '../../runs/store/postgres/database-url.js';
import type { ArtifactSink } from '../../tools/artifact-sink.js';

export interface OpenedStore {
  store: RunStore;
  /** Schedules and webhook triggers, in the same database as the runs. */
  schedules: ScheduleStore;
  /** Model-limit slots and windows (`[llm.limits]`), in the same database as the runs. */
  modelCalls: ModelCallStore;
  /**
   * The time the store stamps and leases with: the database's for a shared store (hosts'
   * clocks differ), else this host's. Whatever compares a lease's expiry or a change time
   * with "now" uses this.
   */
  clock: Clock;
  /** Where a run's full tool outputs go: the database when it is shared, else files in the storage dir. */
  artifacts(runId: string): ArtifactSink;
  /** The content of an artifact kept in the database (`weft-artifact:<id>` or the bare id). */
  readArtifact(ref: string): Promise<string>;
}

/** The URL of the shared store, if one is configured; the environment wins over settings. */
export function databaseUrl(env: Record<string, string | undefined>, settings: Pick<Settings, 'storeUrl'>): string | undefined {
  const fromEnv = env.WEFT_DATABASE_URL?.trim();
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!isPostgresUrl(fromEnv))
      throw new WeftError(
        'USAGE',
        `WEFT_DATABASE_URL must be a PostgreSQL URL such as postgres://weft@db.internal:5432/weft (got ${maskDatabaseUrl(fromEnv)}). Unset it to use the SQLite store in the storage dir.`,
      );
    return fromEnv;
  }
  return settings.storeUrl;
}

export async function openStore(params: {
  storageDir: string;
  env: Record<string, string | undefined>;
  settings: Pick<Settings, 'storeUrl'>;
  logger: Logger;
}): Promise<OpenedStore> {
  const url = databaseUrl(params.env, params.settings);
  if (url !== undefined) {
    const [{ PostgresRunStore }, { postgresArtifactSink, ARTIFACT_REF_PREFIX }] = await Promise.all([
      import('../../runs/store/postgres/postgres-run-store.js'),
      import('../../runs/store/postgres/pg-artifacts.js'),
    ]);
    const store = await PostgresRunStore.open({ url, logger: params.logger });
    return {
      store,
      schedules: store.schedules(),
      modelCalls: store.modelCalls(),
      clock: () => store.now(),
      artifacts: (runId) => postgresArtifactSink(store, runId),
      async readArtifact(ref) {
        const id = ref.startsWith(ARTIFACT_REF_PREFIX) ? ref.slice(ARTIFACT_REF_PREFIX.length) : ref;
        const artifact = await store.readArtifact(id);
        if (artifact === undefined)
          throw new WeftError(
            'FILE_NOT_FOUND',
            `No artifact ${id} in ${store.database}; copy the id from the 'Full output saved to weft-artifact:<id>' note.`,
          );
        return artifact.content;
      },
    };
  }
  const [{ SqliteRunStore }, { fileArtifactSink }, { join }] = await Promise.all([
    import('../../runs/store/sqlite/sqlite-run-store.js'),
    import('../../tools/artifact-sink.js'),
    import('node:path'),
  ]);
  const store = await SqliteRunStore.open({ storageDir: params.storageDir, logger: params.logger });
  return {
    store,
    schedules: store.schedules(),
    modelCalls: store.modelCalls(),
    clock: Date.now,
    artifacts: (runId) => fileArtifactSink(join(params.storageDir, 'artifacts', runId)),
    readArtifact: async () => {
      throw new WeftError(
        'USAGE',
        `This storage dir keeps tool outputs as files under ${join(params.storageDir, 'artifacts')}; open the path the output note names. Only a PostgreSQL store keeps them in the database.`,
      );
    },
  };
}
