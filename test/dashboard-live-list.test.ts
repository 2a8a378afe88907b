/**
 * The dashboard's runs list kept live by the list's change stream, in a real headless
 * Chromium against a real `weft serve`: a run created while the list is open appears,
 * changes status and, under a status filter, leaves — with no reload and no list request
 * after the stream is live; and when the stream is refused the page falls back to polling.
 * Every wait is on a condition in the page, never on time.
 */
import { writeFileSync } from 'node:fs';
import type { Browser, Page, Request } from 'playwright-core';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { launchBrowser, loggedOutPage } from './helpers/browser.js';
import { ASK_WORKFLOW, callApi, startServe, TEST_TOKEN, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

let serve: Serve;
let browser: Browser;
let page: Page;

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await callApi<T>(serve, method, path, body);
  if (answer.status >= 400) throw new Error(`${method} ${path} → ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function createRun(options: Record<string, unknown> = {}): Promise<string> {
  return (await api<{ run: { id: string } }>('POST', '/runs', { workflow: 'ask.toml', ...options })).run.id;
}

async function answer(runId: string): Promise<void> {
  const detail = await api<{ pending_questions: { id: string }[] }>('GET', `/runs/${runId}`);
  await api('POST', `/runs/${runId}/answer`, { question_id: detail.pending_questions[0]!.id, answer: 'yes' });
}

const isListRead = (request: Request) =>
  /\/api\/v1\/runs(\?|$)/.test(request.url()) &&
  request.method() === 'GET' &&
  !(request.headers().accept ?? '').includes('text/event-stream');
const row = (runId: string, status: string) => page.locator(`tr[data-run="${runId}"] .badge[data-status="${status}"]`);

async function openList(): Promise<void> {
  await page.goto(`${serve.url}/#/login`);
  await page.fill('#token', TEST_TOKEN);
  await page.click('form.login button[type=submit]');
  await page.waitForSelector('h1:text("Runs")');
}

beforeAll(async () => {
  [serve, browser] = await Promise.all([startServe(), launchBrowser()]);
  writeFileSync(join(serve.dir, 'ask.toml'), ASK_WORKFLOW);
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

// Each test starts logged out, on a page of its own.
beforeEach(async () => {
  page = await loggedOutPage(browser);
});
afterEach(async () => {
  await page.close();
});

describe('dashboard: the live runs list', () => {
  it('shows a run created while the list is open, and each change of its status, from the stream alone', async () => {
    await openList();
    await page.locator('#runs-live[data-state="live"]').waitFor();
    // The page reads the list once when the stream opens; from here on only the stream may bring changes.
    await page.locator('table.runs').waitFor();
    const listReads: string[] = [];
    page.on('request', (request) => isListRead(request) && listReads.push(request.url()));

    const runId = await createRun();
    await row(runId, 'pending').waitFor();
    await api('POST', `/runs/${runId}/approve`, {});
    await row(runId, 'blocked').waitFor();
    await answer(runId);
    await row(runId, 'succeeded').waitFor();
    expect(listReads).toEqual([]);
    expect(await page.locator('#runs-live').getAttribute('data-state')).toBe('live');
  });

  it('drops a run from a status-filtered list when it leaves that status', async () => {
    await openList();
    await page.click('button.chip[data-status="blocked"]');
    await page.locator('#runs-live[data-state="live"]').waitFor();
    const runId = await createRun({ auto_approve: true });
    await row(runId, 'blocked').waitFor();
    await answer(runId);
    await page.locator(`tr[data-run="${runId}"]`).waitFor({ state: 'detached' });
  });

  it('falls back to polling when the stream is refused, and the list still follows the run', async () => {
    await page.route(/\/api\/v1\/runs(\?|$)/, (route) =>
      (route.request().headers().accept ?? '').includes('text/event-stream')
        ? route.fulfill({ status: 503, body: 'no streams here' })
        : route.fallback(),
    );
    await openList();
    await page.locator('#runs-live[data-state="polling"]').waitFor();
    const runId = await createRun({ auto_approve: true });
    await row(runId, 'blocked').waitFor();
    await answer(runId);
    await row(runId, 'succeeded').waitFor();
  });
});
