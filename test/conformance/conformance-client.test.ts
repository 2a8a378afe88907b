/**
 * The official MCP conformance suite's client scenarios against weft's MCP hub: bundles
 * the adapter client (`weft-client.ts`) once, runs every client scenario the suite has —
 * its named suites `core`, `extensions`, `backcompat` and `draft` one after another, which
 * together are `--suite all` (a test checks that nothing is left out) — on Node 20 through
 * the `fs.globSync` loader hook, with results in a temp dir, and asserts each passes
 * against `expected-failures.yml`. The `core` suite (initialize, tools/call, elicitation,
 * SSE retry: what the hub's client does outside OAuth) runs again on the plain SDK path
 * (`WEFT_MCP_FAST_PATH=0`: the SDK's own `Client`), with the same expectations. Also pins
 * the loader hook itself.
 */
import nodeFs, { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode, type Finished } from '../helpers/run-node.js';

const here = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(here, '../..');
const CONFORMANCE_CLI = resolve(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const REGISTER_HOOK = resolve(here, 'register-node20-globsync.mjs');
const BASELINE = resolve(here, 'expected-failures.yml');
const ADAPTER = resolve(here, 'weft-client.ts');
const LAUNCHER = resolve(here, 'client-launcher.mjs');
/** The scenarios weft passes; each must run and pass, whatever the baseline says. */
const MUST_PASS = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'sse-retry',
  // OAuth (src/mcp/oauth): discovery (also via the challenge's resource_metadata), dynamic
  // registration, pre-registered clients, client ID metadata documents, PKCE, scope
  // selection and step-up, token endpoint auth methods.
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/pre-registration',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-step-up',
  'auth/scope-omitted-when-undefined',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  // 2025-03-26 servers: metadata at the server's origin with a path in its issuer, and no metadata at all.
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  // Draft: resource indicator checks and offline access.
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  // Extensions: `oauth = { grant = "client_credentials" | "cross_app_access", … }`.
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/cross-app-access-complete-flow',
];

/** The suite's named client suites, run one after another; together they are `--suite all`. */
const SUITES = ['core', 'extensions', 'backcompat', 'draft'] as const;

/**
 * Per-scenario limit of the suite (default 30 s). A suite starts its clients at once; on a
 * busy 2-core machine a client has waited 25 s for CPU before its first request, which says
 * nothing about weft. The adapter's own startup limit sits below this one.
 */
const SCENARIO_TIMEOUT_MS = 120_000;

function run(args: string[], cwd: string): Promise<Finished> {
  return runNode(args, { cwd });
}

/** The scenario names listed under `client:` in the baseline file. */
function baselineScenarios(): string[] {
  return [...readFileSync(BASELINE, 'utf8').matchAll(/^\s+-\s+(\S+)/gm)].map((match) => match[1] ?? '');
}

/** `✓ name: 1 passed, 0 failed[, 1 warnings]` lines of the suite summary: name → clean pass. */
function summary(stdout: string): Map<string, boolean> {
  const lines = stdout.slice(stdout.indexOf('=== SUITE SUMMARY ==='));
  return new Map([...lines.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed/gm)].map((match) => [match[2] ?? '', match[1] === '✓']));
}

