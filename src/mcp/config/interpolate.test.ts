// Interpolation: every form, which fields get it, keys untouched, and one warning per field for unset variables.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, memorySink } from '../../core/logger.js';
import { interpolate } from './interpolate.js';
import { loadMcpServerConfigs } from './load-configs.js';

const scope = { env: { HOST: 'example.com', EMPTY: '', TOKEN: 'abc' }, workspaceRoot: '/work/ws', homeDir: '/home/me' };

describe('interpolate()', () => {
  it.each([
    ['${HOST}', 'example.com'],
    ['https://${HOST}/mcp', 'https://example.com/mcp'],
    ['${MISSING:-fallback}', 'fallback'],
    ['${HOST:-fallback}', 'example.com'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${MISSING:-}', ''],
    ['${env:HOST}', 'example.com'],
    ['${env:MISSING:-x}', 'x'],
    ['${WORKDIR}/bin', '/work/ws/bin'],
    ['${workspaceFolder}', '/work/ws'],
    ['${userHome}/.cache', '/home/me/.cache'],
    ['$HOST and $TOKEN', '$HOST and $TOKEN'],
    ['${not valid}', '${not valid}'],
    ['${HOST', '${HOST'],
    ['${A}${B:-b}', 'b'],
  ])('%s → %s', (input, expected) => {
    expect(interpolate(input, scope).value).toBe(expected);
  });

  it('reports unset variables once each; a set-but-empty variable is not unset', () => {
    expect(interpolate('${A}-${B}-${A}-${EMPTY}', scope)).toEqual({ value: '---', unset: ['A', 'B'], changed: true });
    expect(interpolate('plain $A', scope)).toEqual({ value: 'plain $A', unset: [], changed: false });
  });

  it('reads ${env:WORKDIR} from the environment, not the workspace', () => {
    expect(interpolate('${env:WORKDIR}', { ...scope, env: { WORKDIR: '/elsewhere' } }).value).toBe('/elsewhere');
    expect(interpolate('${WORKDIR}', { ...scope, env: { WORKDIR: '/elsewhere' } }).value).toBe('/work/ws');
  });
});

describe('interpolation while loading', () => {
  let base: string;
  let root: string;

  beforeEach(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'weft-mcp-interp-'));
    root = base;
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  async function load(servers: Record<string, unknown>, env: Record<string, string | undefined>) {
    await writeFile(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));
    const { sink, records } = memorySink();
    const result = await loadMcpServerConfigs({ workspaceRoot: root, homeDir: '/home/me', env, logger: createLogger(sink) });
    return { ...result, records };
  }

  it('interpolates command, args, cwd, env values, url and header values, never env keys', async () => {
    const { servers, problems } = await load(
      {
        local: {
          command: '${WORKDIR}/bin/${SERVER_BIN}',
          args: ['--root', '${WORKDIR}', '--token=${env:API_TOKEN}', '--level=${LEVEL:-info}', '$HOME'],
          cwd: '${WORKDIR}/sub',
          env: { '${KEY_NAME}': '${API_TOKEN}', PLAIN: 'keep $API_TOKEN' },
        },
        remote: { url: 'https://${MCP_HOST}/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
      },
      { SERVER_BIN: 'srv', API_TOKEN: 'tok-123', MCP_HOST: 'mcp.example.com', KEY_NAME: 'NOPE' },
    );
    expect(problems).toEqual([]);
    const [local, remote] = servers;
    expect(local!.command).toEqual([`${root}/bin/srv`, '--root', root, '--token=tok-123', '--level=info', '$HOME']);
    expect(local!.cwd).toBe(path.join(root, 'sub'));
    expect(local!.env).toEqual({ '${KEY_NAME}': 'tok-123', PLAIN: 'keep $API_TOKEN' });
    expect(remote!.url).toBe('https://mcp.example.com/mcp');
    expect(remote!.headers).toEqual({ Authorization: 'Bearer tok-123' });
  });

  it('turns an unset variable into an empty string with exactly one warning naming server and field', async () => {
    const { servers, problems, records } = await load(
      { gh: { command: 'npx', args: ['gh-server'], env: { GITHUB_TOKEN: '${GH_TOKEN}-${GH_TOKEN}', OTHER: 'x' } } },
      {},
    );
    expect(servers[0]!.env).toEqual({ GITHUB_TOKEN: '-', OTHER: 'x' });
    const message = `.mcp.json: server 'gh': field 'env.GITHUB_TOKEN' uses unset variable GH_TOKEN (replaced by an empty string) — set GH_TOKEN, or write \${GH_TOKEN:-default}`;
    expect(problems).toEqual([
      { file: path.join(root, '.mcp.json'), server: 'gh', field: 'env.GITHUB_TOKEN', message, severity: 'warning' },
    ]);
    expect(records.filter((record) => record.level === 'warn')).toEqual([
      { level: 'warn', tag: undefined, message, fields: { server: 'gh', field: 'env.GITHUB_TOKEN' } },
    ]);
  });

  it('names several unset variables of one field in one warning, and warns per field', async () => {
    const { problems } = await load({ gh: { command: 'npx', args: ['${A}', '${B}'], env: { X: '${A}' } } }, {});
    expect(problems.map((problem) => problem.message)).toEqual([
      `.mcp.json: server 'gh': field 'args' uses unset variables A, B (replaced by an empty string) — set A, B, or write \${A:-default}`,
      `.mcp.json: server 'gh': field 'env.X' uses unset variable A (replaced by an empty string) — set A, or write \${A:-default}`,
    ]);
  });

  it('does not warn for disabled servers', async () => {
    const { servers, problems, records } = await load({ off: { command: 'npx', args: ['${MISSING}'], disabled: true } }, {});
    expect(servers[0]!.command).toEqual(['npx', '']);
    expect(problems).toEqual([]);
    expect(records).toEqual([]);
  });

  it('warns when bearer_token_env_var names an unset variable', async () => {
    const { problems } = await load({ remote: { url: 'https://example.com/mcp', bearer_token_env_var: 'REMOTE_TOKEN' } }, {});
    expect(problems.map((problem) => problem.message)).toEqual([
      `.mcp.json: server 'remote': field 'bearer_token_env_var' names REMOTE_TOKEN, which is not set — set REMOTE_TOKEN, or requests are sent without an Authorization header`,
    ]);
  });
});
