/**
 * A run's own sandbox on every surface, against a real `weft serve` in a git repository (so
 * the run works in its own worktree, not in the cwd): `--sandbox*` on `weft create` and
 * `sandbox` on `POST /api/v1/runs` with their errors; the rules shown by `weft inspect`,
 * `weft_run_get`, `GET /api/v1/runs/{id}` and the dashboard's run page (real Chromium),
 * resolved against the run's worktree; and the rules applied by the runner.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser, loggedOutPage } from './helpers/browser.js';
import { call, connectStdio } from './helpers/mcp-server-kit.js';
import { runCli } from './helpers/run-cli.js';
import { callApi, startServe, TEST_TOKEN, untilStatus, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const OUTSIDE = `/usr/weft-sandbox-surfaces-${process.pid}`;

interface SandboxJson {
  sandboxed: boolean;
  summary: string;
  rules: { mode: 'os'; allow_write: string[]; deny_read: string[]; network: 'none' | { allow: string[] }; max_processes: number } | null;
}

let dir: string;
let serve: Serve;
let browser: Browser;
let page: Page;
let client: Client;
let runId: string;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'weft-sbx-surfaces-')));
  writeFileSync(
    join(dir, 'touch.toml'),
    `[workflow]\nname = "touch"\n[nodes.touch]\nkind = "command"\nrun = "echo inside > made.txt && (touch ${OUTSIDE} 2>&1 || echo refused-outside)"\n`,
  );
  writeFileSync(join(dir, '.gitignore'), '.home/\n');
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['commit', '-qm', 'start'],
  ])
    execFileSync('git', args, { cwd: dir, env });
  [serve, browser] = await Promise.all([startServe({ dir }), launchBrowser()]);
  page = await loggedOutPage(browser);
  client = await connectStdio({ dir, storageDir: serve.storageDir, remove: () => undefined });
  const created = await callApi<{ run: { id: string } }>(serve, 'POST', '/runs', {
    workflow: 'touch.toml',
    auto_approve: true,
    sandbox: { mode: 'os', allow_write: ['cache'], network: { allow: ['registry.npmjs.org'] }, max_processes: 500 },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  runId = created.body.run.id;
  await untilStatus(serve, runId, 'succeeded');
});

afterAll(async () => {
  await client?.close();
  await browser?.close();
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(OUTSIDE, { force: true });
});

function worktree(id: string): string {
  return join(serve.storageDir, 'workspaces', id);
}

describe("a run's own sandbox (sandbox on POST /api/v1/runs)", () => {
  it('is applied by the runner: the stage writes its worktree and is refused outside it', async () => {
    const detail = await callApi<{ stages: { output_preview: string | null }[] }>(serve, 'GET', `/runs/${runId}`);
    expect(detail.body.stages[0]?.output_preview).toContain('Read-only file system');
    expect(existsSync(OUTSIDE)).toBe(false);
  });

  it("is shown by GET /api/v1/runs/{id} with the rules resolved against the run's worktree, not its cwd", async () => {
    const detail = await callApi<{ sandbox: SandboxJson }>(serve, 'GET', `/runs/${runId}`);
    expect(detail.body.sandbox.sandboxed).toBe(true);
    expect(detail.body.sandbox.rules).toMatchObject({ mode: 'os', network: { allow: ['registry.npmjs.org'] }, max_processes: 500 });
    expect(detail.body.sandbox.rules?.allow_write).toEqual([worktree(runId), join(worktree(runId), 'cache')]);
    expect(detail.body.sandbox.rules?.deny_read).toContain(serve.storageDir);
    expect(detail.body.sandbox.summary).toMatch(/^os — writes: /);
  });

  it('is shown by weft_run_get', async () => {
    const got = await call(client, 'weft_run_get', { run_id: runId });
    expect(got.isError, got.text).toBe(false);
    const sandbox = got.data.sandbox as SandboxJson;
    expect(sandbox.sandboxed).toBe(true);
    expect(sandbox.rules?.allow_write[0]).toBe(worktree(runId));
  });

  it('is shown by weft inspect (and --json), against the worktree', async () => {
    const text = await runCli(['--storage-dir', serve.storageDir, 'inspect', runId], { cwd: dir });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`sandbox   os — writes: ${worktree(runId)}, ${join(worktree(runId), 'cache')} and a private /tmp`);
    expect(text.stdout).toContain('network: only registry.npmjs.org');
    const json = await runCli(['--storage-dir', serve.storageDir, 'inspect', runId, '--json'], { cwd: dir });
    const parsed = JSON.parse(json.stdout) as { sandbox: { sandboxed: boolean; rules: { allowWrite: string[] } } };
    expect(parsed.sandbox.sandboxed).toBe(true);
    expect(parsed.sandbox.rules.allowWrite[0]).toBe(worktree(runId));
  });

  it("is shown on the dashboard's run page", async () => {
    await page.goto(`${serve.url}/#/login`);
    await page.fill('#token', TEST_TOKEN);
    await page.click('form.login button[type=submit]');
    await page.waitForSelector('h1:text("Runs")');
    await page.goto(`${serve.url}/#/runs/${runId}`);
    const panel = page.locator('section[aria-label="Sandbox"][data-sandboxed="true"]');
    await panel.waitFor();
    expect(await panel.locator('h2').textContent()).toBe('Sandbox: os');
    expect(await panel.locator('[data-sandbox-write] li').allTextContents()).toEqual([
      worktree(runId),
      join(worktree(runId), 'cache'),
      'a private /tmp',
    ]);
    expect(await panel.locator('[data-sandbox-network] li').allTextContents()).toEqual(['registry.npmjs.org']);
    expect(await panel.locator('[data-sandbox-hidden] li').allTextContents()).toContain(serve.storageDir);
    expect(await panel.locator('[data-sandbox-processes]').textContent()).toBe('at most 500');
  });

  it('refuses bad values naming the field and the fix', async () => {
    const badHost = await callApi<{ error: { message: string } }>(serve, 'POST', '/runs', {
      workflow: 'touch.toml',
      sandbox: { mode: 'os', network: { allow: ['http://evil.example/x'] } },
    });
    expect(badHost.status).toBe(400);
    expect(badHost.body.error.message).toContain(`sandbox: 'network.allow' entry "http://evil.example/x" is not a host name`);
    const badMode = await callApi<{ error: { message: string } }>(serve, 'POST', '/runs', { workflow: 'touch.toml', sandbox: 'docker' });
    expect(badMode.status).toBe(400);
    expect(badMode.body.error.message).toContain('sandbox');
    const few = await call(client, 'weft_run_create', { runs: [{ workflow: 'touch.toml', sandbox: { max_processes: 10 } }] });
    expect(JSON.stringify(few)).toContain("'max_processes' must be an integer ≥ 300");
  });
});

describe('--sandbox on weft create', () => {
  it('makes a run unsandboxed (none) or sandboxed with the flags’ rules (os), shown by inspect', async () => {
    const none = await runCli(['--storage-dir', serve.storageDir, 'create', 'touch.toml', '--sandbox', 'none', '--json'], { cwd: dir });
    expect(none.code, none.stderr).toBe(0);
    const noneId = (JSON.parse(none.stdout) as { id: string }).id;
    const shown = await runCli(['--storage-dir', serve.storageDir, 'inspect', noneId], { cwd: dir });
    expect(shown.stdout).toContain('sandbox   none (processes run with your full permissions)');

    const os = await runCli(
      [
        '--storage-dir',
        serve.storageDir,
        'create',
        'touch.toml',
        '--sandbox',
        'os',
        '--sandbox-network',
        'registry.npmjs.org, *.example.com',
        '--sandbox-deny-read',
        'secrets',
        '--sandbox-max-processes',
        '400',
        '--json',
      ],
      { cwd: dir },
    );
    expect(os.code, os.stderr).toBe(0);
    const osId = (JSON.parse(os.stdout) as { id: string }).id;
    const detail = await callApi<{ sandbox: SandboxJson }>(serve, 'GET', `/runs/${osId}`);
    expect(detail.body.sandbox.rules).toMatchObject({ network: { allow: ['registry.npmjs.org', '*.example.com'] }, max_processes: 400 });
    expect(detail.body.sandbox.rules?.deny_read).toContain(join(worktree(osId), 'secrets'));
  });

  it('refuses bad values with exit code 2, naming the flag', async () => {
    const mode = await runCli(['--storage-dir', serve.storageDir, 'create', 'touch.toml', '--sandbox', 'docker'], { cwd: dir });
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain("option '--sandbox <mode>' argument 'docker' is invalid. Allowed choices are os, none.");
    const host = await runCli(
      ['--storage-dir', serve.storageDir, 'create', 'touch.toml', '--sandbox-network', 'https://registry.npmjs.org/'],
      { cwd: dir },
    );
    expect(host.code).toBe(2);
    expect(host.stderr).toContain(
      '--sandbox-network: entry "https://registry.npmjs.org/" is not a host name: write "example.com", "*.example.com" or "localhost:8080" (no scheme or path)',
    );
    const processes = await runCli(['--storage-dir', serve.storageDir, 'create', 'touch.toml', '--sandbox-max-processes', 'many'], {
      cwd: dir,
    });
    expect(processes.code).toBe(2);
    expect(processes.stderr).toContain('--sandbox-max-processes: must be an integer ≥ 300');
  });
});
