/**
 * The lifecycle every file of workers on one PostgreSQL repeated: a database of the file's
 * own (on the test process's shared server, or on a server of the file's own for tests
 * that stop it), worker clusters on it that are stopped after the test that started them
 * (or after the file, when started outside a test), and the server released after the file.
 * Call `usePgClusters()` at the top of the file: it registers the hooks.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { pgCluster, type PgCluster } from './pg-workers.js';
import { startEmbeddedPostgres, testPostgres, type TestPostgres } from './postgres.js';

export interface PgClusters {
  /** The file's database (set once the file's `beforeAll` hooks have run). */
  readonly url: string;
  /** The server it is on. */
  readonly server: TestPostgres;
  /** Starts a cluster of workers with leases of `leaseMs` on the file's database. */
  start(leaseMs: number): Promise<PgCluster>;
}

/**
 * `ownServer`: a PostgreSQL of the file's own (needed to stop it, also when
 * WEFT_TEST_DATABASE_URL names another server); default the test process's shared one.
 * @example const pg = usePgClusters(); it('…', async () => { const cluster = await pg.start(1000); … });
 */
export function usePgClusters(options: { ownServer?: boolean } = {}): PgClusters {
  let server: TestPostgres | undefined;
  let url: string | undefined;
  let inTest = false;
  const ofTest: PgCluster[] = [];
  const ofFile: PgCluster[] = [];
  const disposeAll = async (clusters: PgCluster[]) => {
    for (const cluster of clusters.splice(0)) await cluster.dispose();
  };

  beforeAll(async () => {
    server = options.ownServer ? await startEmbeddedPostgres() : await testPostgres();
    url = await server.createDatabase();
  });
  beforeEach(() => {
    inTest = true;
  });
  afterEach(async () => {
    inTest = false;
    await disposeAll(ofTest);
  });
  afterAll(async () => {
    await disposeAll(ofFile);
    await server?.dispose();
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`usePgClusters: ${what} is known only once the file's beforeAll hooks have run`);
    return value;
  };
  return {
    get url() {
      return ready(url, 'the database URL');
    },
    get server() {
      return ready(server, 'the server');
    },
    async start(leaseMs) {
      const cluster = await pgCluster(ready(url, 'the database URL'), leaseMs);
      (inTest ? ofTest : ofFile).push(cluster);
      return cluster;
    },
  };
}
