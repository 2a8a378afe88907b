/**
 * `weft run` and the run commands end to end: the real CLI, real runner processes and the
 * SQLite store in a temp storage dir per test. See also cli-runs-steer.test.ts (answers,
 * cancel, bad input) and run-crash-recovery.test.ts. The `--json` field names are pinned
 * in cli-json.test.ts against docs/cli-json.md.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';
import { jsonLines, readLines, type EventJson, type RunJson, sandboxPerTest } from './fixtures/workflows-e2e/harness.js';

// Real processes on a possibly busy machine: more time than the default 30 s.
vi.setConfig({ testTimeout: 60_000 });

const box = sandboxPerTest();

const ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

async function ps(...args: string[]): Promise<RunJson[]> {
  const result = await box.cli(['ps', '--json', ...args]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as RunJson[];
}

/** A copy of the tour whose `[llm]` points at the fake model server, as an OpenAI-compatible endpoint. */
async function tourOnModel(server: ModelServer): Promise<string> {
  const tour = await box.tour();
  await mkdir(join(tour, '.weft'), { recursive: true });
  await writeFile(
    join(tour, '.weft', 'settings.toml'),
    `[llm]\nprovider = "openai-compatible"\nbase_url = "${server.baseUrl('openai-chat')}"\nmodel = "tour-model"\n`,
  );
  return tour;
}

