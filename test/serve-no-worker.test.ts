/**
 * `weft serve --no-worker` executes nothing: a run created over its API starts no runner
 * (neither its own worker nor a detached `weft worker --until-idle`, which it used to launch)
 * and stays queued until a `weft worker` of the operator's picks it up.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { callApi, startServe, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let serve: Serve;

beforeAll(async () => {
  serve = await startServe({ args: ['--no-worker'] });
  writeFileSync(join(serve.dir, 'quick.toml'), '[workflow]\nname = "quick"\n\n[nodes.only]\nkind = "command"\nrun = "echo ran"\n');
});

afterAll(async () => {
  await serve?.stop();
});

describe('weft serve --no-worker', () => {
  it('leaves a created run queued, launching no runner, until a weft worker runs it', async () => {
    const created = await callApi<{ run: { id: string; status: string } }>(serve, 'POST', '/runs', {
      workflow: 'quick.toml',
      auto_approve: true,
    });
    expect(created.status).toBe(201);
    const id = created.body.run.id;
    // A launched runner is spawned while the run is created, its output going to this log.
    expect(existsSync(join(serve.storageDir, 'logs', 'runner.log'))).toBe(false);
    const listed = await callApi<{ run: { status: string } }>(serve, 'GET', `/runs/${id}`);
    expect(listed.body.run.status).toBe('queued');

    const worker = await runCli(['--storage-dir', serve.storageDir, 'worker', '--until-idle'], {
      cwd: serve.dir,
      env: { WEFT_LEASE_MS: '3000' },
    });
    expect(worker.code, worker.stderr).toBe(0);
    expect((await callApi<{ run: { status: string } }>(serve, 'GET', `/runs/${id}`)).body.run.status).toBe('succeeded');
  });
});
