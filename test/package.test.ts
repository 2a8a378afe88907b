/**
 * The published package as a user gets it: `npm pack` (which builds the bundle and the
 * declarations), the tarball extracted into a scratch project under the repo (its
 * dependencies resolve from the repo's node_modules by walking up; nothing is installed
 * from the network), then its CLI, each entry point, and `tsc` over a consumer file.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { runNode } from './helpers/run-node.js';
// @ts-expect-error -- a plain .mjs build script without declarations; its one export is typed below
import * as buildTypes from '../scripts/build-types.mjs';

const reachableDeclarations = (buildTypes as { reachableDeclarations: (root: string, entries: string[]) => Set<string> })
  .reachableDeclarations;
const TYPE_ENTRIES = (buildTypes as { TYPE_ENTRIES: string[] }).TYPE_ENTRIES;

// Real processes and a full tsc on a possibly busy machine.
vi.setConfig({ testTimeout: 300_000 });

const run = promisify(execFile);
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONSUMER = join(REPO, 'test/fixtures/package-consumer');
const TRACE = join(REPO, 'test/fixtures/module-trace/register.mjs');
const FIXTURE_SERVER = join(REPO, 'test/fixtures/servers/fixture-server.mjs');

/**
 * The declaration files the public types may reach: each is a deliberate part of the API.
 * A public signature that names anything else (a service, the store, the engine) fails the test.
 */
const PUBLIC_DECLARATIONS = [
  'lib/index.d.ts',
  'lib/mcp.d.ts',
  'lib/workflow.d.ts',
  'lib/ai-sdk.d.ts',
  'lib/server.d.ts',
  'core/errors.d.ts',
  'core/sandbox/sandbox-provider.d.ts',
  'core/sandbox/sandbox-rules.d.ts',
  'core/error-catalogue.d.ts',
  'core/cli-names.d.ts',
  'core/config-text/describe-value.d.ts',
  'core/logger.d.ts',
  'core/json-schema.d.ts',
  'core/ids.d.ts',
  'runs/model/create-run-request.d.ts',
  'runs/model/event-types.d.ts',
  'runs/model/payloads/run-payloads.d.ts',
  'runs/model/payloads/stage-payloads.d.ts',
  'runs/model/payloads/workspace-payloads.d.ts',
  'runs/model/payloads/agent-payloads.d.ts',
  'runs/model/payloads/sampling-payloads.d.ts',
  'runs/model/payloads/budget-payloads.d.ts',
  'runs/model/json.d.ts',
  'runs/model/question.d.ts',
  'runs/model/run-event.d.ts',
  'runs/model/run-record.d.ts',
  'runs/model/run-workspace.d.ts',
  'runs/model/run-concurrency.d.ts',
  'runs/workspace/workspace-spec.d.ts',
  'runs/model/run-status.d.ts',
  'runs/store/run-store.d.ts',
  'runs/store/store-change.d.ts',
  'runs/workflow/condition.d.ts',
  'runs/workflow/definition.d.ts',
  'runs/workflow/graph-model.d.ts',
  'runs/workflow/render-graph.d.ts',
  'runs/workflow/types.d.ts',
  'tools/approval-policy.d.ts',
  'tools/call-abort.d.ts',
  'tools/tool.d.ts',
  'mcp/config/index.d.ts',
  'mcp/config/add-json.d.ts',
  'mcp/config/child-env.d.ts',
  'mcp/config/edit-mcp-json.d.ts',
  'mcp/config/edit-user-settings.d.ts',
  'mcp/config/import-sources.d.ts',
  'mcp/config/interpolate.d.ts',
  'mcp/config/load-configs.d.ts',
  'mcp/config/local-scope.d.ts',
  'mcp/config/problems.d.ts',
  'mcp/config/server-config.d.ts',
  'mcp/config/tool-filter.d.ts',
  'mcp/hub/types.d.ts',
];

let scratch: string;
let tarball: string;
let pkg: string;
let storageDir: string;

