/**
 * A real headless Chromium for the dashboard's browser tests: the binary that
 * `@sparticuz/chromium` ships in its npm package, driven by `playwright-core`, so
 * `npm install && npm test` needs nothing else. Its launch flags switch web security off
 * (they are made for sandboxed cloud functions); those two are dropped so the page runs
 * under the same-origin and cookie rules a person's browser applies.
 */
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser } from 'playwright-core';

const WEAKENING_FLAGS = new Set(['--disable-web-security', '--allow-running-insecure-content']);

export async function launchBrowser(): Promise<Browser> {
  return playwright.launch({ executablePath: await chromium.executablePath(), args: chromium.args.filter((flag) => !WEAKENING_FLAGS.has(flag)), headless: true });
}
