/**
 * What a client sends never floods the MCP server's stderr: a message with a 1 MB unknown
 * key (which the SDK's issue list quoted eight times over: 8 MB of stderr) and a burst of
 * malformed messages give a bounded number of one-line, bounded reports, and the server
 * still answers the next request. Alike for `weft mcp start` and for a library user's
 * program serving `serveWeftMcpStdio` without an `onError` of its own.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT, WEFT_BIN } from './helpers/run-cli.js';

vi.setConfig({ testTimeout: 60_000 });

const dir = mkdtempSync(join(tmpdir(), 'weft-mcp-stderr-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SERVERS = [
  { name: 'weft mcp start', args: [WEFT_BIN, '--storage-dir', join(dir, 'home'), 'mcp', 'start'], prefix: 'weft: mcp server:' },
  { name: 'the library: serveWeftMcpStdio', args: [join(REPO_ROOT, 'test/fixtures/library-mcp-stdio.mjs')], prefix: 'weft: server:' },
];

describe.each(SERVERS)('$name (stdio) with hostile messages', ({ args, prefix }) => {
  it('reports each rejected message on one bounded line, at most 20, and goes on answering', async () => {
    const child = spawn(process.execPath, args, {
      cwd: dir,
      env: { ...process.env, WEFT_HOME: join(dir, 'home') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk));
    const answered = new Promise<void>((resolve) =>
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('"id":"last"')) resolve();
      }),
    );
    child.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"tools/list","${'K'.repeat(1_000_000)}":1}\n`);
    for (let i = 0; i < 50; i += 1) child.stdin.write(`{"jsonrpc":"2.0","x${i}":"\u001b[2J"}\n`);
    child.stdin.write(
      '{"jsonrpc":"2.0","id":"last","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n',
    );
    await answered;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.end();
    child.kill('SIGTERM');
    await exited;

    const lines = stderr.split('\n').filter((line) => line.startsWith(prefix));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(20);
    expect(stderr.length).toBeLessThan(20 * 400);
    for (const line of lines) expect(line.length).toBeLessThan(400);
    expect(stderr).not.toContain('\u001b');
  });
});
