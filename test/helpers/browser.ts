/**
 * A real headless Chromium for the dashboard's browser tests: the binary that
 * `@sparticuz/chromium` ships in its npm package, driven by `playwright-core`, so
 * `npm install && npm test` needs nothing else. Its launch flags switch web security off
 * (they are made for sandboxed cloud functions); those two are dropped so the page runs
 * under the same-origin and cookie rules a person's browser applies.
 */
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser, type BrowserContext, type Page } from 'playwright-core';

const WEAKENING_FLAGS = new Set(['--disable-web-security', '--allow-running-insecure-content']);

export async function launchBrowser(): Promise<Browser> {
  return playwright.launch({
    executablePath: await chromium.executablePath(),
    args: chromium.args.filter((flag) => !WEAKENING_FLAGS.has(flag)),
    headless: true,
  });
}

const contexts = new WeakMap<Browser, BrowserContext>();

/**
 * A page of its own for a test, logged out. All pages of a browser share one context,
 * because the single-process Chromium does not survive closing one.
 */
export async function loggedOutPage(browser: Browser): Promise<Page> {
  let context = contexts.get(browser);
  if (context === undefined) {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.set(browser, context);
  }
  await context.clearCookies();
  return context.newPage();
}
