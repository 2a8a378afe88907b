/**
 * A runner started on demand (`weft worker --until-idle`, what `weft run` and the MCP server
 * launch) whose PostgreSQL is gone gives up after a bounded time (WEFT_STORE_GIVE_UP_MS),
 * stopping its stage and exiting with STORE_FAILED and a message saying what to do — it
 * used to stay forever, retrying alone. When the server is back, the run's lease has run
 * out and a new runner finishes it.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { usePgClusters } from './helpers/pg-clusters.js';
import type { PgCluster } from './helpers/pg-workers.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });

const LEASE_MS = 2000;
const pg = usePgClusters({ ownServer: true });
let cluster: PgCluster;
beforeAll(async () => {
  cluster = await pg.start(LEASE_MS);
});

describe('an on-demand runner when PostgreSQL is gone', () => {
  it('gives up with STORE_FAILED after WEFT_STORE_GIVE_UP_MS, and the run is finished by a later runner once the server is back', async () => {
    const marker = `${cluster.ws}/released`;
    const file = await cluster.workflow(
      'hold',
      `[workflow]\nname = "hold"\n\n[nodes.hold]\nkind = "command"\nrun = "while [ ! -e ${marker} ]; do sleep 0.1; done"\n`,
    );
    const id = await cluster.queue(file, 'hold');
    const runner = await cluster.startWorker('w1', { WEFT_STORE_GIVE_UP_MS: '3000' }, ['--until-idle']);
    const exited = new Promise<number | null>((resolve) => runner.child.once('exit', (code) => resolve(code)));
    await vi.waitFor(async () => expect((await cluster.store.getRun(id))?.status).toBe('running'), { timeout: 30_000, interval: 100 });

    await pg.server.stop();
    expect(await exited, runner.stderr()).not.toBe(0);
    // Either the give-up time runs out first, or a write of the running stage fails first (the
    // runner then stops the run it cannot record, as on a full disk): both end the runner
    // non-zero, saying the store is unreachable and what happens to the run.
    expect(runner.stderr()).toMatch(
      /run store has not answered for \d+ s.*this runner gives up|could not be recorded: .*cannot be reached.*This runner stops the run here/s,
    );

    await pg.server.start();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(marker, '');
    const later = await cluster.startWorker('w2', {}, ['--until-idle']);
    const laterExited = new Promise<number | null>((resolve) => later.child.once('exit', (code) => resolve(code)));
    expect(await laterExited, later.stderr()).toBe(0);
    expect((await cluster.store.getRun(id))?.status).toBe('succeeded');
  });
});
