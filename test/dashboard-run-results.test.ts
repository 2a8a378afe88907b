/**
 * What a run came to, in a real headless Chromium against a real `weft serve` (built CLI,
 * its own runner, SQLite in a temp storage dir): a success with a failed optional stage
 * told apart from a clean one (list and run page, from the API's count), Run again with
 * edited inputs, the tree of child and grandchild runs with links both ways, the artifacts
 * a run kept (view and download) beside its Files, keyboard focus kept when what held it
 * goes away, and relative times that tick under a clock the test moves. Every wait is on a condition, never on time.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { launchBrowser, loggedOutPage } from './helpers/browser.js';
import { callApi, startServe, TEST_TOKEN, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

let serve: Serve;
let browser: Browser;
let page: Page;

interface RunView {
  id: string;
  status: string;
  inputs: Record<string, unknown>;
  goal: string;
  labels: Record<string, string>;
  workflow: string;
  counts: { failed_optional_stages: number };
}

/** expect.poll waits 1 s by default; the page and the runner may take longer on a busy machine. */
const POLL = { timeout: 60_000, interval: 100 };

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await callApi<T>(serve, method, path, body);
  if (answer.status >= 400) throw new Error(`${method} ${path} → ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function createRun(workflow: string, options: Record<string, unknown> = {}): Promise<RunView> {
  return (await api<{ run: RunView }>('POST', '/runs', { workflow, auto_approve: true, ...options })).run;
}

async function finished(id: string): Promise<RunView> {
  let run: RunView | undefined;
  await expect
    .poll(async () => {
      run = (await api<{ run: RunView }>('GET', `/runs/${id}`)).run;
      return ['succeeded', 'failed', 'cancelled'].includes(run.status);
    }, POLL)
    .toBe(true);
  return run!;
}

async function logIn(): Promise<void> {
  // A fresh document for each test: a hash change alone would keep the last test's page, its
  // live streams and timers running underneath.
  await page.goto('about:blank');
  await page.goto(`${serve.url}/#/login`);
  await page.fill('#token', TEST_TOKEN);
  await page.click('form.login button[type=submit]');
  await page.waitForSelector('h1:text("Runs")');
}

const badge = (status: string) => page.locator(`.run-head .badge[data-status="${status}"]`);

