/**
 * bench/dashboard: how much the runs list blocks the browser's main thread while runs change
 * (issue 28, defect 14). A `weft serve --no-worker` on a store of 240 runs; the bench
 * process, as runners do, moves 40 of them between running and blocked (a new stage each
 * time) every ~0.5 s each; the dashboard's runs list is open in a real headless Chromium
 * with 50 or 200 rows shown (more pages opened with "Show more"). For a window while the
 * changes flow, two views of the main thread: how late a 10 ms timer in the page fires (a
 * late tick means the thread was held: the longest hold, and the time held past 50 ms in
 * all), and how long the thread was busy at all (a CPU profile of the page: every sample
 * that is not idle — script, style, layout, paint, garbage collection). Chromium's
 * `longtask` entries are recorded too, but in the single-process headless build they miss
 * tasks while the thread is saturated, so they are not the headline. Target: no task over
 * 50 ms with 200 rows. With `WEFT_BENCH_BASELINE_BIN=<another build's bin/weft.js>`, that
 * build's server (and so its dashboard) runs the same phases beside this one, in turns.
 *
 *   node --import tsx bench/dashboard/dashboard-jank.bench.ts           (after `npm run build`)
 *   node --import tsx bench/dashboard/dashboard-jank.bench.ts --quick   (short window, numbers mean nothing)
 *   … --top   (also prints where the page's busy time goes, by function, on stderr)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { launchBrowser } from '../../test/helpers/browser.js';
import { sleep } from '../lib/measure.js';
import { startServe } from '../lib/serve-process.js';
import { REPO_ROOT } from '../lib/paths.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';

const QUICK = process.argv.includes('--quick');
/** `--top`: where the busy time goes (self time per function of the page's profile), on stderr. */
const TOP = process.argv.includes('--top');

function printTopFunctions(profile: {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}): void {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = frames.get(id);
    if (frame === undefined || frame.functionName === '(idle)') return;
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop() ?? ''}:${frame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 15);
  process.stderr.write(`${top.map(([name, ms]) => `${ms.toFixed(0).padStart(7)} ms  ${name}`).join('\n')}\n\n`);
}
const RUNS = 240;
const LIVE = 40;
const WINDOW_MS = QUICK ? 3_000 : 15_000;
const CHANGE_EVERY_MS = 500;
const ROUNDS = QUICK ? 1 : 2;
const TOKEN = 'bench-dashboard-token-0123456789abcdef';
const BASELINE = process.env.WEFT_BENCH_BASELINE_BIN;

interface Jank {
  rows: number;
  /** The longest the page's 10 ms timer was held up. */
  longestMs: number;
  /** Time held past 50 ms, summed over every hold. */
  blockedMs: number;
  /** Holds over 50 ms. */
  longTasks: number;
  /** Main-thread time not idle, from a CPU profile of the page. */
  busyMs: number;
  /** Chromium's own `longtask` entries, for reference. */
  longtaskEntries: number;
  changesSeen: number;
}

/** What the page functions read (the bench compiles without the DOM library). */
interface PageGlobals {
  __longTasks: number[];
  __holds: number[];
  __changes: number;
  document: { querySelectorAll(selector: string): { length: number } };
}

