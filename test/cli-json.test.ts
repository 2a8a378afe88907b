/**
 * The field names of every `--json` output (and of `weft export`'s JSON Lines) are pinned
 * against docs/cli-json.md: each test runs the real CLI and fails when an output lacks a
 * field the doc lists. `store migrate` is pinned in pg-store-migrate.test.ts (it needs
 * PostgreSQL).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { documentedFields, expectFields, keysOf } from './helpers/cli-json-fields.js';
import { REPO_ROOT } from './helpers/run-cli.js';
import { createSandbox, jsonLines, until, type Sandbox } from './fixtures/workflows-e2e/harness.js';

// Real processes on a possibly busy machine: more time than the default 30 s.
vi.setConfig({ testTimeout: 90_000 });

const MEMORY = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

/** Every section of docs/cli-json.md, each checked below or in pg-store-migrate.test.ts. */
const SECTIONS = [
  'Run record',
  'inspect',
  'Event',
  'wait',
  'workflow validate',
  'mcp add',
  'mcp remove',
  'mcp init',
  'answer',
  'pair --status',
  'tools list',
  'tools call',
  'mcp list',
  'mcp get',
  'MCP server config',
  'MCP server status',
  'mcp test',
  'mcp import',
  'doctor',
  'prune',
  'store migrate',
  'export: run line',
  'export: event line',
  'export: artifact line',
  'schedule',
  'trigger',
];

let box: Sandbox;
let fields: Map<string, string[]>;

beforeEach(async () => {
  box = await createSandbox();
  fields = await documentedFields();
});
afterEach(async () => {
  await box.dispose();
});

async function json(args: string[], expectedCode = 0, extraEnv: Record<string, string> = {}): Promise<unknown> {
  const result = await box.cli(args, extraEnv);
  expect(result.code, result.stderr).toBe(expectedCode);
  return JSON.parse(result.stdout);
}

