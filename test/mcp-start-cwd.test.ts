/**
 * One composition root: `weft --cwd X mcp start`, started from another folder, builds
 * its app from X — X's `[store] url` picks the run store (the embedded PostgreSQL here),
 * so a run created through the MCP server is in X's database and not in the storage
 * dir's SQLite file.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresRunStore } from '../src/runs/store/postgres/postgres-run-store.js';
import { testPostgres } from './helpers/postgres.js';
import { WEFT_BIN } from './helpers/run-cli.js';
import { call } from './helpers/mcp-server-kit.js';

let base: string;
let url: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'weft-mcp-cwd-'));
  url = await (await testPostgres()).createDatabase();
});

afterAll(async () => {
  rmSync(base, { recursive: true, force: true });
  await (await testPostgres()).dispose();
});

it("weft --cwd X mcp start keeps its runs in the store X's settings name", async () => {
  const project = join(base, 'project');
  const elsewhere = join(base, 'elsewhere');
  const storageDir = join(base, 'home');
  mkdirSync(join(project, '.weft'), { recursive: true });
  mkdirSync(elsewhere);
  writeFileSync(join(project, '.weft', 'settings.toml'), `[store]\nurl = "${url}"\n`);
  writeFileSync(join(project, 'quick.toml'), '[nodes.hello]\nkind = "command"\nrun = "echo hello"\n');

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [WEFT_BIN, '--storage-dir', storageDir, '--cwd', project, 'mcp', 'start'],
    cwd: elsewhere,
    env: { ...(process.env as Record<string, string>), WEFT_DATABASE_URL: '' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'weft-test', version: '1.0.0' });
  await client.connect(transport);
  let runId: string;
  try {
    const created = await call(client, 'weft_run_create', { runs: [{ workflow: 'quick.toml', auto_approve: false }] });
    expect(created.isError, created.text).toBe(false);
    runId = (created.data.results as { run: { id: string } }[])[0]!.run.id;
  } finally {
    await client.close();
  }

  const store = await PostgresRunStore.open({ url });
  try {
    expect((await store.getRun(runId))?.id).toBe(runId);
  } finally {
    await store.close();
  }
  expect(existsSync(join(storageDir, 'weft.db'))).toBe(false);
});
