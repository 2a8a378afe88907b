/**
 * Scenario 3, the live surfaces: PostgreSQL stops and starts again while a run is mid-stage
 * and its stage ends during the outage. `weft serve` (its API, its /mcp endpoint and its
 * worker) is not restarted; everything that watches the run learns that it succeeded,
 * without reconnecting or reloading: the runs list's SSE stream, a 2025-era MCP client
 * subscribed to the run's resource, a 2026-era MCP client's `subscriptions/listen` stream,
 * and the dashboard in a real headless Chromium (the runs list and the run's own page,
 * opened before the outage; and a runs list opened during it, which used to keep its error
 * and miss every run that did not change). One restart serves them all. This file starts a PostgreSQL of
 * its own, since it stops it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readLines, until } from './fixtures/workflows-e2e/harness.js';
import { launchBrowser, loggedOutPage } from './helpers/browser.js';
import { MODERN_CLIENT_OPTIONS } from './helpers/mcp-listen.js';
import { startEmbeddedPostgres, type TestPostgres } from './helpers/postgres.js';
import { callApi, readStream, startServe, TEST_TOKEN, type Serve } from './helpers/serve-kit.js';

const HOLD = `
[workflow]
name = "hold"

[nodes.hold]
kind = "command"
run = '''
echo started >> hold-starts.txt
while [ ! -f release.marker ]; do sleep 0.05; done
echo ended >> hold-starts.txt
'''
next = "two"

[nodes.two]
kind = "command"
run = 'echo two'
`;

let server: TestPostgres;
let browser: Browser;
let serve: Serve | undefined;
let client: Client | undefined;
let modern: Client | undefined;
beforeAll(async () => {
  [server, browser] = await Promise.all([startEmbeddedPostgres(), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await client?.close().catch(() => undefined);
  await modern?.close().catch(() => undefined);
  await browser?.close();
  await serve?.stop();
  await server.dispose();
}, 60_000);

async function runStatus(reader: Client, uri: string): Promise<string | undefined> {
  const read = await reader.readResource({ uri });
  const first = read.contents[0];
  return (JSON.parse(first && 'text' in first ? first.text : '{}') as { run?: { status?: string } }).run?.status;
}

/** A client of `/mcp`; the notices about `uri` make it read the run again, and `succeeded` resolves once a read says so. */
async function waitingClient(
  name: string,
  uri: string,
  options?: typeof MODERN_CLIENT_OPTIONS,
): Promise<{ client: Client; succeeded: Promise<number> }> {
  const waiting = new Client({ name, version: '1.0.0' }, options);
  await waiting.connect(
    new StreamableHTTPClientTransport(new URL(`${serve!.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${serve!.token}` } },
    }),
  );
  let learned!: (at: number) => void;
  const succeeded = new Promise<number>((resolve) => (learned = resolve));
  waiting.setNotificationHandler('notifications/resources/updated', (notification) => {
    if (notification.params.uri !== uri) return;
    // What a waiting client does on a notice: read the run again. A read during the outage fails; the next notice reads again.
    void runStatus(waiting, uri)
      .then((status) => status === 'succeeded' && learned(Date.now()))
      .catch(() => undefined);
  });
  return { client: waiting, succeeded };
}

/** The dashboard's runs list, logged in on a fresh document. */
async function runsList(): Promise<Page> {
  const page = await loggedOutPage(browser);
  await page.goto(`${serve!.url}/#/login`);
  await page.fill('#token', TEST_TOKEN);
  await page.click('form.login button[type=submit]');
  await page.waitForSelector('h1:text("Runs")');
  return markDocument(page);
}

/** A run's page in a second tab of the same (logged-in) browser. */
async function runPageOf(list: Page, id: string): Promise<Page> {
  const page = await list.context().newPage();
  await page.goto(`${serve!.url}/#/runs/${id}`);
  return markDocument(page);
}

