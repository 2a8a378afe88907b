/**
 * The dashboard in a real headless Chromium against a real `weft serve` (built CLI, its
 * own runner, SQLite in a temp storage dir): logging in, approving a pending run, a run
 * going live from queued to succeeded with its graph recoloured, an agent's tool calls
 * folded in the event feed and pairing with one (the fake model server is the only fake),
 * answering questions of every kind, the keyboard at phone width, the runs list's filters,
 * and adding and removing an MCP server. Every wait is on a condition in the page or the
 * API, never on time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { launchBrowser, loggedOutPage } from './helpers/browser.js';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';
import { TEST_ENV } from './fixtures/model-server/agent-kit.js';
import { REPO_ROOT } from './helpers/run-cli.js';
import { callApi, startServe, TEST_TOKEN as TOKEN, type Serve } from './helpers/serve-kit.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** The state colours of src/runs/workflow/graph-model.ts as the browser reports them. */
const FILL = {
  pending: 'rgb(243, 244, 246)',
  running: 'rgb(219, 234, 254)',
  succeeded: 'rgb(220, 252, 231)',
  skipped: 'rgb(249, 250, 251)',
};

/** What the page functions use of the browser's globals (the tests are compiled without the DOM library). */
interface BrowserWindow {
  getComputedStyle(element: unknown): { fill: string };
  innerWidth: number;
  document: {
    cookie: string;
    querySelector(selector: string): unknown;
    activeElement: { tagName: string; value?: string; type?: string; textContent: string } | null;
    documentElement: { scrollWidth: number };
  };
}

let dir: string;
let model: ModelServer;
let releaseModel: () => void = () => {};
const modelHeld = new Promise<void>((resolve) => (releaseModel = resolve));
let serve: Serve;
let browser: Browser;
let page: Page;

/** A call to the API as a script would make it (bearer token); fails the test on an error answer. */
async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await callApi<T>(serve, method, path, body);
  if (answer.status >= 400) throw new Error(`${method} ${path} → ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

interface RunView {
  id: string;
  status: string;
}

async function createRun(workflow: string, options: Record<string, unknown> = {}): Promise<RunView> {
  return (await api<{ run: RunView }>('POST', '/runs', { workflow, ...options })).run;
}

async function logIn(): Promise<void> {
  await page.goto(`${serve.url}/#/login`);
  await page.fill('#token', TOKEN);
  await page.click('form.login button[type=submit]');
  await page.waitForSelector('h1:text("Runs")');
}

/**
 * Waits until the graph's node is drawn in `state`, and answers the fill the browser paints
 * it with (read in one step: the graph is redrawn as events arrive).
 */
