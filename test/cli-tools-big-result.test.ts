/**
 * `weft tools call` with a 50 MiB MCP tool result (issue 28): the real CLI against the
 * fixture server's `big` tool, its peak RSS (Linux VmHWM, written by a preload at exit)
 * compared with the same command's peak for a tiny result, and the whole result checked
 * in the artifact the output budget keeps it in.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, WEFT_BIN } from './helpers/run-cli.js';
import { runNode } from './helpers/run-node.js';

const FIXTURE_SERVER = resolve(REPO_ROOT, 'test/fixtures/servers/fixture-server.mjs');
const PEAK_RSS = resolve(REPO_ROOT, 'test/fixtures/peak-rss.mjs');
const MIB = 1024 * 1024;
const RESULT_MIB = 50;

let base: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-big-result-'));
  await writeFile(join(base, '.mcp.json'), JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } }));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Runs `weft tools call <tool>` and returns its output and peak RSS in bytes. */
async function callWithPeak(
  tool: string,
  args: object,
  label: string,
): Promise<{ code: number | null; stdout: string; stderr: string; peak: number }> {
  const peakFile = join(base, `${label}.peak`);
  const result = await runNode(['--import', PEAK_RSS, WEFT_BIN, 'tools', 'call', tool, '--args', JSON.stringify(args)], {
    cwd: base,
    env: { ...process.env, WEFT_HOME: join(base, 'home'), WEFT_TEST_PEAK_RSS_FILE: peakFile },
  });
  return { ...result, peak: Number(await readFile(peakFile, 'utf8')) * 1024 };
}

describe('weft tools call with a 50 MiB MCP result', () => {
  it('keeps the whole result in the artifact and peaks under 2.5× the result over its idle footprint', async () => {
    const idle = await callWithPeak('mcp__fx__echo', { message: 'small' }, 'idle');
    expect(idle.stdout, idle.stderr).toBe('echo: small\n');

    const big = await callWithPeak('mcp__fx__big', { megabytes: RESULT_MIB }, 'big');
    expect(big.code, big.stderr).toBe(0);
    const artifact = /Full output saved to (\S+\.txt)\]/.exec(big.stdout)?.[1];
    expect(artifact, big.stdout.slice(-300)).toBeDefined();
    const line = `${'x'.repeat(1023)}\n`;
    expect(big.stdout.startsWith(line.repeat(10))).toBe(true);
    const saved = await readFile(artifact as string, 'utf8');
    expect(saved.length).toBe(RESULT_MIB * MIB);
    expect(saved === line.repeat(RESULT_MIB * 1024)).toBe(true);

    // Reading the line and parsing it need two copies of the result (bytes and string, then
    // string and parsed value); before issue 28 the chunks, their join, the string and the
    // parsed value piled up to 3× (≈ 152 MiB over idle). Now ≈ 110 MiB.
    const overIdle = (big.peak - idle.peak) / MIB;
    expect(overIdle, `peak ${Math.round(big.peak / MIB)} MiB, idle ${Math.round(idle.peak / MIB)} MiB`).toBeLessThan(2.5 * RESULT_MIB);
  }, 120_000);
});