/** The runs list in another tab of the same (logged-in) browser. */
async function runsListBeside(list: Page): Promise<Page> {
  const page = await list.context().newPage();
  await page.goto(`${serve!.url}/#/runs`);
  await page.waitForSelector('h1:text("Runs")');
  return page;
}

/** Marks the document; a reload would drop the mark. */
async function markDocument(page: Page): Promise<Page> {
  await page.evaluate(() => ((globalThis as unknown as { sameDocument: boolean }).sameDocument = true));
  return page;
}

/** Resolves to when `locator` first matches, watched in the page (no polling from here). */
function shownAt(page: Page, selector: string): Promise<number> {
  return page
    .locator(selector)
    .waitFor({ timeout: 120_000 })
    .then(() => Date.now());
}

it('the live runs list, MCP subscriptions of both eras and the dashboard learn of a run that ended across a PostgreSQL restart', async () => {
  serve = await startServe({ env: { WEFT_DATABASE_URL: await server.createDatabase(), WEFT_LEASE_MS: '10000' } });
  await writeFile(join(serve.dir, 'hold.toml'), HOLD);
  const created = await callApi<{ run: { id: string } }>(serve, 'POST', '/runs', { workflow: 'hold.toml', auto_approve: true });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.run.id;
  await until(
    'hold to start',
    async () => ((await readLines(join(serve!.dir, 'hold-starts.txt'))).length === 1 ? true : undefined),
    60_000,
  );

  // The dashboard's live list, opened before the outage and kept open across it.
  let listOpen!: () => void;
  const opened = new Promise<void>((resolve) => (listOpen = resolve));
  const list = readStream<{ id: string; status: string }>(
    serve,
    '/runs',
    (messages) => messages.some((message) => message.data.id === id && message.data.status === 'succeeded'),
    undefined,
    () => listOpen(),
  );
  await opened;
  // A client waiting on the run through a resource subscription (a 2025-era session).
  const uri = `weft://runs/${id}`;
  const old = await waitingClient('waiting-client', uri);
  client = old.client;
  await client.subscribeResource({ uri });
  // The same through a 2026-era client's subscriptions/listen stream.
  const listening = await waitingClient('listening-client', uri, MODERN_CLIENT_OPTIONS);
  modern = listening.client;
  const subscription = await modern.listen({ resourceSubscriptions: [uri] });
  expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [uri] });
  // A run that does not change across the outage (created, never started).
  const still = await callApi<{ run: { id: string; status: string } }>(serve, 'POST', '/runs', { workflow: 'hold.toml', start: false });
  expect(still.status, JSON.stringify(still.body)).toBe(201);
  // The dashboard: the runs list and the run's own page, each showing the run running.
  const listPage = await runsList();
  await listPage.locator(`#runs-live[data-state="live"]`).waitFor();
  await listPage.locator(`tr[data-run="${id}"] .badge[data-status="running"]`).waitFor();
  const runPage = await runPageOf(listPage, id);
  await runPage.locator('.run-head .badge[data-status="running"]').waitFor();
  const listShown = shownAt(listPage, `tr[data-run="${id}"] .badge[data-status="succeeded"]`);
  const pageShown = shownAt(runPage, '.run-head .badge[data-status="succeeded"]');

  await server.stop();
  const down = Date.now();
  // The stage ends while the database is away; its end is recorded once it is back.
  await writeFile(join(serve.dir, 'release.marker'), '');
  await until(
    'the stage process to end',
    async () => ((await readLines(join(serve!.dir, 'hold-starts.txt'))).length === 2 ? true : undefined),
    10_000,
  );
  // A listen sent while the database is away is refused at once with the store's error, not left hanging.
  const late = await waitingClient('late-listener', uri, MODERN_CLIENT_OPTIONS);
  await expect(late.client.listen({ resourceSubscriptions: [uri] })).rejects.toThrow(/STORE_FAILED.*cannot be reached/);
  await late.client.close();
  // Someone opens the runs list while the database is away: it says so, and comes right by itself.
  const latePage = await runsListBeside(listPage);
  await latePage.locator('p[role=alert].notice.error:not([hidden])').waitFor();
  // And the page of a run that does not change, opened during the outage too.
  const lateRunPage = await latePage.context().newPage();
  await lateRunPage.goto(`${serve.url}/#/runs/${still.body.run.id}`);
  await lateRunPage.locator('p[role=alert].notice.error:not([hidden])').waitFor();
  await server.start();
  const back = Date.now();
  const outageMs = back - down;
  const lateWhole = shownAt(latePage, `tr[data-run="${still.body.run.id}"]`);
  const lateSummary = shownAt(lateRunPage, `.run-head .badge[data-status="${still.body.run.status}"]`);

  const messages = await list;
  const listMs = Date.now() - back;
  expect(messages.filter((message) => message.data.id === id).at(-1)?.data.status).toBe('succeeded');
  const mcpMs = (await old.succeeded) - back;
  const listenMs = (await listening.succeeded) - back;
  expect(await runStatus(client, uri)).toBe('succeeded');
  expect(await runStatus(modern, uri)).toBe('succeeded');
  const listPageMs = (await listShown) - back;
  const runPageMs = (await pageShown) - back;
  for (const page of [listPage, runPage])
    expect(await page.evaluate(() => (globalThis as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
  // The run page's feed, read across the outage with Last-Event-ID: every event once, in order, up to the run's end.
  const feed = (
    await runPage.locator('#events li[data-seq]').evaluateAll((items) => items.map((item) => item.getAttribute('data-seq')))
  ).map(Number);
  expect(feed).toEqual([...new Set(feed)].sort((a, b) => a - b));
  const log = await callApi<{ events: { seq: number; type: string; payload: { to?: string } }[] }>(
    serve,
    'GET',
    `/runs/${id}/events?limit=1000`,
  );
  const end = log.body.events.find((event) => event.type === 'run-status-changed' && event.payload.to === 'succeeded');
  expect(end, JSON.stringify(log.body.events.map((event) => [event.seq, event.type, event.payload]))).toBeDefined();
  expect(feed).toContain(end?.seq);
  expect(await runPage.locator('tr[data-stage="two@1"] .badge').textContent()).toBe('succeeded');
  // The list opened during the outage reads the list again once it can: the run that did not change is there too.
  const latePageMs = (await lateWhole) - back;
  const lateRunPageMs = (await lateSummary) - back;
  await latePage.locator(`tr[data-run="${id}"] .badge[data-status="succeeded"]`).waitFor({ timeout: 60_000 });
  await latePage.locator('#runs-live[data-state="live"]').waitFor({ timeout: 60_000 });
  // Nothing the outage showed is left on any page.
  for (const page of [listPage, runPage, latePage, lateRunPage]) expect(await page.locator('.notice.error:not([hidden])').count()).toBe(0);
  await subscription.close();
  // When the run's end was recorded: the notices came with it, not later.
  const ended = await callApi<{ run: { finished_at: string } }>(serve, 'GET', `/runs/${id}`);
  const recordedMs = Date.parse(ended.body.run.finished_at) - back;
  expect(listMs).toBeGreaterThanOrEqual(recordedMs);
  console.log(
    `PostgreSQL stopped for ${outageMs} ms with a run whose stage ended during the outage: its end recorded ${recordedMs} ms after the server was back; ` +
      `after it: SSE list ${listMs} ms, MCP resources/subscribe ${mcpMs} ms, MCP subscriptions/listen ${listenMs} ms, ` +
      `dashboard list ${listPageMs} ms, run page ${runPageMs} ms; the list opened during the outage showed the unchanged run ${latePageMs} ms after the server was back, that run's page ${lateRunPageMs} ms`,
  );
}, 180_000);