async function nodeFill(node: string, state: string): Promise<string> {
  const selector = `#run-graph [data-node="${node}"][data-state="${state}"] .weft-shape`;
  const fill = await page.waitForFunction((query) => {
    const window = globalThis as unknown as BrowserWindow;
    const shape = window.document.querySelector(query);
    return shape === null ? false : window.getComputedStyle(shape).fill;
  }, selector);
  return (await fill.jsonValue()) as string;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-dashboard-'));
  writeFileSync(join(dir, 'quick.toml'), '[nodes.hello]\nkind = "command"\nrun = "echo hello from quick"\n');
  // `build` holds until the test opens the gate, so the page can be seen with it running.
  writeFileSync(
    join(dir, 'gate.toml'),
    `[run]
goal = "Build behind a gate, check in parallel, then ship"

[nodes.build]
kind = "command"
run = "while [ ! -f release.gate ]; do sleep 0.05; done; echo built"
next = "checks"

[nodes.checks]
kind = "parallel"
branches = ["lint", "test"]
join = "gather"

[nodes.lint]
kind = "command"
run = "echo lint clean"
next = "gather"

[nodes.test]
kind = "command"
run = "echo 12 tests passed"
next = "gather"

[nodes.gather]
kind = "join"
next = "route"

[nodes.route]
kind = "branch"
[[nodes.route.edges]]
to = "ship"
when = 'stages.test.exit_code == 0'
[[nodes.route.edges]]
to = "hold"

[nodes.ship]
kind = "command"
run = "echo shipped"

[nodes.hold]
kind = "command"
run = "echo held"
`,
  );
  writeFileSync(
    join(dir, 'quiz.toml'),
    [
      '[nodes.go]\nkind = "human"\nquestion = "Proceed?"\ntype = "yes_no"\nnext = "targets"',
      '[nodes.targets]\nkind = "human"\nquestion = "Which targets?"\ntype = "multi_select"\noptions = ["linux", "mac", "windows"]\nnext = "title"',
      '[nodes.title]\nkind = "human"\nquestion = "Release title?"\ntype = "freeform"\nnext = "publish"',
      '[nodes.publish]\nkind = "human"\nquestion = "Really publish?"\ntype = "confirmation"\nnext = "ship"',
      '[nodes.ship]\nkind = "human"\nquestion = "Ship it?"\ntype = "choice"\noptions = ["ship", "hold"]',
    ].join('\n\n'),
  );
  writeFileSync(
    join(dir, 'ask.toml'),
    '[nodes.ask]\nkind = "human"\nquestion = "Ship it?"\ntype = "choice"\noptions = ["ship", "hold"]\nnext = "done"\n\n[nodes.done]\nkind = "command"\nrun = "echo decided"\n',
  );
  // An agent that reads a file, then answers: the fake model server speaks the Anthropic API.
  // The pairing test's agent ("Draft …") holds its first turn until the test lets it go.
  model = await startModelServer({
    script: async (request) => {
      const pairing = request.messages[0]?.role === 'user' && request.messages[0].text.includes('Draft the release notes');
      if (request.messages.length > 1) return { text: pairing ? 'Drafted.' : 'Read two notes.' };
      if (pairing) await modelHeld;
      return { toolCalls: [{ name: 'read_file', arguments: { file_path: 'notes.txt' } }] };
    },
  });
  mkdirSync(join(dir, '.weft'));
  writeFileSync(
    join(dir, '.weft', 'settings.toml'),
    `[llm]\nprovider = "anthropic"\nmodel = "claude-test"\nbase_url = "${model.baseUrl('anthropic')}"\n`,
  );
  writeFileSync(join(dir, 'notes.txt'), 'first note\nsecond note\n');
  writeFileSync(
    join(dir, 'pair.toml'),
    '[nodes.draft]\nkind = "agent"\nprompt = "Draft the release notes from notes.txt."\ntools = ["read_file"]\n',
  );
  writeFileSync(
    join(dir, 'review.toml'),
    '[nodes.review]\nkind = "agent"\nprompt = "Read notes.txt and say how many notes it has."\ntools = ["read_file"]\n',
  );
  [serve, browser] = await Promise.all([startServe({ dir, env: TEST_ENV }), launchBrowser()]);
});