describe('--json output', () => {
  it('docs/cli-json.md has exactly the sections these tests check', () => {
    expect([...fields.keys()]).toEqual(SECTIONS);
  });

  it('has every field docs/cli-json.md lists, for runs, inspect, events, logs, wait, workflow validate and mcp add/remove/init', async () => {
    const finished = await box.cli(['run', 'ok.toml']);
    expect(finished.code, finished.stderr).toBe(0);
    const created = await json(['create', 'ok.toml', '--json']);
    expectFields(created, fields.get('Run record'));
    const id = (created as { id: string }).id;

    const listed = (await json(['ps', '--json'])) as unknown[];
    expect(listed).toHaveLength(2);
    for (const run of listed) expectFields(run, fields.get('Run record'));
    const inspected = await json(['inspect', id, '--json']);
    expectFields(inspected, [...fields.get('Run record')!, ...fields.get('inspect')!]);

    const last = ((await json(['ps', '--json'])) as { id: string }[]).find((run) => run.id !== id)!.id;
    const [events, logs] = await Promise.all([box.cli(['events', last]), box.cli(['logs', last, '--json'])]);
    expect(logs.stdout).toBe(events.stdout);
    const lines = jsonLines<object>(events.stdout);
    expect(lines.length).toBeGreaterThan(3);
    for (const event of lines) expectFields(event, fields.get('Event'));

    const waited = (await json(['wait', last, '--json'])) as { runs: unknown[] };
    expectFields(waited, fields.get('wait'));
    expect(waited.runs).toEqual([{ id: last, status: 'succeeded', reason: null }]);

    const valid = await json(['workflow', 'validate', 'ok.toml', '--json']);
    expectFields(valid, fields.get('workflow validate'));
    const invalid = (await json(['workflow', 'validate', 'broken.toml', '--json'], 2)) as { valid: boolean; problems: { line: number }[] };
    expectFields(invalid, fields.get('workflow validate'));
    expect(invalid.valid).toBe(false);
    expect(invalid.problems.length).toBeGreaterThan(1);
    expect(keysOf(invalid.problems[0])).toEqual(['file', 'line', 'message']);

    const added = await json(['mcp', 'add', 'mem', '--json', '--', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expectFields(added, fields.get('mcp add'));
    expect(added).toEqual({ name: 'mem', scope: 'project', file: join(box.ws, '.mcp.json'), replaced: false, warnings: [] });
    const addedJson = await json([
      'mcp',
      'add-json',
      'web',
      '{"type":"http","url":"https://example.com/mcp","tools":3}',
      '--scope',
      'user',
      '--json',
    ]);
    expectFields(addedJson, fields.get('mcp add'));
    expect(addedJson).toMatchObject({
      name: 'web',
      scope: 'user',
      replaced: false,
      warnings: [expect.stringContaining("field 'tools' is not used by weft")],
    });
    const removed = await json(['mcp', 'remove', 'mem', '--json']);
    expectFields(removed, fields.get('mcp remove'));
    expect(removed).toEqual({ name: 'mem', scope: 'project', file: join(box.ws, '.mcp.json') });
    const init = await json(['mcp', 'init', 'claude', '--scope', 'project', '--json']);
    expectFields(init, fields.get('mcp init'));
    expect(init).toMatchObject({ client: 'claude', scope: 'project', file: join(box.ws, '.mcp.json'), status: 'added', portable: true });
  });

  it('has every field docs/cli-json.md lists, for answer, signal, rm, pair --status, export and prune', async () => {
    // gated.toml asks a question before its wait stage, so `answer` and `signal` both have something to act on.
    const detached = await box.cli(['run', 'gated.toml', '--detach']);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    const questionId = await until('the question', async () => (await box.inspect(id)).pendingQuestions?.[0]?.id);

    const signalled = await json(['signal', id, 'deployed', '--json']);
    expectFields(signalled, fields.get('Run record'));
    const answered = await json(['answer', id, questionId, 'yes', '--json']);
    expectFields(answered, fields.get('answer'));
    expect(answered).toMatchObject({ id: questionId, runId: id, status: 'answered', answer: true });
    expect(((await json(['wait', id, '--json'])) as { runs: { status: string }[] }).runs[0]!.status).toBe('succeeded');

    const paired = await json(['pair', id, '--status', '--json']);
    expectFields(paired, fields.get('pair --status'));
    expect(paired).toEqual({ run: { id, status: 'succeeded' }, stages: [], session: null });

    const exported = jsonLines<{ type: string }>((await box.cli(['export', id])).stdout);
    expectFields(exported[0], fields.get('export: run line'));
    expectFields((exported[0] as unknown as { run: unknown }).run, fields.get('Run record'));
    const eventLines = exported.filter((line) => line.type === 'event');
    expect(eventLines.length).toBeGreaterThan(3);
    for (const line of eventLines) expectFields(line, fields.get('export: event line'));
    expectFields((eventLines[0] as unknown as { event: unknown }).event, fields.get('Event'));
    // The export's artifact lines: a file the run's tools saved under the storage dir.
    const artifacts = join(box.home, 'artifacts', id);
    await mkdir(artifacts, { recursive: true });
    await writeFile(join(artifacts, 'out.txt'), 'saved output');
    const artifactLine = jsonLines<{ type: string }>((await box.cli(['export', id])).stdout).find((line) => line.type === 'artifact');
    expectFields(artifactLine, fields.get('export: artifact line'));
    expect(artifactLine).toEqual({ type: 'artifact', path: join(artifacts, 'out.txt'), bytes: 12 });

    const pruned = (await json(['prune', '--older-than', '0s', '--dry-run', '--json'])) as { runs: unknown[] };
    expectFields(pruned, fields.get('prune'));
    expect(pruned.runs).toHaveLength(1);
    expect(keysOf(pruned.runs[0])).toEqual(['createdAt', 'id', 'status', 'workflow']);
    expect(await json(['rm', id, '--json'])).toEqual({ ok: true });
  });

  it('has every field docs/cli-json.md lists, for tools list/call, mcp list/get/test/import and doctor', async () => {
    await writeFile(
      join(box.ws, '.mcp.json'),
      JSON.stringify({
        mcpServers: { memory: { command: 'node', args: [MEMORY], env: { MEMORY_FILE_PATH: join(box.base, 'memory.jsonl') } } },
      }),
    );

    const tools = (await json(['tools', 'list', '--json'])) as { name: string }[];
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['shell', 'mcp__memory__read_graph']));
    for (const tool of tools) expectFields(tool, fields.get('tools list'));
    const called = await json(['tools', 'call', 'shell', '--args', '{"command":"echo hi"}', '--json']);
    expectFields(called, fields.get('tools call'));

    const servers = (await json(['mcp', 'list', '--json'])) as unknown[];
    expect(servers).toHaveLength(1);
    expectFields(servers[0], fields.get('mcp list'));
    const got = (await json(['mcp', 'get', 'memory', '--json'])) as { config: unknown; status: unknown };
    expectFields(got, fields.get('mcp get'));
    expectFields(got.config, fields.get('MCP server config'));
    expectFields(got.status, fields.get('MCP server status'));
    expect(got.config).toMatchObject({ env: ['MEMORY_FILE_PATH'] });
    const tested = await json(['mcp', 'test', 'memory', '--json']);
    expectFields(tested, fields.get('mcp test'));

    const userHome = join(box.base, 'user');
    await mkdir(join(userHome, '.codex'), { recursive: true });
    await writeFile(join(userHome, '.codex', 'config.toml'), `[mcp_servers.docs]\nurl = "https://example.com/mcp"\n`);
    const imported = await json(['mcp', 'import', 'codex', '--json'], 0, { HOME: userHome, CODEX_HOME: join(userHome, '.codex') });
    expectFields(imported, fields.get('mcp import'));
    expect(imported).toMatchObject({ servers: [{ name: 'docs', outcome: 'added', reason: null }] });

    const doctor = await box.cli(['doctor', '--json'], { HOME: userHome });
    const checks = JSON.parse(doctor.stdout) as { name: string; level: string }[];
    expect(doctor.code, doctor.stderr).toBe(checks.some((check) => check.level === 'fail') ? 1 : 0);
    expect(checks.map((check) => check.name)).toEqual(expect.arrayContaining(['node', 'store', 'mcp memory']));
    for (const check of checks) expectFields(check, fields.get('doctor'));
  });

  it('has every field docs/cli-json.md lists, for schedule add/list/show and trigger add/list', async () => {
    const added = await json(['schedule', 'add', 'nightly', 'ok.toml', '--cron', '0 3 * * *', '--json']);
    expectFields(added, fields.get('schedule'));
    const listed = (await json(['schedule', 'list', '--json'])) as unknown[];
    expect(listed).toHaveLength(1);
    expectFields(listed[0], fields.get('schedule'));
    expectFields(await json(['schedule', 'show', 'nightly', '--json']), [...fields.get('schedule')!, 'recent']);
    const trigger = await json(['trigger', 'add', 'gh', 'ok.toml', '--secret-env', 'HOOK_SECRET', '--json']);
    expectFields(trigger, fields.get('trigger'));
    expectFields(((await json(['trigger', 'list', '--json'])) as unknown[])[0], fields.get('trigger'));
  });
});