describe('weft run', () => {
  it('runs the tour example unattended: MCP tool nodes, a parallel join, a command and a summary', async () => {
    const tour = await box.tour();
    const result = await box.cli(['--cwd', tour, 'run', 'tour.toml']);
    expect(result.code, result.stderr).toBe(0);
    const id = /^run (\S+) · tour · /m.exec(result.stderr)?.[1];
    expect(id).toMatch(ID);
    expect(result.stderr).toContain(`run ${id} succeeded`);
    // One line per stage start and end, tool calls in between, interpolated arguments.
    for (const stage of ['prepare', 'echo', 'remember', 'recall', 'notes', 'gather', 'count', 'report', 'summary']) {
      expect(result.stdout).toContain(`▶ ${stage}@1 (`);
      expect(result.stdout).toMatch(new RegExp(`✓ ${stage}@1 succeeded in `));
    }
    expect(result.stdout).toContain('▶ fan@1 (parallel)');
    expect(result.stdout).toContain('  ⚙ mcp__everything__echo {"message":"hello from weft"}');
    expect(result.stdout).toContain('✓ summary@1 succeeded in');
    expect(result.stdout).toContain('tour done: Echo: hello from weft; notes.md has 3 lines');
    // No model configured: the agent stage fails at once, saying what to set, and the tour goes on.
    expect(result.stdout).toMatch(/✗ summarise@1 failed in \d+ms: No model configured\. Set model = /);
    expect(result.stdout).not.toContain('{{');
    const report = await readFile(join(tour, '.weft', 'tour-report.md'), 'utf8');
    expect(report).toContain('- echo: Echo: hello from weft');
    expect(report).toContain('"name":"weft"');

    // The same run, read back: summary, stage-finished events as JSON Lines, the transcript.
    const [run, finished, logs] = await Promise.all([
      box.inspect(id!),
      box.events(id!, '--type', 'stage-finished'),
      box.cli(['logs', id!]),
    ]);
    expect(run).toMatchObject({ id, status: 'succeeded', workflow: 'tour', labels: { example: 'tour' }, attempt: 1, pendingQuestions: [] });
    expect(run.counts).toMatchObject({ stages: 11, toolCalls: 6, questionsPending: 0 });
    expect(finished.map((event) => event.type)).toEqual(Array(11).fill('stage-finished'));
    expect(finished.filter((event) => event.payload.status !== 'succeeded').map((event) => [event.stageId, event.payload.status])).toEqual([
      ['summarise@1', 'failed'],
    ]);
    expect(finished.find((event) => event.stageId === 'summary@1')?.payload.output).toBe(
      'tour done: Echo: hello from weft; notes.md has 3 lines; report in .weft/tour-report.md\nagent: no model configured, see docs/agents.md',
    );
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain(`● run ${id} created (tour)`);
    expect(logs.stdout).toContain('✓ summary@1 succeeded');
    expect(logs.stdout.trim().split('\n').at(-1)).toBe('● run succeeded');
  });

  it("runs the tour's agent stage on a configured OpenAI-compatible endpoint, reading notes.md through the filesystem server", async () => {
    const server = await startModelServer({
      script: [
        { toolCalls: [{ name: 'mcp__files__read_text_file', arguments: { path: 'notes.md' } }] },
        { text: 'weft reads its notes through an MCP server.' },
      ],
    });
    try {
      const tour = await tourOnModel(server);
      const result = await box.cli(['--cwd', tour, 'run', 'tour.toml']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('▶ summarise@1 (agent)');
      expect(result.stdout).toContain('  ⚙ mcp__files__read_text_file {"path":"notes.md"}');
      expect(result.stdout).toContain('✓ summarise@1 succeeded in');
      const id = /^run (\S+) succeeded$/m.exec(result.stderr)![1]!;
      const finished = await box.events(id, '--type', 'stage-finished');
      expect(finished.find((event) => event.stageId === 'summary@1')?.payload.output).toMatch(
        /\nagent: weft reads its notes through an MCP server\.$/,
      );
      expect(server.requests.map((request) => [request.api, request.model])).toEqual([
        ['openai-chat', 'tour-model'],
        ['openai-chat', 'tour-model'],
      ]);
      expect(server.requests[0]!.tools.map((tool) => tool.name)).toEqual(['mcp__files__read_text_file']);
      expect(JSON.stringify(server.requests[1]!.messages)).toContain('weft reads this file through the filesystem MCP server');
    } finally {
      await server.close();
    }
  });

  it('runs examples/tour/agent.toml with no question: its rule allows the write_file that its agent makes', async () => {
    const server = await startModelServer({
      script: [
        { toolCalls: [{ name: 'read_file', arguments: { file_path: 'notes.md' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { file_path: 'summary.md', content: 'one\ntwo\nthree\n' } }] },
        { text: 'Summary written.' },
      ],
    });
    try {
      const tour = await tourOnModel(server);
      const result = await box.cli(['--cwd', tour, 'run', 'agent.toml']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('  ⚙ write_file {"file_path":"summary.md"');
      expect(result.stdout).toContain('✓ show@1 succeeded in');
      expect(await readFile(join(tour, 'summary.md'), 'utf8')).toBe('one\ntwo\nthree\n');
      const id = /^run (\S+) succeeded$/m.exec(result.stderr)![1]!;
      expect((await box.inspect(id)).counts).toMatchObject({ questionsPending: 0 });
    } finally {
      await server.close();
    }
  });

  it('runs examples/tour/fanout.toml: three child runs at once, joined', async () => {
    const tour = await box.tour();
    const result = await box.cli(['--cwd', tour, 'run', 'fanout.toml']);
    expect(result.code, result.stderr).toBe(0);
    const id = /^run (\S+) succeeded$/m.exec(result.stderr)![1]!;
    expect(result.stdout.match(/ {2}↳ child run \S+ \(greet\)/g)).toHaveLength(3);
    expect(result.stdout).toContain('✓ summary@1 succeeded in');
    expect(result.stdout).toContain('children: ada succeeded, grace succeeded, linus succeeded');
    const children = await ps('--parent', id);
    expect(children.map((child) => [child.workflow, child.status, child.parentId])).toEqual(Array(3).fill(['greet', 'succeeded', id]));
    expect(children.map((child) => child.labels['weft/parent-stage']).sort()).toEqual(['ada@1', 'grace@1', 'linus@1']);
  });

  it('--json prints events as JSON Lines; --detach returns at once; wait exits 0 when runs succeed and 1 when one fails', async () => {
    const [failed, detached] = await Promise.all([
      box.cli(['run', 'fail.toml', '--json']),
      box.cli(['run', 'ok.toml', '--detach', '--json', '--input', 'who=detached']),
    ]);
    expect(failed.code).toBe(1);
    const events = jsonLines<EventJson>(failed.stdout);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events[0]).toMatchObject({ type: 'run-created', seq: 1 });
    expect(events.find((event) => event.type === 'stage-finished')).toMatchObject({
      stageId: 'boom@1',
      payload: { status: 'failed', exitCode: 3 },
    });
    expect(events.at(-1)).toMatchObject({
      type: 'run-status-changed',
      payload: { to: 'failed', reason: "stage 'boom' failed: about to fail" },
    });
    const failId = events[0]!.runId;

    // --detach --json prints the run record while the run is still queued.
    expect(detached.code, detached.stderr).toBe(0);
    const run = JSON.parse(detached.stdout) as RunJson & { inputs: Record<string, unknown> };
    expect(run).toMatchObject({ workflow: 'ok', status: 'queued', inputs: { who: 'detached' } });

    const [waitOk, waitFail, waitBoth] = await Promise.all([
      box.cli(['wait', run.id]),
      box.cli(['wait', failId]),
      box.cli(['wait', run.id, failId, '--json']),
    ]);
    expect(waitOk).toMatchObject({ code: 0, stdout: `${run.id}  succeeded\n` });
    expect(waitFail).toMatchObject({ code: 1, stdout: `${failId}  failed — stage 'boom' failed: about to fail\n` });
    expect(waitBoth.code).toBe(1);
    expect(JSON.parse(waitBoth.stdout)).toEqual({
      timedOut: false,
      runs: [
        { id: run.id, status: 'succeeded', reason: null },
        { id: failId, status: 'failed', reason: "stage 'boom' failed: about to fail" },
      ],
    });
  });
});

describe('weft create, start, approve', () => {
  it('a created run waits for start, then for approval, then runs', async () => {
    const created = await box.cli(['create', 'ok.toml', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const run = JSON.parse(created.stdout) as RunJson;
    expect(run.status).toBe('submitted');

    const started = await box.cli(['start', run.id, '--json']);
    expect(started.code, started.stderr).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ id: run.id, status: 'pending' });

    const approved = await box.cli(['approve', run.id]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^Approved run ${run.id} \\((queued|starting|running|succeeded)\\)\\n$`));
    expect((await box.cli(['wait', run.id])).code).toBe(0);
  });
});

describe('weft ps, archive, unarchive, rm', () => {
  it('filters by status and label, hides archived runs unless --all, and removes finished runs', async () => {
    const [a, b, done] = await Promise.all([
      box.cli(['create', 'ok.toml', '--label', 'team=a']),
      box.cli(['create', 'ok.toml', '--label', 'team=b', '--json']),
      box.cli(['run', 'ok.toml', '--label', 'team=a']),
    ]);
    expect(a.stdout).toMatch(/^Created run \S+ \(not started\): weft start \S+\n$/);
    const idA = /^Created run (\S+)/.exec(a.stdout)![1]!;
    const idB = (JSON.parse(b.stdout) as RunJson).id;
    expect(done.code, done.stderr).toBe(0);
    const doneId = /^run (\S+) succeeded$/m.exec(done.stderr)![1]!;
    const ids = (runs: RunJson[]) => runs.map((run) => run.id).sort();

    const [all, submitted, teamA, table, none] = await Promise.all([
      ps(),
      ps('--status', 'succeeded,submitted', '--label', 'team=b'),
      ps('--label', 'team=a'),
      box.cli(['ps']),
      box.cli(['ps', '--status', 'failed', '--label', 'team=c']),
    ]);
    expect(ids(all)).toEqual([doneId, idA, idB].sort());
    expect(ids(submitted)).toEqual([idB]);
    expect(ids(teamA)).toEqual([doneId, idA].sort());
    const rows = table.stdout.trim().split('\n');
    expect(rows).toHaveLength(4);
    expect(rows[0]!.split(/\s+/)).toEqual(['ID', 'STATUS', 'WORKFLOW', 'AGE', 'COST', 'GOAL']);
    expect(table.stdout).toMatch(new RegExp(`^${doneId}  succeeded  ok `, 'm'));
    expect(none).toMatchObject({ code: 0, stdout: 'No runs match --status failed --label team=c (archived runs need --all).\n' });

    // Archived runs are hidden unless --all.
    const archived = await box.cli(['archive', doneId]);
    expect(archived).toMatchObject({ code: 0, stdout: `Archived run ${doneId}\n` });
    const [visible, everything] = await Promise.all([ps(), ps('--all')]);
    expect(ids(visible)).toEqual([idA, idB].sort());
    expect(everything.find((run) => run.id === doneId)).toMatchObject({ archived: true });
    const unarchived = await box.cli(['unarchive', doneId, '--json']);
    expect(JSON.parse(unarchived.stdout)).toMatchObject({ id: doneId, archived: false });

    expect(await box.cli(['rm', doneId])).toMatchObject({ code: 0, stdout: `Removed run ${doneId}\n` });
    expect(ids(await ps('--all'))).toEqual([idA, idB].sort());
  });
});

describe('weft retry', () => {
  it('runs a failed run again from the stage that failed', async () => {
    const failed = await box.cli(['run', 'flaky.toml']);
    expect(failed.code).toBe(1);
    const id = /^run (\S+) failed/m.exec(failed.stderr)![1]!;
    await writeFile(join(box.ws, 'ready.marker'), '');
    const retried = await box.cli(['retry', id]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toMatch(new RegExp(`^Retrying run ${id} \\(`));
    expect((await box.cli(['wait', id])).code).toBe(0);

    const [run, finished, again, graph] = await Promise.all([
      box.inspect(id),
      box.events(id, '--type', 'stage-finished'),
      box.cli(['retry', id]),
      box.cli(['inspect', id, '--graph']),
    ]);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(finished.map((event) => `${event.stageId} ${String(event.payload.status)}`)).toEqual([
      'prep@1 succeeded',
      'check@1 failed',
      'check@2 succeeded',
    ]);
    expect(await readLines(join(box.ws, 'trail.txt'))).toEqual(['prep']);
    // The picture shows the latest attempt of each stage.
    expect(graph.code, graph.stderr).toBe(0);
    expect(
      [...graph.stdout.matchAll(/data-node="(\w+)" data-kind="\w+" data-state="(\w+)"/g)].map((match) => `${match[1]} ${match[2]}`),
    ).toEqual(['prep succeeded', 'check succeeded']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Run ${id} is succeeded; it can be retried only when failed or cancelled.`);
  });
});

describe('weft workflow and init', () => {
  it('validate lists every problem as file:line and exits 2; graph draws DOT and SVG; init scaffolds a valid workflow', async () => {
    const broken = await box.cli(['workflow', 'validate', 'broken.toml']);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toBe('');
    const file = join(box.ws, 'broken.toml');
    const lines = broken.stderr
      .replace(/^weft: /, '')
      .trim()
      .split('\n');
    for (const line of lines) expect(line.startsWith(`${file}:`)).toBe(true);
    expect(broken.stderr).toContain(`${file}:6: node 'first': unknown kind 'comand' — did you mean 'command'?`);
    expect(broken.stderr).toContain(`${file}:11: node 'second' (command): {{ inputs.missing }}: input 'missing' is not declared`);
    expect(broken.stderr).toContain(`${file}:12: node 'second' (command): edge to unknown node 'nowhere'`);

    const [valid, dot, svg, badFormat] = await Promise.all([
      box.cli(['workflow', 'validate', 'stages.toml']),
      box.cli(['workflow', 'graph', 'stages.toml', '--format', 'dot']),
      box.cli(['workflow', 'graph', 'stages.toml', '--format', 'svg']),
      box.cli(['workflow', 'graph', 'stages.toml', '--format', 'png']),
    ]);
    expect(valid).toMatchObject({ code: 0, stdout: `${join(box.ws, 'stages.toml')}: ok — workflow 'stages', 4 nodes, starts at 'one'\n` });
    expect(dot.code).toBe(0);
    expect(dot.stdout).toMatch(/^digraph /);
    for (const edge of ['"one" -> "two"', '"two" -> "hold"', '"hold" -> "three"']) expect(dot.stdout).toContain(edge);
    expect(svg.code, svg.stderr).toBe(0);
    expect(svg.stdout).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect([...svg.stdout.matchAll(/data-node="(\w+)"/g)].map((match) => match[1])).toEqual(['one', 'two', 'hold', 'three']);
    expect(badFormat).toMatchObject({ code: 2, stderr: "weft: --format must be one of 'mermaid', 'dot', 'svg', not 'png'.\n" });

    const fresh = join(box.base, 'fresh');
    const init = await box.cli(['--cwd', fresh, 'init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`created  ${join(fresh, '.weft', 'settings.toml')}`);
    expect(init.stdout).toContain(`created  ${join(fresh, 'hello.toml')}`);
    expect(existsSync(join(fresh, 'hello.toml'))).toBe(true);
    const [hello, again] = await Promise.all([
      box.cli(['--cwd', fresh, 'workflow', 'validate', 'hello.toml']),
      box.cli(['--cwd', fresh, 'init']),
    ]);
    expect(hello.code, hello.stderr).toBe(0);
    expect(hello.stdout).toContain("workflow 'hello', 5 nodes, starts at 'greet'");
    expect(again.stdout).toContain('kept     ');
    expect(again.stdout).not.toContain('created');
  });
});

describe('an unreachable model endpoint', () => {
  it('fails the agent stage on the first attempt, saying what cannot be reached and what to check', async () => {
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', listening));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((stopped) => closed.close(stopped));
    await mkdir(join(box.ws, '.weft'), { recursive: true });
    await writeFile(
      join(box.ws, '.weft', 'settings.toml'),
      `[llm]\nprovider = "openai-compatible"\nbase_url = "http://127.0.0.1:${port}/v1"\nmodel = "m"\n`,
    );
    await writeFile(join(box.ws, 'ask.toml'), '[workflow]\nname = "ask"\n\n[nodes.ask]\nkind = "agent"\nprompt = "Say hi."\n');
    const result = await box.cli(['run', 'ask.toml']);
    expect(result.code).toBe(1);
    const id = /^run (\S+) failed/m.exec(result.stderr)![1]!;
    const [finished] = await box.events(id, '--type', 'stage-finished');
    expect(finished!.payload.error).toBe(
      `openai-compatible (model 'm') cannot be reached at http://127.0.0.1:${port}/v1: connection refused: nothing listens there (ECONNREFUSED). Check that the model server runs and that base_url in [llm] (or the provider's default) points at it.`,
    );
  });
});

const RECOVER_TOML = `[workflow]
name = "recover"

[nodes.lines]
kind = "command"
run = 'printf "alpha\\nbeta\\ngamma\\ndelta\\nepsilon\\n"'
next = "flaky"

[nodes.flaky]
kind = "command"
run = 'echo "first reason" >&2; echo "second reason" >&2; exit 4'
[[nodes.flaky.edges]]
to = "done"
when = 'status == "failed"'

[nodes.done]
kind = "command"
run = 'echo ok'
`;

describe('weft inspect and logs --full', () => {
  it('inspect shows each stage with its output head and whole failure, and says a stage failed in a run that succeeded; logs --full keeps every line', async () => {
    await writeFile(join(box.ws, 'recover.toml'), RECOVER_TOML);
    const finished = await box.cli(['run', 'recover.toml']);
    expect(finished.code, finished.stderr).toBe(0);
    const inspected = await box.cli(['inspect', '@last']);
    expect(inspected.code, inspected.stderr).toBe(0);
    const id = /^run (\S+)/.exec(inspected.stdout)![1]!;
    const stages = inspected.stdout.slice(inspected.stdout.indexOf('  stages\n')).replace(/ {2}\d+(\.\d+)?(ms|s)\n/g, '  <took>\n');
    expect(stages).toBe(
      [
        '  stages',
        '    ✓ lines@1  command  succeeded  <took>',
        '        │ alpha',
        '        │ beta',
        '        │ gamma',
        `        │ … 2 more lines (weft logs ${id} --full)`,
        '    ✗ flaky@1  command  failed  <took>',
        '        error: first reason',
        '               second reason',
        '    ✓ done@1   command  succeeded  <took>',
        '        │ ok',
        '  note      flaky@1 failed, but the run succeeded: the workflow went on past the failure.',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await box.cli(['inspect', id, '--json'])).stdout) as {
      stages: { stageId: string; attempt: number; finished: string; output?: string; error?: string }[];
    };
    expect(json.stages.map(({ stageId, attempt, finished, output, error }) => ({ stageId, attempt, finished, output, error }))).toEqual([
      { stageId: 'lines@1', attempt: 1, finished: 'succeeded', output: 'alpha\nbeta\ngamma\ndelta\nepsilon', error: undefined },
      { stageId: 'flaky@1', attempt: 1, finished: 'failed', output: '', error: 'first reason\nsecond reason' },
      { stageId: 'done@1', attempt: 1, finished: 'succeeded', output: 'ok', error: undefined },
    ]);

    const [logs, full] = await Promise.all([box.cli(['logs', id]), box.cli(['logs', id, '--full'])]);
    expect(logs.stdout).toMatch(/^✓ lines@1 succeeded in \S+ → alpha beta gamma delta epsilon$/m);
    expect(full.stdout).toMatch(/^✓ lines@1 succeeded in \S+ →\n(\s{4}(alpha|beta|gamma|delta|epsilon)\n){5}/m);
    for (const result of [logs, full]) expect(result.stdout).toMatch(/^✗ flaky@1 failed in \S+: first reason\n\s{4}second reason$/m);
  });
});
