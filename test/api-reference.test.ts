/**
 * The API reference (`npm run docs:api`): TypeDoc over the package's public entry points
 * only, run as a child process with no network. Its config treats every warning as an
 * error, and its validation warns about an exported symbol without a doc comment and about
 * a public signature naming a type the entries do not export — so this test fails on either.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 300_000 });

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const run = promisify(execFile);
let out: string;
let output: { stdout: string; stderr: string };

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'weft-api-'));
  output = await run(
    process.execPath,
    [join(REPO, 'node_modules/typedoc/bin/typedoc'), '--options', join(REPO, 'typedoc.json'), '--out', out],
    { cwd: REPO, maxBuffer: 16 * 1024 * 1024 },
  );
}, 300_000);

afterAll(async () => {
  if (out) await rm(out, { recursive: true, force: true });
});

describe('npm run docs:api', () => {
  it('builds without a warning: every exported symbol is documented and every type a signature names is exported', async () => {
    const config = JSON.parse(await readFile(join(REPO, 'typedoc.json'), 'utf8')) as {
      treatWarningsAsErrors: boolean;
      validation: Record<string, boolean>;
    };
    expect(config.treatWarningsAsErrors).toBe(true);
    expect(config.validation).toMatchObject({ notDocumented: true, notExported: true, invalidLink: true });
    expect(output.stdout + output.stderr).not.toMatch(/\[warning\]|\[error\]/);
  });

  it('documents the five entry points of package.json exports, and nothing else as a module', async () => {
    const { exports } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const entries = Object.keys(exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'weft-runtime' : `weft-runtime/${key.slice(2)}`));
    const pages = (await readdir(join(out, 'modules'))).map((page) => page.replace(/\.html$/, '').replace('_', '/'));
    expect(pages.sort()).toEqual(entries.sort());
    const server = await readFile(join(out, 'modules', 'weft-runtime_server.html'), 'utf8');
    expect(server).toContain('createWeftHttpHandler');
    expect(server).toContain('serveWeftMcpStdio');
  });
});