/** Opens the list with `rows` rows and gathers long tasks for the window while `churn` runs. */
async function measure(context: BrowserContext, url: string, rows: number, churn: (ms: number) => Promise<number>): Promise<Jank> {
  // One context for every page: the single-process Chromium does not survive closing one.
  const page = await context.newPage();
  try {
    const login = await context.request.post(`${url}/api/v1/login`, { data: { token: TOKEN } });
    if (login.status() !== 204) throw new Error(`login answered ${login.status()}`);
    await page.addInitScript(() => {
      const globals = globalThis as unknown as PageGlobals & {
        PerformanceObserver: new (callback: (list: { getEntries(): { duration: number }[] }) => void) => { observe(options: object): void };
      };
      globals.__longTasks = [];
      globals.__holds = [];
      // A late tick of a 10 ms timer is a task that held the thread.
      let last = performance.now();
      setInterval(() => {
        const at = performance.now();
        if (at - last > 10 + 50) globals.__holds.push(at - last - 10);
        last = at;
      }, 10);
      new globals.PerformanceObserver((list) => {
        for (const entry of list.getEntries()) globals.__longTasks.push(entry.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`${url}/#/runs`);
    const shown = page.locator('table.runs tbody tr');
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelectorAll('table.runs tbody tr').length >= 50);
    while ((await shown.count()) < rows) {
      const before = await shown.count();
      await page.click('button:text("Show more")');
      await page.waitForFunction(
        (count) => (globalThis as unknown as PageGlobals).document.querySelectorAll('table.runs tbody tr').length > count,
        before,
      );
    }
    await page.evaluate(() => {
      const globals = globalThis as unknown as PageGlobals;
      globals.__longTasks = [];
      globals.__holds = [];
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
    const changes = await churn(WINDOW_MS);
    const { profile } = (await cdp.send('Profiler.stop')) as {
      profile: {
        nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
        samples: number[];
        timeDeltas: number[];
      };
    };
    const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
    const busyMs = profile.samples.reduce((sum, id, index) => sum + (idle.has(id) ? 0 : (profile.timeDeltas[index] ?? 0)), 0) / 1000;
    if (TOP) printTopFunctions(profile);
    const { holds, entries } = await page.evaluate(() => {
      const globals = globalThis as unknown as PageGlobals;
      return { holds: globals.__holds, entries: globals.__longTasks.length };
    });
    return {
      rows: await shown.count(),
      longestMs: Math.max(0, ...holds),
      blockedMs: holds.reduce((sum, hold) => sum + Math.max(0, hold - 50), 0),
      longTasks: holds.length,
      busyMs,
      longtaskEntries: entries,
      changesSeen: changes,
    };
  } finally {
    await page.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-dashboard-'));
  const load = { before: loadavg()[0]! };
  const store = await SqliteRunStore.open({ storageDir: dir });
  const live: string[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    const run = await store.createRun({
      workflow: `flow-${index % 7}`,
      workflowPath: join(dir, 'flow.toml'),
      cwd: dir,
      goal: `Run ${index}: a goal long enough to fill a cell of the list`,
      labels: { team: `t${index % 5}` },
      initialStatus: 'queued',
    });
    if (index >= RUNS - LIVE) {
      await store.appendEvents(run.id, [
        { type: 'run-status-changed', payload: { to: 'starting' } },
        { type: 'run-status-changed', payload: { to: 'running' } },
      ]);
      live.push(run.id);
    }
  }
  /** Moves the live runs between running and blocked with a new stage each time, for `ms`; answers how many changes were made. */
  const churn = async (ms: number): Promise<number> => {
    const until = Date.now() + ms;
    let changes = 0;
    let step = 0;
    while (Date.now() < until) {
      const started = Date.now();
      for (const id of live) {
        const run = (await store.getRun(id))!;
        const to = run.status === 'running' ? 'blocked' : 'running';
        await store.appendEvents(id, [
          { type: 'stage-started', stageId: `step${step}@1`, payload: { node: `step${step}`, kind: 'command', attempt: 1 } },
          { type: 'run-status-changed', payload: { to } },
        ]);
        changes += 1;
      }
      step += 1;
      await sleep(Math.max(0, CHANGE_EVERY_MS - (Date.now() - started)));
    }
    return changes;
  };
  const builds = [{ name: 'this build', bin: join(REPO_ROOT, 'bin/weft.js') }, ...(BASELINE ? [{ name: 'baseline', bin: BASELINE }] : [])];
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const results: (Jank & { build: string; round: number })[] = [];
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        const served = await startServe(dir, build.bin, TOKEN);
        try {
          for (const rows of [50, 200]) results.push({ build: build.name, round, ...(await measure(context, served.url, rows, churn)) });
        } finally {
          await served.stop();
        }
      }
    }
  } finally {
    await browser.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  load.before = Math.round(load.before * 100) / 100;
  const after = Math.round(loadavg()[0]! * 100) / 100;
  const worst = (build: string, rows: number) => {
    const own = results.filter((result) => result.build === build && result.rows === rows);
    const most = (field: 'longestMs' | 'blockedMs' | 'longTasks' | 'busyMs' | 'longtaskEntries') =>
      Math.max(...own.map((result) => result[field]));
    return {
      longest: most('longestMs'),
      blocked: most('blockedMs'),
      tasks: most('longTasks'),
      busy: most('busyMs'),
      entries: most('longtaskEntries'),
      changes: Math.min(...own.map((result) => result.changesSeen)),
    };
  };
  const table = markdownTable({
    headers: [
      'build',
      'rows shown',
      'longest hold (ms)',
      `held past 50 ms in ${WINDOW_MS / 1000} s (ms)`,
      'holds > 50 ms',
      `main thread busy in ${WINDOW_MS / 1000} s (ms)`,
      'longtask entries',
      'changes made',
    ],
    rows: builds.flatMap((build) =>
      [50, 200].map((rows) => {
        const row = worst(build.name, rows);
        return [
          build.name,
          String(rows),
          formatNumber(row.longest),
          formatNumber(row.blocked),
          String(row.tasks),
          formatNumber(row.busy),
          String(row.entries),
          String(row.changes),
        ];
      }),
    ),
  });
  const markdown = [
    '# dashboard: main-thread jank of the runs list with live runs',
    '',
    `${RUNS} runs stored, ${LIVE} of them changing (running ⇄ blocked, a new stage each time) every ${CHANGE_EVERY_MS} ms each, written by the bench process as runners do; the runs list open in headless Chromium (1400×900) with 50 or 200 rows. Over a ${WINDOW_MS / 1000} s window: holds of the main thread (a 10 ms timer in the page firing late), and its busy time (CPU profile samples that are not idle). The worst of ${ROUNDS} round(s) per row. Target: no task over 50 ms with 200 rows.`,
    '',
    table,
    '',
    `Load average before ${load.before}, after ${after}. ${JSON.stringify(machineInfo())}`,
  ].join('\n');
  const written = writeResults(
    'dashboard',
    {
      settings: { runs: RUNS, live: LIVE, windowMs: WINDOW_MS, changeEveryMs: CHANGE_EVERY_MS, rounds: ROUNDS, baseline: BASELINE ?? null },
      results,
      load: { before: load.before, after },
    },
    markdown,
  );
  console.log(markdown);
  console.log(`\nwritten: ${written.json}, ${written.markdown}`);
}

await main();
