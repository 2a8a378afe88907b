import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../core/settings/settings.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';
import { RunService } from './run-service.js';

let dir: string;
let project: string;
let service: RunService;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-concurrency-defaults-'));
  project = join(dir, 'project');
  await mkdir(join(project, '.weft'), { recursive: true });
  await mkdir(join(dir, 'home'));
  service = new RunService({
    store: new MemoryRunStore(),
    clock: Date.now,
    wakeRunners: () => undefined,
    concurrencyDefaults: async (cwd) => (await loadSettings({ storageDir: join(dir, 'home'), workspaceRoot: cwd })).runConcurrency,
  });
});

afterEach(async () => rm(dir, { recursive: true, force: true }));

const workflow = (name: string, extra = '') =>
  `[workflow]\nname = "${name}"\n[inputs.repo]\ntype = "string"\nrequired = true\n${extra}[nodes.work]\nkind = "command"\nrun = "true"\n`;

async function create(file: string, text: string) {
  await writeFile(join(project, file), text);
  return service.create({ workflow: file, cwd: project, inputs: { repo: 'acme/api' } });
}

describe('[run.concurrency] defaults in settings', () => {
  it('gives a run whose workflow sets no keys the project settings’ keys, rendered for the run', async () => {
    await writeFile(join(dir, 'home', 'settings.toml'), '[run.concurrency]\nkey = "user:{{ inputs.repo }}"\n');
    await writeFile(
      join(project, '.weft', 'settings.toml'),
      '[[run.concurrency]]\nkey = "repo:{{ inputs.repo }}"\nlimit = 2\n[[run.concurrency]]\nkey = "fleet"\nlimit = 10\n',
    );
    const run = await create('plain.toml', workflow('plain'));
    expect(run.concurrency).toEqual([
      { key: 'repo:acme/api', limit: 2 },
      { key: 'fleet', limit: 10 },
    ]);
  });

  it('falls back to the user’s settings, and lets a workflow’s own keys win whole', async () => {
    await writeFile(join(dir, 'home', 'settings.toml'), '[run.concurrency]\nkey = "user:{{ inputs.repo }}"\n');
    expect((await create('plain.toml', workflow('plain'))).concurrency).toEqual([{ key: 'user:acme/api', limit: 1 }]);
    const own = await create('own.toml', workflow('own', '[run.concurrency]\nkey = "own:{{ inputs.repo }}"\nlimit = 3\n'));
    expect(own.concurrency).toEqual([{ key: 'own:acme/api', limit: 3 }]);
  });

  it('refuses a default that names an input the workflow does not declare, naming the file and key', async () => {
    const file = join(project, '.weft', 'settings.toml');
    await writeFile(file, '[run.concurrency]\nkey = "branch:{{ inputs.branch }}"\n');
    await expect(create('plain.toml', workflow('plain'))).rejects.toMatchObject({
      code: 'RUN_INVALID_PARAMS',
      message: `[run.concurrency] in ${file} (the default for workflows without one) does not fit workflow 'plain': key "branch:{{ inputs.branch }}": '{{ inputs.branch }}' is not an input this workflow declares, nor {{ run.goal }}. Give the workflow its own [run.concurrency], or declare the input.`,
    });
  });

  it('refuses a settings file whose [run.concurrency] is malformed, naming the file, table and field', async () => {
    const file = join(project, '.weft', 'settings.toml');
    await writeFile(file, '[[run.concurrency]]\nkey = ""\n[[run.concurrency]]\nkey = "a"\nlimit = 0\nmax = 2\n');
    await expect(loadSettings({ storageDir: join(dir, 'home'), workspaceRoot: project })).rejects.toMatchObject({
      code: 'SETTINGS_INVALID',
      message: `${file}: [[run.concurrency]] #1: 'key' must be a non-empty string such as "repo:{{ inputs.repo }}"; [[run.concurrency]] #2: unknown key 'max' (known keys: key, limit); [[run.concurrency]] #2: 'limit' must be an integer between 1 and 10000, not 0.`,
    });
  });
});