/** The failed and warning checks plus the client's stderr of one scenario, from the results dir. */
function scenarioReport(outDir: string, scenario: string): string {
  const parent = join(outDir, dirname(scenario));
  const dir = existsSync(parent) ? readdirSync(parent).find((entry) => entry.startsWith(`${basename(scenario)}-`)) : undefined;
  if (!dir) return `${scenario}: no results written`;
  const checks = JSON.parse(readFileSync(join(parent, dir, 'checks.json'), 'utf8')) as {
    id: string;
    status: string;
    errorMessage?: string;
    description: string;
  }[];
  const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
  const lines = bad.map((check) => `  ${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
  return [`${scenario}:`, ...lines, '  client stderr:', readFileSync(join(parent, dir, 'stderr.txt'), 'utf8').trim()].join('\n');
}

function conformance(args: string[], cwd: string, env?: Record<string, string | undefined>): Promise<Finished> {
  return runNode(['--import', REGISTER_HOOK, CONFORMANCE_CLI, ...args], { cwd, ...(env === undefined ? {} : { env }) });
}

/** Every client scenario the installed suite knows (`conformance list --client`). */
async function allScenarios(cwd: string): Promise<string[]> {
  const listed = await conformance(['list', '--client'], cwd);
  return [...listed.stdout.matchAll(/^\s+-\s+(\S+)/gm)].map((match) => match[1] ?? '');
}

describe('MCP conformance suite, client scenarios, against weft', () => {
  let tmp: string;
  let adapter: string;
  const ran = new Map<string, boolean>();

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'weft-conformance-'));
    // One self-contained bundle: a suite starts its clients at once, and through tsx each
    // would spend seconds transpiling weft's sources before speaking MCP.
    adapter = join(tmp, 'weft-client.mjs');
    await build({
      entryPoints: [ADAPTER],
      outfile: adapter,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
    });
  }, 60_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /** Runs one named suite of client scenarios and checks it against the baseline; returns scenario → passed. */
  async function runSuite(suite: string, name: string, env?: Record<string, string | undefined>): Promise<Map<string, boolean>> {
    const outDir = join(tmp, `results-${name}`);
    // The launcher lowers the priority of every client but sse-retry's, whose reconnect is timed.
    const command = [process.execPath, LAUNCHER, adapter];
    // The CLI splits --command on spaces.
    if (command.some((part) => part.includes(' ')))
      throw new Error(`paths with spaces cannot pass through --command: ${command.join(' ')}`);
    const startedAt = Date.now();
    const result = await conformance(
      [
        'client',
        '--command',
        command.join(' '),
        '--suite',
        suite,
        '--timeout',
        String(SCENARIO_TIMEOUT_MS),
        '--expected-failures',
        BASELINE,
        '-o',
        outDir,
      ],
      tmp,
      env,
    );
    const elapsedMs = Date.now() - startedAt;
    const results = summary(result.stdout);
    const unexpected = [...results].filter(([scenario, ok]) => ok === baselineScenarios().includes(scenario)).map(([scenario]) => scenario);
    const report = unexpected.map((scenario) => scenarioReport(outDir, scenario)).join('\n\n');
    expect(
      result.code,
      `conformance exited ${result.code} after ${elapsedMs} ms\n${report}\n--- stdout ---\n${result.stdout}\n--- stderr (tail) ---\n${result.stderr.slice(-4000)}`,
    ).toBe(0);
    expect(result.stdout).toContain('Baseline check passed: all failures are expected.');
    const declared = new RegExp(`Running ${suite} suite \\((\\d+) scenarios\\)`).exec(result.stdout);
    expect(Number(declared?.[1])).toBe(results.size);
    // Results land in the temp dir, `auth/x` scenarios under `auth/`.
    for (const scenario of results.keys()) {
      const [folder, name] = scenario.includes('/') ? [join(outDir, scenario.split('/')[0]!), scenario.split('/')[1]!] : [outDir, scenario];
      expect(readdirSync(folder)).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${name}-`))]));
    }
    return results;
  }

  it.each(SUITES)(
    'suite %s passes against the expected-failures baseline',
    async (suite) => {
      for (const [scenario, ok] of await runSuite(suite, suite)) ran.set(scenario, ok);
    },
    SCENARIO_TIMEOUT_MS + 60_000,
  );

  it(
    'suite core passes the same on the plain SDK path (WEFT_MCP_FAST_PATH=0)',
    async () => {
      const plain = await runSuite('core', 'core-plain-sdk', { ...process.env, WEFT_MCP_FAST_PATH: '0' });
      const onFastPath = [...ran].filter(([scenario]) => plain.has(scenario));
      expect([...plain].sort()).toEqual(onFastPath.sort());
    },
    SCENARIO_TIMEOUT_MS + 60_000,
  );

  it('ran every client scenario the suite has: the ones weft supports passed, only baseline entries failed', async () => {
    expect([...ran.keys()].sort()).toEqual((await allScenarios(tmp)).sort());
    const passed = [...ran].filter(([, ok]) => ok).map(([scenario]) => scenario);
    const failed = [...ran].filter(([, ok]) => !ok).map(([scenario]) => scenario);
    expect(passed).toEqual(expect.arrayContaining(MUST_PASS));
    expect(failed.sort()).toEqual(baselineScenarios().sort());
  });
});

describe('node20-globsync loader hook', () => {
  let tmp: string;

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'weft-globsync-'));
    const data = join(tmp, 'data');
    mkdirSync(join(data, 'auth', 'basic'), { recursive: true });
    writeFileSync(join(data, 'checks.json'), '[]');
    writeFileSync(join(data, 'auth', 'basic', 'checks.json'), '[]');
    writeFileSync(join(data, 'auth', 'notes.txt'), '');
    // An importer inside a (stand-in) conformance package, and one outside it.
    const inside = join(tmp, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist');
    mkdirSync(inside, { recursive: true });
    writeFileSync(
      join(inside, 'probe.mjs'),
      [
        "import { globSync, readFileSync } from 'fs';",
        "import fs from 'node:fs';",
        'const cwd = process.argv[2];',
        'const found = (pattern) => globSync(pattern, { cwd }).sort();',
        "console.log(JSON.stringify({ checks: found('**/checks.json'), auth: found('auth/*'), defaultHas: typeof fs.globSync, readFile: typeof readFileSync }));",
      ].join('\n'),
    );
    writeFileSync(join(tmp, 'outside.mjs'), "import fs from 'node:fs';\nconsole.log(typeof fs.globSync);\n");
  });

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('gives importers inside the conformance package fs plus a Node 22-style globSync', async () => {
    const probe = await run(
      ['--import', REGISTER_HOOK, join(tmp, 'node_modules/@modelcontextprotocol/conformance/dist/probe.mjs'), join(tmp, 'data')],
      tmp,
    );
    expect(probe.code, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout)).toEqual({
      checks: ['auth/basic/checks.json', 'checks.json'],
      auth: ['auth/basic', 'auth/notes.txt'],
      defaultHas: 'function',
      readFile: 'function',
    });
  });

  it('leaves every other importer with the fs Node has', async () => {
    const outside = await run(['--import', REGISTER_HOOK, join(tmp, 'outside.mjs')], tmp);
    expect(outside.code, outside.stderr).toBe(0);
    expect(outside.stdout.trim()).toBe(typeof Reflect.get(nodeFs, 'globSync'));
  });
});