afterAll(async () => {
  releaseModel();
  await browser?.close();
  await serve?.stop();
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Each test starts logged out, on a page of its own.
beforeEach(async () => {
  page = await loggedOutPage(browser);
});
afterEach(async () => {
  await page.close();
});

describe('dashboard in a browser', () => {
  it('logs in with the token once: an HttpOnly, SameSite=Strict cookie, and the token in no URL', async () => {
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    await page.goto(`${serve.url}/`);
    await page.waitForURL(/#\/login$/);

    await page.fill('#token', 'not-the-token');
    await page.click('form.login button[type=submit]');
    await expect.poll(() => page.locator('form.login [role=alert]').textContent()).toBe('That token is not right. Check it and try again.');

    await logIn();
    const cookies = await page.context().cookies();
    expect(cookies.map(({ name, httpOnly, sameSite }) => ({ name, httpOnly, sameSite }))).toEqual([
      { name: 'weft_session', httpOnly: true, sameSite: 'Strict' },
    ]);
    expect(cookies[0]!.value).not.toContain(TOKEN);
    expect(await page.evaluate(() => (globalThis as unknown as BrowserWindow).document.cookie)).toBe('');
    expect(urls.filter((url) => url.includes(TOKEN))).toEqual([]);

    // The session carries on: a reload shows the runs, not the login form.
    await page.reload();
    await page.waitForSelector('h1:text("Runs")');
    expect(page.url()).toMatch(/#\/runs$/);
  });

  it('approves a pending run, which then runs to success', async () => {
    const run = await createRun('quick.toml');
    expect(run.status).toBe('pending');
    await logIn();
    await page.goto(`${serve.url}/#/runs/${run.id}`);
    await page.waitForSelector('.run-head .badge[data-status="pending"]');
    expect(await nodeFill('hello', 'pending')).toBe(FILL.pending);

    await page.click('button[data-action="approve"]');
    await page.waitForSelector('.run-head .badge[data-status="succeeded"]');
    expect(await nodeFill('hello', 'succeeded')).toBe(FILL.succeeded);
    expect(await page.locator('#events [data-type="run-status-changed"]').allTextContents()).toEqual(
      ['pending', 'queued', 'starting', 'running', 'succeeded'].map((status) => expect.stringContaining(`● run ${status}`)),
    );
    expect((await api<{ run: RunView }>('GET', `/runs/${run.id}`)).run.status).toBe('succeeded');
  });

  it('shows a run going live from queued to succeeded, the graph recoloured as its stages move', async () => {
    await logIn();
    const run = await createRun('gate.toml', { auto_approve: true });
    await page.goto(`${serve.url}/#/runs/${run.id}`);

    expect(await nodeFill('build', 'running')).toBe(FILL.running);
    expect(await nodeFill('ship', 'pending')).toBe(FILL.pending);
    await page.waitForSelector('.run-head .badge[data-status="running"]');

    writeFileSync(join(dir, 'release.gate'), '');
    expect(await nodeFill('build', 'succeeded')).toBe(FILL.succeeded);
    await page.waitForSelector('.run-head .badge[data-status="succeeded"]');
    for (const node of ['checks', 'lint', 'test', 'gather', 'route', 'ship'])
      expect(await nodeFill(node, 'succeeded'), node).toBe(FILL.succeeded);
    expect(await nodeFill('hold', 'skipped')).toBe(FILL.skipped);
    const feed = await page.locator('#events li').allTextContents();
    expect(feed.findIndex((line) => line.includes('● run queued'))).toBeLessThan(
      feed.findIndex((line) => line.includes('▶ build@1 (command)')),
    );
    expect(feed.some((line) => line.includes('✓ ship@1 succeeded') && line.includes('→ shipped'))).toBe(true);
    await page.locator('tr[data-stage="build@1"] button').click();
    expect(await page.locator('.stage-detail pre.output').textContent()).toBe('built');

    if (process.env.WEFT_DASHBOARD_SCREENSHOT) await page.screenshot({ path: process.env.WEFT_DASHBOARD_SCREENSHOT });
  });

  it("folds an agent's tool call into one line that opens to its arguments and result, and shows the transcript", async () => {
    await logIn();
    const run = await createRun('review.toml', { auto_approve: true });
    await page.goto(`${serve.url}/#/runs/${run.id}`);
    await page.waitForSelector('.run-head .badge[data-status="succeeded"]');

    const call = page.locator('#events li.tool');
    expect(await call.count()).toBe(1);
    expect(await page.locator('#events li[data-type^="tool-call-"]:not(.tool)').count()).toBe(0);
    expect(await call.locator('summary').textContent()).toMatch(/^✓ read_file \((\d+ ms|\d+\.\d s)\)$/);
    expect(await call.locator('details').getAttribute('open')).toBeNull();
    await call.locator('summary').click();
    const [args, result] = await call.locator('pre').allTextContents();
    expect(JSON.parse(args!)).toEqual({ file_path: 'notes.txt' });
    expect(result).toContain('first note');
    expect(result).toContain('second note');

    const detail = page.locator('.stage-detail');
    expect(await detail.locator('h2').textContent()).toBe('review@1 (agent)');
    expect(await detail.locator('pre.output').textContent()).toBe('Read two notes.');
    expect(await detail.locator('.transcript .turn strong').allTextContents()).toEqual(['Turn 1', 'Turn 2']);
    expect(await detail.locator('.transcript .turn').last().locator('p').textContent()).toBe('Read two notes.');
  });

  it('pairs with a running agent stage and sends it a message it reads on its next turn', async () => {
    await logIn();
    const run = await createRun('pair.toml', { auto_approve: true });
    await page.goto(`${serve.url}/#/runs/${run.id}`);
    await page.click('button[data-action="pair"]:text("Pair")');
    await page.locator('button[data-action="pair"]:text("End pairing")').waitFor();
    expect(await page.getAttribute('#run-message', 'placeholder')).toBe('Message to draft@1 (pairing)');

    await page.fill('#run-message', 'Mention the new dashboard.');
    await page.press('#run-message', 'Enter');
    await page.locator('#events li[data-type="message-sent"]', { hasText: 'Mention the new dashboard.' }).waitFor();
    expect(await page.inputValue('#run-message')).toBe('');

    releaseModel();
    await page.waitForSelector('.run-head .badge[data-status="succeeded"]');
    expect(await page.locator('button[data-action="pair"]').count()).toBe(0);
    const secondTurn = model.requests.find(
      (request) =>
        request.messages.length > 1 && request.messages[0]?.role === 'user' && request.messages[0].text.includes('Draft the release notes'),
    );
    expect(secondTurn?.messages.some((message) => message.role === 'user' && message.text.includes('Mention the new dashboard.'))).toBe(
      true,
    );
  });

  it('answers questions of all five kinds from their forms, and the run goes on', async () => {
    await logIn();
    const run = await createRun('quiz.toml', { auto_approve: true });
    await page.goto(`${serve.url}/#/runs/${run.id}`);
    /** The form of the one pending question, once it is of `kind`. */
    const asked = async (kind: string, prompt: string) => {
      const question = page.locator(`.question[data-kind="${kind}"]`);
      await question.waitFor();
      expect(await page.locator('.question').count()).toBe(1);
      expect(await question.locator('.prompt').textContent()).toBe(prompt);
      return question;
    };

    await (await asked('yes_no', 'Proceed?')).locator('button', { hasText: 'Yes' }).click();

    const targets = await asked('multi_select', 'Which targets?');
    expect(
      await targets
        .locator('input[type=checkbox]')
        .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value)),
    ).toEqual(['linux', 'mac', 'windows']);
    await targets.locator('input[value="linux"]').check();
    await targets.locator('input[value="windows"]').check();
    await targets.locator('button[type=submit]').click();

    const title = await asked('freeform', 'Release title?');
    await title.locator('textarea').fill('Spring release');
    await title.locator('button[type=submit]').click();

    await (await asked('confirmation', 'Really publish?')).locator('button', { hasText: 'Confirm' }).click();

    const ship = await asked('choice', 'Ship it?');
    expect(
      await ship.locator('input[type=radio]').evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value)),
    ).toEqual(['ship', 'hold']);
    await ship.locator('input[value="hold"]').check();
    await ship.locator('button[type=submit]').click();

    await page.waitForSelector('.run-head .badge[data-status="succeeded"]');
    expect(await page.locator('.question').count()).toBe(0);
    const { questions } = await api<{ questions: { kind: string; answer: unknown; status: string }[] }>(
      'GET',
      `/runs/${run.id}/questions?pending=false`,
    );
    expect(questions.map(({ kind, answer, status }) => ({ kind, answer, status }))).toEqual([
      { kind: 'yes_no', answer: true, status: 'answered' },
      { kind: 'multi_select', answer: ['linux', 'windows'], status: 'answered' },
      { kind: 'freeform', answer: 'Spring release', status: 'answered' },
      { kind: 'confirmation', answer: true, status: 'answered' },
      { kind: 'choice', answer: 'hold', status: 'answered' },
    ]);
  });

  it('can be used from the keyboard alone at phone width, with nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const run = await createRun('ask.toml', { auto_approve: true });
    await page.goto(`${serve.url}/#/login`);
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await page.waitForSelector('h1:text("Runs")');

    await page.goto(`${serve.url}/#/runs/${run.id}`);
    await page.locator('.question[data-kind="choice"]').waitFor();
    const focused = () =>
      page.evaluate(() => {
        const active = (globalThis as unknown as BrowserWindow).document.activeElement;
        return active === null ? '' : `${active.tagName.toLowerCase()}[${active.type ?? ''}]=${active.value || active.textContent}`;
      });
    const tabTo = async (target: string) => {
      for (let presses = 0; (await focused()) !== target; presses += 1) {
        if (presses > 60) throw new Error(`Tab never reached ${target}`);
        await page.keyboard.press('Tab');
      }
    };
    await tabTo('input[radio]=ship');
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe('input[radio]=hold');
    await tabTo('button[submit]=Answer');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.run-head .badge[data-status="succeeded"]');
    const { questions } = await api<{ questions: { answer: unknown }[] }>('GET', `/runs/${run.id}/questions?pending=false`);
    expect(questions.map(({ answer }) => answer)).toEqual(['hold']);

    const overflow = () =>
      page.evaluate(() => {
        const { document, innerWidth } = globalThis as unknown as BrowserWindow;
        return document.documentElement.scrollWidth - innerWidth;
      });
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.goto(`${serve.url}/#/runs`);
    await page.locator(`tr[data-run="${run.id}"]`).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
  });

  it('filters the runs list by status and text, and shows new runs without a reload', async () => {
    const done = await createRun('quick.toml', { auto_approve: true });
    const waiting = await createRun('quick.toml', { goal: 'wait for a person' });
    await expect.poll(async () => (await api<{ run: RunView }>('GET', `/runs/${done.id}`)).run.status).toBe('succeeded');
    await logIn();
    const rows = page.locator('table.runs tbody tr');
    await page.locator(`tr[data-run="${waiting.id}"]`).waitFor();

    await page.click('button.chip[data-status="succeeded"]');
    await page.locator(`tr[data-run="${waiting.id}"]`).waitFor({ state: 'detached' });
    expect(new Set(await rows.locator('.badge').allTextContents())).toEqual(new Set(['succeeded']));
    await page.click('button.chip[data-status="succeeded"]');

    await page.fill('#run-search', 'wait for a person');
    await expect.poll(() => rows.evaluateAll((elements) => elements.map((row) => row.getAttribute('data-run')))).toEqual([waiting.id]);
    await page.fill('#run-search', '');

    const fresh = await createRun('quick.toml');
    await page.locator(`tr[data-run="${fresh.id}"] .badge[data-status="pending"]`).waitFor();
    await api('POST', `/runs/${fresh.id}/cancel`, {});
    await page.locator(`tr[data-run="${fresh.id}"] .badge[data-status="cancelled"]`).waitFor();
  });

  it('adds an MCP server, shows it ready with its tools, and removes it', async () => {
    await logIn();
    await page.goto(`${serve.url}/#/mcp`);
    await page.fill('#mcp-name', 'everything');
    await page.fill('#mcp-command', process.execPath);
    await page.fill('#mcp-args', `${EVERYTHING}\nstdio`);
    await page.click('form.add-server button[type=submit]');

    const row = page.locator('tr[data-server="everything"]');
    await row.locator('.badge[data-status="ready"]').waitFor();
    await row.locator('summary').click();
    expect(await row.locator('li').allTextContents()).toContain('mcp__everything__echo');
    expect((await api<{ servers: { name: string }[] }>('GET', '/mcp/servers')).servers.map((server) => server.name)).toContain(
      'everything',
    );

    await row.locator('button', { hasText: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await api<{ servers: { name: string }[] }>('GET', '/mcp/servers')).servers.map((server) => server.name)).not.toContain(
      'everything',
    );
  });
});
