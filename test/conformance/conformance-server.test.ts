/**
 * The official MCP conformance suite's server scenarios against `weft mcp start --http`.
 * The suite's client sends no headers, so the server runs with `--no-auth` (allowed only
 * on a loopback host); DNS-rebinding protection stays on. The generic scenarios must
 * pass; the ones that call the reference server's fixtures are listed, with reasons, in
 * `server-expected-failures.yml`. Run on weft's MCP fast path and on the plain SDK path
 * (`WEFT_MCP_FAST_PATH=0`: the SDK's session transport and JSON Schema validator), with the
 * same expectations.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode, type Finished } from '../helpers/run-node.js';

const here = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(here, '../..');
const CONFORMANCE_CLI = resolve(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const REGISTER_HOOK = resolve(here, 'register-node20-globsync.mjs');
const BASELINE = resolve(here, 'server-expected-failures.yml');
const WEFT_BIN = resolve(REPO_ROOT, 'bin/weft.js');
/** Scenarios that test the protocol, not fixtures: each must run and pass. */
const MUST_PASS = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'tools-list',
  'resources-list',
  'prompts-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

function run(args: string[], cwd: string): Promise<Finished> {
  return runNode(args, { cwd });
}

const PATHS = [
  { path: 'the fast path', env: { ...process.env, WEFT_MCP_FAST_PATH: undefined } },
  { path: 'the plain SDK path', env: { ...process.env, WEFT_MCP_FAST_PATH: '0' } },
];

/** `✓ name: 1 passed, 0 failed` lines of the summary: scenario → passed. */
function summary(stdout: string): Map<string, boolean> {
  const lines = stdout.slice(stdout.indexOf('=== SUMMARY ==='));
  return new Map([...lines.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed/gm)].map((match) => [match[2] ?? '', match[1] === '✓']));
}

function baselineScenarios(): string[] {
  return [...readFileSync(BASELINE, 'utf8').matchAll(/^\s+-\s+(\S+)/gm)].map((match) => match[1] ?? '');
}

describe.each(PATHS)('MCP conformance suite, server scenarios, against weft mcp start --http on $path', ({ env }) => {
  let tmp: string;
  let server: ChildProcess;
  let result: Finished;
  let serverLog = '';

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'weft-conformance-server-'));
    server = spawn(
      process.execPath,
      [WEFT_BIN, '--storage-dir', join(tmp, 'store'), 'mcp', 'start', '--http', '--port', '0', '--no-auth'],
      { cwd: tmp, env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const url = await new Promise<string>((done, fail) => {
      server.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        serverLog += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(serverLog);
        if (match?.[1]) done(match[1]);
      });
      server.once('exit', (code) => fail(new Error(`weft mcp start exited with ${code}: ${serverLog}`)));
    });
    result = await run(
      ['--import', REGISTER_HOOK, CONFORMANCE_CLI, 'server', '--url', url, '--expected-failures', BASELINE, '-o', join(tmp, 'results')],
      tmp,
    );
  }, 180_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((done) => server.once('exit', done));
      server.kill('SIGTERM');
      await exited;
    }
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('passes against the expected-failures baseline', () => {
    expect(result.code, `${result.stdout.slice(-6000)}\n--- stderr ---\n${result.stderr.slice(-2000)}\n--- server ---\n${serverLog}`).toBe(
      0,
    );
    expect(result.stdout).toContain('Baseline check passed: all failures are expected.');
  });

  it('passes every generic scenario; only the listed fixture scenarios fail', () => {
    const ran = summary(result.stdout);
    const passed = [...ran].filter(([, ok]) => ok).map(([scenario]) => scenario);
    const failed = [...ran].filter(([, ok]) => !ok).map(([scenario]) => scenario);
    expect(passed).toEqual(expect.arrayContaining(MUST_PASS));
    expect(failed.sort()).toEqual(baselineScenarios().sort());
  });
});
