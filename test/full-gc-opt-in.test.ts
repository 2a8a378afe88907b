/**
 * Who may change V8's flags to reach `gc` (`core/full-gc.ts`): the `weft` CLI does, once,
 * when it reads a huge MCP line (and sets the flag back at once); a library user's program
 * reading the same 20 MiB result through `weft-runtime/mcp` sets none. Real processes, a
 * preload that records every flag set at run time, the fixture server's `big` tool.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, WEFT_BIN } from './helpers/run-cli.js';
import { runNode } from './helpers/run-node.js';

const FIXTURE_SERVER = resolve(REPO_ROOT, 'test/fixtures/servers/fixture-server.mjs');
const FLAGS_RECORDER = resolve(REPO_ROOT, 'test/fixtures/v8-flags-recorder.mjs');
const LIBRARY_PROGRAM = resolve(REPO_ROOT, 'test/fixtures/library-big-tool-call.mjs');
/** Above the hub's huge-line threshold (16 Mi characters). */
const RESULT_MIB = 20;

let base: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-full-gc-'));
  await writeFile(join(base, '.mcp.json'), JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } }));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Runs `node --import <recorder> <args>` and returns its output and the V8 flags it set. */
async function withFlagsRecorded(
  args: string[],
  label: string,
): Promise<{ code: number | null; stdout: string; stderr: string; flags: string[] }> {
  const flagsFile = join(base, `${label}.flags.json`);
  const result = await runNode(['--import', FLAGS_RECORDER, ...args], {
    cwd: base,
    env: {
      ...process.env,
      WEFT_HOME: join(base, 'home'),
      WEFT_TEST_V8_FLAGS_FILE: flagsFile,
      WEFT_TEST_ARTIFACTS: join(base, 'artifacts'),
    },
  });
  return { ...result, flags: JSON.parse(await readFile(flagsFile, 'utf8')) as string[] };
}

describe('reaching gc for a huge MCP result', () => {
  it('the weft CLI sets --expose-gc for a moment, once, and unsets it', async () => {
    const small = await withFlagsRecorded([WEFT_BIN, 'tools', 'call', 'mcp__fx__echo', '--args', '{"message":"small"}'], 'cli-small');
    expect(small.stdout, small.stderr).toBe('echo: small\n');
    expect(small.flags).toEqual([]);

    const big = await withFlagsRecorded(
      [WEFT_BIN, 'tools', 'call', 'mcp__fx__big', '--args', JSON.stringify({ megabytes: RESULT_MIB })],
      'cli-big',
    );
    expect(big.code, big.stderr).toBe(0);
    expect(big.flags).toEqual(['--expose-gc', '--no-expose-gc']);
  }, 120_000);

  it("a library user's program gets the whole result and its V8 flags are left alone", async () => {
    const library = await withFlagsRecorded([LIBRARY_PROGRAM, FIXTURE_SERVER, String(RESULT_MIB)], 'library');
    expect(library.code, library.stderr).toBe(0);
    expect(JSON.parse(library.stdout)).toEqual({ isError: false, savedBytes: RESULT_MIB * 1024 * 1024 });
    expect(library.flags).toEqual([]);
  }, 120_000);
});
