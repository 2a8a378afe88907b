/**
 * The fixed-seed slice of the protocol fuzzer (test/fuzz/): `weft mcp start` over stdio and
 * Streamable HTTP in both protocol eras, and `weft serve`'s HTTP API, each fed a seeded
 * corpus from its own schemas plus hostile mutations. WEFT_FUZZ_SEED replays another seed;
 * `npm run fuzz -- --minutes N` is the long run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fuzzApi } from './fuzz/api-fuzz.js';
import { fuzzTarget, type FuzzReport } from './fuzz/fuzz-runner.js';
import { HttpTarget } from './fuzz/http-target.js';
import type { Era } from './fuzz/jsonrpc-corpus.js';
import { Rng, seedFromEnv } from './fuzz/rng.js';
import { StdioTarget } from './fuzz/stdio-target.js';
import { startHttp } from './helpers/mcp-server-kit.js';
import { startServe } from './helpers/serve-kit.js';

const SEED = seedFromEnv(20261128);
const CASES = 120;
/** Every hostile kind at least once, whatever the seed draws. */
const ALWAYS = [
  'huge-string',
  'deep-raw',
  'deep-value',
  'half-written',
  'truncated',
  'invalid-utf8',
  'raw-number',
  'duplicate-ids',
  'batch',
  'notification-with-id',
  'method-unknown',
  'bad-envelope',
  'garbage',
  'cancel-in-flight',
];

const dirs: string[] = [];
function workspace(): { dir: string; storageDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'weft-fuzz-'));
  dirs.push(dir);
  const storageDir = join(dir, '.home');
  mkdirSync(storageDir);
  return { dir, storageDir };
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function expectClean(report: FuzzReport): void {
  // The findings name the case kind, the invariant broken and the frame's first bytes.
  expect(report.findings, `seed ${report.seed}`).toEqual([]);
  expect(report.cases).toBe(CASES);
}

describe.each<Era>(['legacy', 'modern'])('protocol fuzzer, %s era', (era) => {
  it('over stdio: every request answered, the server alive, the store untouched by refusals, memory bounded', async () => {
    const { dir, storageDir } = workspace();
    const target = await StdioTarget.start(era, dir, storageDir);
    try {
      const report = await fuzzTarget(target, { seed: SEED, era, storageDir, cases: CASES, big: false, always: ALWAYS });
      expectClean(report);
      // A 10 MB line is refused with an answer (TOO_LARGE), not by a transport that stops reading.
      expect(report.byKind['huge-string']).toMatchObject({ cases: 1, answered: 1, errors: 1 });
    } finally {
      await target.close();
    }
  }, 120_000);

  it('over Streamable HTTP: the same invariants, hostile headers included', async () => {
    const { dir, storageDir } = workspace();
    const server = await startHttp({ dir, storageDir, remove: () => undefined });
    try {
      const target = new HttpTarget(era, server.url, server.token, server.child.pid!, new Rng(SEED + 1), () => server.stderr());
      await target.open();
      expectClean(await fuzzTarget(target, { seed: SEED, era, storageDir, cases: CASES, big: false, always: ALWAYS }));
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe('HTTP API fuzzer', () => {
  it("answers every hostile request to every route with a 4xx and weft's error body or a success, never a 5xx", async () => {
    const serve = await startServe();
    try {
      const report = await fuzzApi({
        baseUrl: serve.url,
        token: serve.token,
        pid: serve.child.pid!,
        storageDir: serve.storageDir,
        rng: new Rng(SEED),
        seed: SEED,
        cases: 200,
        big: true,
      });
      expect(report.findings, `seed ${SEED}`).toEqual([]);
      // Every route of the OpenAPI document was reached, not just a few.
      expect(new Set(Object.keys(report.byKind).map((kind) => kind.split(' ').slice(0, 2).join(' '))).size).toBeGreaterThan(15);
    } finally {
      await serve.stop();
    }
  }, 120_000);
});

describe('defects the fuzzers found', () => {
  it('refuses a NUL byte in a run path with a 400 naming it, not a 500 internal error (the run service every surface shares)', async () => {
    const serve = await startServe();
    try {
      writeFileSync(join(serve.dir, 'quick.toml'), '[nodes.hello]\nkind = "command"\nrun = "echo hi"\n');
      for (const body of [
        { workflow: 'a\u0000.toml' },
        { workflow: 'quick.toml', cwd: 'x/\u0000' },
        { workflow: 'quick.toml', goal_file: 'g\u0000' },
      ]) {
        const answer = await fetch(`${serve.url}/api/v1/runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${serve.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const json = (await answer.json()) as { error: { code: string; message: string } };
        expect([answer.status, json.error.code], JSON.stringify(json)).toEqual([400, 'RUN_INVALID_PARAMS']);
        expect(json.error.message).toMatch(/contains a NUL byte/);
      }
    } finally {
      await serve.stop();
    }
  });
});