beforeAll(async () => {
  [serve, browser] = await Promise.all([startServe(), launchBrowser()]);
  const write = (name: string, text: string) => writeFileSync(join(serve.dir, name), text);
  // `lint` fails and the workflow routes on it: the run goes on and succeeds.
  write(
    'optional.toml',
    '[nodes.lint]\nkind = "command"\nrun = "exit 1"\n\n[[nodes.lint.edges]]\nto = "build"\nwhen = \'status == "failed"\'\n\n[[nodes.lint.edges]]\nto = "build"\n\n[nodes.build]\nkind = "command"\nrun = "echo built"\n',
  );
  write('clean.toml', '[nodes.build]\nkind = "command"\nrun = "echo built"\n');
  write(
    'release.toml',
    '[inputs.version]\nrequired = true\n\n[inputs.count]\ntype = "integer"\ndefault = 2\n\n[inputs.dry]\ntype = "boolean"\n\n[nodes.show]\nkind = "command"\nrun = "echo {{ inputs.version }} x{{ inputs.count }} {{ inputs.dry }}"\n',
  );
  write('top.toml', '[nodes.spawn]\nkind = "child"\nworkflow = "middle.toml"\n');
  write('middle.toml', '[nodes.spawn]\nkind = "child"\nworkflow = "leaf.toml"\n');
  write('leaf.toml', '[nodes.hello]\nkind = "command"\nrun = "echo leaf"\n');
  write(
    'ask.toml',
    '[nodes.ask]\nkind = "human"\nquestion = "Go on?"\ntype = "yes_no"\nnext = "hold"\n\n[nodes.hold]\nkind = "command"\nrun = "while [ ! -f hold.gate ]; do sleep 0.05; done"\n',
  );
  // 40,000 lines are past the 100 KiB output budget: the whole output is kept as an artifact.
  write('dump.toml', '[nodes.dump]\nkind = "tool"\ntool = "shell"\nargs = { command = "seq 1 40000" }\n');
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

beforeEach(async () => {
  page = await loggedOutPage(browser);
});
afterEach(async () => {
  await page.close();
});

describe('dashboard: what a run came to', () => {
  it('marks a success with a failed optional stage apart from a clean one, in the list and on the run page', async () => {
    const partial = await finished((await createRun('optional.toml')).id);
    const clean = await finished((await createRun('clean.toml')).id);
    expect([partial.status, partial.counts.failed_optional_stages]).toEqual(['succeeded', 1]);
    expect([clean.status, clean.counts.failed_optional_stages]).toEqual(['succeeded', 0]);
    const listed = await api<{ runs: { id: string; failed_optional_stages: number }[] }>('GET', '/runs?limit=10');
    expect(listed.runs.find((run) => run.id === partial.id)?.failed_optional_stages).toBe(1);

    await logIn();
    const row = (id: string) => page.locator(`tr[data-run="${id}"]`);
    await row(clean.id).waitFor();
    expect(await row(partial.id).locator('.partial').textContent()).toBe('with 1 failed optional stage');
    expect(await row(clean.id).locator('.partial').count()).toBe(0);
    // The succeeded chip itself is drawn in the warning colour, not the clean green.
    const colour = (id: string) =>
      row(id)
        .locator('.badge')
        .evaluate(
          (element) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(element)
              .backgroundColor,
        );
    expect(await colour(partial.id)).not.toBe(await colour(clean.id));

    await page.goto(`${serve.url}/#/runs/${partial.id}`);
    await badge('succeeded').waitFor();
    expect(await page.locator('.run-head .partial').textContent()).toBe('with 1 failed optional stage');
    await page.goto(`${serve.url}/#/runs/${clean.id}`);
    await page.locator('tr[data-stage="build@1"]').waitFor();
    expect(await page.locator('.run-head .partial').count()).toBe(0);
  });

  it('runs again with inputs edited in a form filled with the run’s own', async () => {
    const first = await finished(
      (await createRun('release.toml', { inputs: { version: '1.2.0', count: 5, dry: true }, goal: 'ship it', labels: { team: 'web' } })).id,
    );
    await logIn();
    await page.goto(`${serve.url}/#/runs/${first.id}`);
    await page.click('button[data-action="rerun-edit"]');
    const form = page.locator(`details.new-run[data-rerun="${first.id}"]`);
    const version = form.locator('#new-input-version');
    await expect.poll(() => version.inputValue(), POLL).toBe('1.2.0');
    expect(await form.locator('#new-input-count').inputValue()).toBe('5');
    expect(await form.locator('#new-input-dry').isChecked()).toBe(true);
    expect(await form.locator('#new-goal').inputValue()).toBe('ship it');
    expect(await form.locator('#new-labels').inputValue()).toBe('team=web');

    await version.fill('1.3.0');
    await form.locator('#new-input-dry').uncheck();
    await form.locator('button[type=submit]').click();
    await page.waitForURL((url) => url.hash.startsWith('#/runs/') && !url.hash.endsWith(first.id));
    const id = new URL(page.url()).hash.slice('#/runs/'.length);
    const second = await finished(id);
    expect([second.workflow, second.inputs, second.goal, second.labels, second.status]).toEqual([
      'release',
      { version: '1.3.0', count: 5, dry: false },
      'ship it',
      { team: 'web' },
      'succeeded',
    ]);
  });

  it('shows the tree of child and grandchild runs with their statuses, linked both ways', async () => {
    const top = await finished((await createRun('top.toml')).id);
    await logIn();
    await page.goto(`${serve.url}/#/runs/${top.id}`);
    const child = page.locator('.family li[data-depth="1"]');
    const grandchild = child.locator('li[data-depth="2"]');
    await grandchild.waitFor();
    expect(await child.locator(':scope > a').textContent()).toBe('middle');
    expect(await child.locator(':scope > .badge').textContent()).toBe('succeeded');
    expect(await grandchild.locator(':scope > a').textContent()).toBe('leaf');
    expect(await grandchild.locator(':scope > .badge').textContent()).toBe('succeeded');

    const leafId = await grandchild.getAttribute('data-child');
    const middleId = await child.getAttribute('data-child');
    await grandchild.locator(':scope > a').click();
    await page.waitForURL((url) => url.hash === `#/runs/${leafId}`);
    const parentLink = page.locator('.family a[data-parent]');
    await expect.poll(() => parentLink.getAttribute('data-parent'), POLL).toBe(middleId);
    await parentLink.click();
    await page.locator(`.family a[data-parent="${top.id}"]`).click();
    await page.locator(`.family li[data-child="${middleId}"]`).waitFor();
  });

  it('lists the artifacts a run kept, to view and to download whole', async () => {
    const run = await finished((await createRun('dump.toml')).id);
    expect(run.status).toBe('succeeded');
    await logIn();
    await page.goto(`${serve.url}/#/runs/${run.id}`);
    const item = page.locator('.produced li[data-artifact]');
    await item.waitFor();
    expect(await item.textContent()).toMatch(/-shell\.txt shell in dump@1 · 2\d\d\.\d KiB Download$/);
    const whole = `Exit code: 0\n<stdout>\n${Array.from({ length: 40000 }, (_, index) => index + 1).join('\n')}\n</stdout>`;

    const view = await item.locator('a[target=_blank]').getAttribute('href');
    const shown = await page.request.get(`${serve.url}${view}`);
    expect(shown.headers()['content-type']).toBe('text/plain; charset=utf-8');
    expect((await shown.text()).trim()).toBe(whole);

    const [download] = await Promise.all([page.waitForEvent('download'), item.locator('a[data-download]').click()]);
    expect(download.suggestedFilename()).toMatch(/-shell\.txt$/);
    const { readFile } = await import('node:fs/promises');
    expect((await readFile((await download.path())!, 'utf8')).trim()).toBe(whole);

    // Only what the run's log names is served: another seq is refused, and without a session nothing is.
    expect((await page.request.get(`${serve.url}/api/v1/runs/${run.id}/artifacts/1`)).status()).toBe(404);
    expect((await callApi(serve, 'GET', `/runs/${run.id}/artifacts/x`)).status).toBe(400);
    expect((await fetch(`${serve.url}${view}`)).status).toBe(401);
  });

  it('keeps keyboard focus on the page when an answered question or a pressed button goes away', async () => {
    const run = await createRun('ask.toml');
    await logIn();
    await page.goto(`${serve.url}/#/runs/${run.id}`);
    const focused = () =>
      page.evaluate(() => {
        const active = (
          globalThis as unknown as {
            document: { activeElement: { tagName: string; textContent: string; dataset: { action?: string } } | null };
          }
        ).document.activeElement;
        return active === null ? 'none' : `${active.tagName}:${active.dataset.action ?? active.textContent}`;
      });
    const yes = page.locator('.question button', { hasText: 'Yes' });
    await yes.focus();
    await page.keyboard.press('Enter');
    await page.locator('tr[data-stage="hold@1"]').waitFor();
    await expect.poll(focused, POLL).toBe('H2:Stages');

    await page.locator('button[data-action="interrupt"]').focus();
    await page.keyboard.press('Enter');
    await badge('paused').waitFor();
    await expect.poll(focused, POLL).toBe('BUTTON:resume');
    await page.keyboard.press('Enter');
    await badge('running').waitFor();
    writeFileSync(join(serve.dir, 'hold.gate'), '');
    await badge('succeeded').waitFor();
    // Through both changes of the buttons offered (running, then succeeded) focus stayed in the toolbar.
    await expect.poll(focused, POLL).toBe('BUTTON:rerun');
  });

  // Last in the file: the clock is the browser context's, which the file's pages share.
  it('ticks relative times under a clock the test moves', async () => {
    const run = await finished((await createRun('clean.toml')).id);
    const created = Date.parse((await api<{ run: { created_at: string } }>('GET', `/runs/${run.id}`)).run.created_at);
    // The page's time starts 5 s after the run was made and flows on; the test jumps it ahead.
    await page.clock.install({ time: created + 5_000 });
    await logIn();
    const time = page.locator(`tr[data-run="${run.id}"] time`);
    await expect.poll(() => time.textContent(), POLL).toBe('just now');
    await page.clock.fastForward('03:00');
    await expect.poll(() => time.textContent(), POLL).toBe('3 min ago');
    await page.clock.fastForward('02:00:00');
    await expect.poll(() => time.textContent(), POLL).toBe('2 h ago');
  });
});
