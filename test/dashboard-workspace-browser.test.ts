/**
 * The run page's Files panel in a real headless Chromium against a real `weft serve` in a
 * git repository: a run's stage shows the files it changed and its diff, the Fork button
 * starts a new run after that stage and opens it, and the Rewind button makes a failed run
 * go on from a stage's checkpoint with the abandoned commits kept. Waits are on the page or
 * the run's events, never on time.
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
  writeFileSync(
    join(dir, 'two.toml'),
    '[workflow]\nname = "two"\nstart = "make"\n[nodes.make]\nkind = "command"\nrun = "echo made > made.txt"\nnext = "more"\n[nodes.more]\nkind = "command"\nrun = "echo more >> made.txt"\n',
  );
  writeFileSync(
    join(dir, 'steps.toml'),
    `[workflow]\nname = "steps"\nstart = "one"\n[nodes.one]\nkind = "command"\nrun = "echo one > one.txt"\nnext = "two"\n[nodes.two]\nkind = "command"\nrun = "echo two > two.txt; test -e '${join(dir, '.home', 'flag')}'"\n`,
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
});
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let loggedIn = false;

async function logIn(): Promise<void> {
  if (loggedIn) return;
  await page.goto(`${serve.url}/#/login`);
  await page.fill('#token', TEST_TOKEN);
  await page.click('form.login button[type=submit]');
  await page.waitForSelector('h1:text("Runs")');
  loggedIn = true;
}

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

describe('the run page’s Files panel', () => {
  it("shows a stage's changed files and diff, and forks a new run after it", async () => {
    const created = await callApi<{ run: { id: string } }>(serve, 'POST', '/runs', { workflow: 'two.toml', auto_approve: true });
    const id = created.body.run.id;
    await untilStatus(serve, id, 'succeeded');
    await logIn();
    await page.goto(`${serve.url}/#/runs/${id}`);
    // The latest stage is shown: its checkpoint added one line to made.txt.
    await page.waitForSelector('section[aria-label="Files"] .files-summary:text("more@1: 1 file changed, +1 −0")');
    expect(await page.locator('section[aria-label="Files"] pre.diff').textContent()).toContain('+more');
    // "What it produced" links the files the stages wrote (this run kept no artifact).
    const produced = page.locator('section[aria-label="What it produced"]');
    expect(await produced.locator('p.muted').textContent()).toBe('No artifacts: no tool output was cut short.');
    await produced.locator('a[data-files-link]').click();
    await expect
      .poll(
        () =>
          page
            .locator('#run-files')
            .evaluate((files) => (files as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top),
        { timeout: 30_000 },
      )
      .toBeLessThan(50);
    await page.click(`tr[data-stage="make@1"] button`);
    await page.waitForSelector('section[aria-label="Files"] .files-summary:text("make@1: 1 file changed, +1 −0")');
    await page.click('section[aria-label="Files"] button[data-action="fork"]');
    await page.waitForURL((url) => url.hash.startsWith('#/runs/') && !url.hash.endsWith(id));
    const forkId = new URL(page.url()).hash.replace('#/runs/', '');
    const fork = await callApi<{ run: { origin: { run_id: string; stage_id: string } | null } }>(serve, 'GET', `/runs/${forkId}`);
    expect(fork.body.run.origin).toMatchObject({ run_id: id, stage_id: 'make@1' });
  });

  it('rewinds a failed run to a stage: it goes on from that checkpoint and the abandoned commits stay reachable', async () => {
    const created = await callApi<{ run: { id: string } }>(serve, 'POST', '/runs', { workflow: 'steps.toml', auto_approve: true });
    const id = created.body.run.id;
    await untilStatus(serve, id, 'failed');
    const failedTip = git('rev-parse', `weft/runs/${id}`);
    const oneCheckpoint = git('rev-parse', `weft/runs/${id}~1`);
    expect(git('show', `${failedTip}:two.txt`)).toBe('two');
    await logIn();
    await page.goto(`${serve.url}/#/runs/${id}`);
    // The panel first loads the latest checkpoint on its own: picking a stage before that lands would be overwritten by it.
    await page.waitForSelector('section[aria-label="Files"] .files-summary');
    await page.click(`tr[data-stage="one@1"] button`);
    await page.waitForSelector('section[aria-label="Files"] .files-summary:text("one@1: 1 file changed, +1 −0")');
    writeFileSync(join(dir, '.home', 'flag'), '');
    await page.click('section[aria-label="Files"] button[data-action="rewind"]');
    const events = await untilStatus(serve, id, 'succeeded');
    const rewound = events.find((event) => event.data.type === 'run-rewound');
    expect(rewound?.data.payload).toMatchObject({
      toStage: 'one@1',
      abandonedCommit: failedTip,
      abandonedRef: `refs/weft/abandoned/${id}/1`,
    });
    // Nothing destroyed: the failed attempt's checkpoint is kept under a ref; the branch went on from one@1's checkpoint.
    expect(git('rev-parse', `refs/weft/abandoned/${id}/1`)).toBe(failedTip);
    expect(git('rev-parse', `weft/runs/${id}~1`)).toBe(oneCheckpoint);
    expect(git('log', '--format=%s', `weft/runs/${id}`, '^main')).toBe('weft: two@2\nweft: one@1');
    const finishes = events.filter((event) => event.data.type === 'stage-finished').map((event) => String(event.data.payload.status));
    expect(finishes).toEqual(['succeeded', 'failed', 'succeeded']);
  });
});
