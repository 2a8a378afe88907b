/**
 * Workspaces through the HTTP API of a real `weft serve` in a git repository: a run created
 * with `POST /api/v1/runs` gets a worktree (its view says where), `GET /runs/{id}/diff` shows
 * the run's and one stage's changes, `POST /runs/{id}/fork` starts a new run after a stage.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callApi, startServe, untilStatus, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 60_000 });

let serve: Serve | undefined;
let dir: string | undefined;

afterEach(async () => {
  await serve?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const FLOW =
  '[workflow]\nname = "two"\nstart = "make"\n[nodes.make]\nkind = "command"\nrun = "printf \'a\\\\nb\\\\n\' > made.txt"\nnext = "more"\n[nodes.more]\nkind = "command"\nrun = "echo more >> made.txt"\n';

interface RunBody {
  run: {
    id: string;
    status: string;
    workspace: { mode: string; branch: string; subdir: string } | null;
    origin: { run_id: string; stage_id: string } | null;
  };
}

describe('workspaces over HTTP', () => {
  it('creates a run in a worktree, diffs it (whole and per stage), and forks it after a stage', async () => {
    dir = mkdtempSync(join(tmpdir(), 'weft-ws-http-'));
    writeFileSync(join(dir, 'two.toml'), FLOW);
    writeFileSync(join(dir, '.gitignore'), '.home/\n');
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
      });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'start');
    serve = await startServe({ dir });

    const created = await callApi<RunBody>(serve, 'POST', '/runs', { workflow: 'two.toml', auto_approve: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.run.id;
    expect(created.body.run.workspace).toMatchObject({ mode: 'worktree', branch: `weft/runs/${id}`, subdir: '' });
    await untilStatus(serve, id, 'succeeded');

    const whole = await callApi<{ files: unknown[]; lines_added: number; text: string | null; stage_id: string | null }>(
      serve,
      'GET',
      `/runs/${id}/diff?stat=true`,
    );
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({
      stage_id: null,
      files: [{ path: 'made.txt', status: 'A', added: 3, removed: 0, binary: false }],
      lines_added: 3,
      text: null,
    });
    const stage = await callApi<{ stage_id: string; text: string; files_changed: number }>(serve, 'GET', `/runs/${id}/diff?stage=more`);
    expect(stage.body.stage_id).toBe('more@1');
    expect(stage.body.files_changed).toBe(1);
    expect(stage.body.text).toContain('\n+more\n');
    expect(stage.body.text).not.toContain('\n+a\n');

    const forked = await callApi<RunBody>(serve, 'POST', `/runs/${id}/fork`, { from: 'make' });
    expect(forked.status).toBe(200);
    expect(forked.body.run.origin).toEqual({ run_id: id, stage_id: 'make@1', commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    const forkId = forked.body.run.id;
    await callApi(serve, 'POST', `/runs/${forkId}/approve`, {});
    await untilStatus(serve, forkId, 'succeeded');
    const events = await callApi<{ events: { type: string; stage_id: string | null }[] }>(
      serve,
      'GET',
      `/runs/${forkId}/events?types=stage-finished`,
    );
    expect(events.body.events.map((event) => event.stage_id)).toEqual(['make@1', 'more@1']);
    expect(git('show', `weft/runs/${forkId}:made.txt`)).toBe('a\nb\nmore\n');

    const inPlace = await callApi<RunBody>(serve, 'POST', '/runs', { workflow: 'two.toml', workspace: 'in-place', start: false });
    expect(inPlace.body.run.workspace).toBeNull();
    const refused = await callApi<{ error: { code: string; message: string } }>(serve, 'GET', `/runs/${inPlace.body.run.id}/diff`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('WORKSPACE_INVALID');
  });
});
