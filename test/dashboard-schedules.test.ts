/**
 * The dashboard's Schedules page in a real headless Chromium against a real `weft serve`:
 * it lists a schedule with its cron and next due time, pauses and resumes it (the API agrees
 * each time), and links to the schedule's runs. Waits are on the page, never on time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser, loggedOutPage } from './helpers/browser.js';
import { callApi, startServe, TEST_TOKEN, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

let dir: string;
let serve: Serve;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-dash-schedules-'));
  writeFileSync(join(dir, 'nightly.toml'), '[workflow]\nname = "nightly"\n[nodes.a]\nkind = "command"\nrun = "echo a"\n');
  [serve, browser] = await Promise.all([startServe({ dir }), launchBrowser()]);
  page = await loggedOutPage(browser);
});
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function paused(): Promise<boolean | undefined> {
  return (await callApi<{ schedule: { paused: boolean } }>(serve, 'GET', '/schedules/nightly')).body.schedule.paused;
}

describe('the Schedules page', () => {
  it('lists a schedule, pauses and resumes it, and links to its runs', async () => {
    expect(
      (
        await callApi(serve, 'POST', '/schedules', {
          name: 'nightly',
          workflow: 'nightly.toml',
          cron: '0 3 * * *',
          timezone: 'Europe/Paris',
          overlap: 'queue',
        })
      ).status,
    ).toBe(201);
    await page.goto(`${serve.url}/#/login`);
    await page.fill('#token', TEST_TOKEN);
    await page.click('form.login button[type=submit]');
    await page.waitForSelector('h1:text("Runs")');
    await page.click('nav a[data-nav="schedules"]');
    const row = page.locator('tr[data-schedule="nightly"]');
    await row.locator('code:text("0 3 * * *")').waitFor();
    expect(await row.textContent()).toContain('Europe/Paris');
    expect(await row.textContent()).toContain('overlap: queue');
    expect(await row.locator('time').getAttribute('datetime')).toMatch(/T0[12]:00:00.000Z$/);
    await row.locator('button:text("Pause")').click();
    await row.locator('button:text("Resume")').waitFor();
    expect(await paused()).toBe(true);
    await row.locator('button:text("Resume")').click();
    await row.locator('button:text("Pause")').waitFor();
    expect(await paused()).toBe(false);
    expect(await row.locator('a:text("its runs")').getAttribute('href')).toBe('#/runs?label=weft.schedule%3Dnightly');
  });
});