beforeAll(async () => {
  await mkdir(join(REPO, '.weft-test'), { recursive: true });
  scratch = await mkdtemp(join(REPO, '.weft-test', 'package-'));
  const packed = await mkdtemp(join(scratch, 'tarball-'));
  // prepack builds the bundle and the declarations, as for a publish.
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', packed], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 });
  tarball = join(packed, stdout.trim().split('\n').pop() ?? '');
  pkg = join(scratch, 'node_modules', 'weft-runtime');
  await mkdir(pkg, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', pkg, '--strip-components=1']);
  await cp(CONSUMER, scratch, { recursive: true });
  // The TypeScript example is type-checked with the consumer, against the installed declarations.
  await cp(join(REPO, 'examples/library/ai-agent.ts'), join(scratch, 'ai-agent.ts'));
  storageDir = join(scratch, 'storage');
}, 600_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

function nodeIn(args: string[], env: Record<string, string> = {}) {
  return runNode(args, { cwd: scratch, env: { ...process.env, WEFT_HOME: storageDir, FIXTURE_SERVER, ...env } });
}

describe('the packed package', () => {
  it('holds the CLI, the bundle and the declarations, and no sources, tests or source maps', async () => {
    const files = (await readdir(pkg, { recursive: true })).map(String);
    expect(files).toContain(join('bin', 'weft.js'));
    expect(files).toContain(join('dist', 'cli.js'));
    expect(files).toContain(join('dist', 'lib', 'index.js'));
    expect(files).toContain(join('dist', 'types', 'lib', 'mcp.d.ts'));
    expect(files.filter((file) => file.startsWith(`src${sep}`) || file.startsWith(`test${sep}`) || file.endsWith('.map'))).toEqual([]);
    const manifest = JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8')) as { name: string; bin: Record<string, string> };
    expect(manifest.name).toBe('weft-runtime');
    expect(manifest.bin).toEqual({ weft: 'bin/weft.js' });
  });

  it('runs its CLI: --version and a workflow run to success', async () => {
    const { version } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const shown = await nodeIn([join(pkg, 'bin/weft.js'), '--version']);
    expect(shown.stdout.trim()).toBe(version);
    const ran = await nodeIn([join(pkg, 'bin/weft.js'), '--storage-dir', storageDir, 'run', 'hello.toml', '--auto-approve']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('hello from the tarball');
    expect(ran.stderr).toMatch(/run \S+ succeeded/);
  });

  it('embeds runs from code: a workflow module with a function step (its return value is the stage output), followed event by event, and WeftError codes', async () => {
    const result = await nodeIn(['runs.mjs']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      status: 'succeeded',
      stages: ['greet@1:succeeded', 'shout@1:succeeded', 'check@1:succeeded', 'done@1:succeeded'],
      shout: { text: 'HELLO LIBRARY', attempt: 1 },
      code: 'RUN_NOT_FOUND',
    });
  });

  it('weft-runtime/mcp calls a real MCP server without loading SQLite, the AI SDK or the MCP server package', async () => {
    const trace = join(scratch, 'mcp-trace.txt');
    const result = await nodeIn(['--import', TRACE, 'mcp.mjs'], { MODULE_TRACE: trace });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ tools: expect.arrayContaining(['mcp__fixture__echo']), text: 'echo: hi', refused: true });
    const loaded = (await readFile(trace, 'utf8')).split('\n').filter(Boolean);
    expect(loaded.some((url) => url.includes('/weft-runtime/dist/lib/mcp.js'))).toBe(true);
    expect(loaded.filter((url) => /node_modules\/(better-sqlite3|ai|@ai-sdk\/[^/]+|@modelcontextprotocol\/server)\//.test(url))).toEqual(
      [],
    );
    // The MCP server package is bundled into weft's own chunks: none of those may load either.
    const chunks = loaded.filter((url) => url.includes('/weft-runtime/dist/')).map((url) => fileURLToPath(url));
    const withServer = [];
    for (const chunk of chunks)
      if (/\bclass McpServer\b|\bMcpServer = class\b/.test(await readFile(chunk, 'utf8'))) withServer.push(relative(pkg, chunk));
    expect(withServer).toEqual([]);
  });

  it('weft-runtime/server mounts the API and /mcp in a plain node:http server beside its own routes, with the token and Host checks of weft serve', async () => {
    const result = await nodeIn(['server.mjs']);
    expect(result.code, result.stderr).toBe(0);
    const seen = JSON.parse(result.stdout) as { tools: string[]; searched: string[]; viaApi: string; runId: string };
    expect(seen).toMatchObject({
      own: 'the app',
      unauthorized: 401,
      foreignHost: 403,
      created: 201,
      viaApi: 'succeeded',
      viaFetch: 200,
      fetchForeignHost: 403,
      viaMcp: 'succeeded',
      mcpUnauthorized: 401,
      openStatus: 200,
      openFetch: 403,
      refusals: ['USAGE', 'USAGE', 'USAGE'],
    });
    expect(seen.tools).toEqual(expect.arrayContaining(['weft_run_create', 'weft_run_get', 'weft_run_gather']));
    // The MCP server on an in-memory transport sees the run the HTTP API created.
    expect(seen.searched).toContain(seen.runId);
  });

  it('weft-runtime/server serves the MCP server on stdio for an MCP client that starts the program', async () => {
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['mcp-stdio.mjs'],
        cwd: scratch,
        env: { ...process.env, WEFT_HOME: storageDir } as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    try {
      expect(client.getServerVersion()).toMatchObject({
        name: 'weft',
        version: JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')).version,
      });
      const found = await client.callTool({ name: 'weft_run_search', arguments: { workflow: 'hello' } });
      expect(found.isError).toBeFalsy();
      expect((found.structuredContent as { runs: { workflow: string }[] }).runs.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('runs a TypeScript workflow with `npx weft run flow.ts` in a project that installed the package alone', async () => {
    // Outside the repo, so nothing resolves by walking up to its node_modules: the project
    // holds the package and exactly the dependencies its manifest declares (linked, as an
    // install would place them), and no tsx of its own.
    const project = await mkdtemp(join(tmpdir(), 'weft-package-ts-'));
    try {
      const installed = join(project, 'node_modules', 'weft-runtime');
      await mkdir(installed, { recursive: true });
      await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
      const { dependencies } = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      expect(Object.keys(dependencies)).toContain('tsx');
      for (const name of Object.keys(dependencies)) {
        await mkdir(dirname(join(project, 'node_modules', name)), { recursive: true });
        await symlink(join(REPO, 'node_modules', name), join(project, 'node_modules', name), 'dir');
      }
      await mkdir(join(project, 'node_modules', '.bin'));
      await symlink('../weft-runtime/bin/weft.js', join(project, 'node_modules', '.bin', 'weft'));
      await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'ts-flow-user', private: true, type: 'module' }));
      // Type annotations, an interface and a type-only import: none of it runs in Node 20 without a loader.
      await writeFile(
        join(project, 'flow.ts'),
        [
          "import { defineWorkflow, type WorkflowDefinition } from 'weft-runtime/workflow';",
          'interface Greeting { text: string }',
          'const shout = (text: string): Greeting => ({ text: text.toUpperCase() });',
          'const flow: WorkflowDefinition = defineWorkflow({',
          "  workflow: { name: 'typed' },",
          "  inputs: { who: { default: 'typescript' } },",
          '  nodes: {',
          `    greet: { kind: 'command', run: 'echo "hello {{ inputs.who }}"', next: 'shout' },`,
          "    shout: { kind: 'function', run: ({ stages }) => shout(String(stages.greet.output)) },",
          '  },',
          '});',
          'export default flow;',
          '',
        ].join('\n'),
      );
      const env: Record<string, string> = {
        PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: project,
        WEFT_HOME: join(project, 'storage'),
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
      };
      const ran = await new Promise<{ code: number | null; out: string }>((done, fail) => {
        execFile(
          'npx',
          ['--no-install', 'weft', 'run', 'flow.ts', '--auto-approve'],
          { cwd: project, env, maxBuffer: 16 * 1024 * 1024 },
          (error, stdout, stderr) => {
            if (error && typeof error.code !== 'number') fail(error);
            else done({ code: error ? Number(error.code) : 0, out: `${stdout}\n${stderr}` });
          },
        );
      });
      expect(ran.code, ran.out).toBe(0);
      expect(ran.out).toContain('HELLO TYPESCRIPT');
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  it("type-checks a consumer and examples/library/ai-agent.ts against the package's declarations", async () => {
    const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
    const result = await nodeIn([tsc, '-p', join(scratch, 'tsconfig.json')]);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('public declarations reach only the files meant as API (no service, store or engine internals)', async () => {
    const types = join(pkg, 'dist', 'types');
    const reached = [...reachableDeclarations(types, TYPE_ENTRIES)].map((file) => relative(types, file).split(sep).join('/'));
    expect(reached.filter((file) => !PUBLIC_DECLARATIONS.includes(file))).toEqual([]);
    // Every package a declaration imports is a dependency the user has installed with weft.
    const { dependencies } = JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const bare = new Set<string>();
    for (const file of reached) {
      for (const match of (await readFile(join(types, file), 'utf8')).matchAll(/from\s*['"]([^'".][^'"]*)['"]/g)) {
        const name = match[1]!.startsWith('@') ? match[1]!.split('/').slice(0, 2).join('/') : match[1]!.split('/')[0]!;
        if (!name.startsWith('node:')) bare.add(name);
      }
    }
    expect([...bare].filter((name) => !(name in dependencies))).toEqual([]);
  });
});
