/**
 * How long the dashboard's runs list takes to show its first page in a real headless
 * Chromium: from the start of navigation to the moment the page has rendered the rows of
 * its first `GET /api/v1/runs` (the `weft:runs-first-page` mark that runs-page.js sets).
 * That covers the HTML, the CSS, every ES module, the API call and the DOM work.
 * Logged in once (the session cookie); every round is a fresh page with the cache off,
 * as a first visit.
 */
import { launchBrowser } from '../../test/helpers/browser.js';

export interface DashboardFirstPage {
  /** Milliseconds from navigation start to the first page of runs on screen, one per round. */
  samples: number[];
  /** How many runs the first page showed (the page's default limit). */
  rows: number;
}

/** What the page function reads (the bench compiles without the DOM library). */
interface BrowserGlobals {
  performance: { getEntriesByName(name: string): { startTime: number }[] };
}

/** @example const { samples } = await measureDashboardFirstPage('http://127.0.0.1:7777', token, 20); */
export async function measureDashboardFirstPage(url: string, token: string, rounds: number): Promise<DashboardFirstPage> {
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const login = await context.request.post(`${url}/api/v1/login`, { data: { token } });
    if (login.status() !== 204) throw new Error(`login answered ${login.status()}: ${await login.text()}`);
    const samples: number[] = [];
    let rows = 0;
    for (let round = 0; round < rounds; round += 1) {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await page.goto(`${url}/#/runs`);
      const mark = await page.waitForFunction(
        () => (globalThis as unknown as BrowserGlobals).performance.getEntriesByName('weft:runs-first-page')[0]?.startTime ?? false,
      );
      samples.push((await mark.jsonValue()) as number);
      rows = await page.locator('table.runs tbody tr').count();
      await page.close();
    }
    return { samples, rows };
  } finally {
    await browser.close();
  }
}
