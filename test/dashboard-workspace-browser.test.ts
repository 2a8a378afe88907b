/**
 * The run page's Files panel in a real headless Chromium against a real `weft serve` in a
 * git repository: a run's stage shows the files it changed and its diff, and the Fork
 * button starts a new run after that stage and opens it. Waits are on the page, never on time.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser, loggedOutPage } from './helpers/browser.js';
import { callApi, startServe, TEST_TOKEN, untilStatus, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

let dir: string;
let serve: Serve;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-dash-ws-'));
  writeFileSync(join(dir, 'two.toml'), '[workflow]\nname = "two"\nstart = "make"\n[nodes.make]\nkind = "command"\nrun = "echo made > made.txt"\nnext = "more"\n[nodes.more]\nkind = "command"\nrun = "echo more >> made.txt"\n');
  writeFileSync(join(dir, '.gitignore'), '.home/\n');
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['commit', '-qm', 'start']]) execFileSync('git', args, { cwd: dir, env });
  [serve, browser] = await Promise.all([startServe({ dir }), launchBrowser()]);
  page = await loggedOutPage(browser);
});
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the run page’s Files panel', () => {
  it("shows a stage's changed files and diff, and forks a new run after it", async () => {
    const created = await callApi<{ run: { id: string } }>(serve, 'POST', '/runs', { workflow: 'two.toml', auto_approve: true });
    const id = created.body.run.id;
    await untilStatus(serve, id, 'succeeded');
    await page.goto(`${serve.url}/#/login`);
    await page.fill('#token', TEST_TOKEN);
    await page.click('form.login button[type=submit]');
    await page.waitForSelector('h1:text("Runs")');
    await page.goto(`${serve.url}/#/runs/${id}`);
    // The latest stage is shown: its checkpoint added one line to made.txt.
    await page.waitForSelector('section[aria-label="Files"] .files-summary:text("more@1: 1 file changed, +1 −0")');
    expect(await page.locator('section[aria-label="Files"] pre.diff').textContent()).toContain('+more');
    // "What it produced" links the files the stages wrote (this run kept no artifact).
    const produced = page.locator('section[aria-label="What it produced"]');
    expect(await produced.locator('p.muted').textContent()).toBe('No artifacts: no tool output was cut short.');
    await produced.locator('a[data-files-link]').click();
    await expect.poll(() => page.locator('#run-files').evaluate((files) => (files as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top), { timeout: 30_000 }).toBeLessThan(50);
    await page.click(`tr[data-stage="make@1"] button`);
    await page.waitForSelector('section[aria-label="Files"] .files-summary:text("make@1: 1 file changed, +1 −0")');
    await page.click('section[aria-label="Files"] button[data-action="fork"]');
    await page.waitForURL((url) => url.hash.startsWith('#/runs/') && !url.hash.endsWith(id));
    const forkId = new URL(page.url()).hash.replace('#/runs/', '');
    const fork = await callApi<{ run: { origin: { run_id: string; stage_id: string } | null } }>(serve, 'GET', `/runs/${forkId}`);
    expect(fork.body.run.origin).toMatchObject({ run_id: id, stage_id: 'make@1' });
  });
});
