import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';
import { listRunArtifacts, readRunArtifact, type RunArtifactDeps } from './run-artifacts.js';
import { RunService } from './run-service.js';

let dir: string;
let store: MemoryRunStore;
let deps: RunArtifactDeps;
let runId: string;

/** Appends a finished tool call that names `artifactPath`; answers its seq. */
async function toolCall(artifactPath: string | null, tool = 'shell'): Promise<number> {
  const [event] = await store.appendEvents(runId, [
    { type: 'tool-call-finished', stageId: 'dump@1', payload: { tool, isError: false, durationMs: 1, text: 'cut', artifactPath } },
  ]);
  return event!.seq;
}

async function code(action: Promise<unknown>): Promise<string> {
  try {
    await action;
  } catch (error) {
    return error instanceof WeftError ? error.code : `not a WeftError: ${String(error)}`;
  }
  return 'no error';
}

const text = async (body: ReadableStream<Uint8Array>) => new Response(body).text();

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-artifacts-'));
  store = new MemoryRunStore({ clock: () => 1_000 });
  const runs = new RunService({ store, clock: () => 1_000, wakeRunners: () => {} });
  deps = { runs, storageDir: join(dir, 'storage') };
  runId = (await store.createRun({ workflow: 'dump', workflowPath: join(dir, 'dump.toml'), cwd: dir })).id;
  mkdirSync(join(dir, 'storage', 'artifacts', runId), { recursive: true });
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('run artifacts', () => {
  it('lists what the log names, oldest first, and reads each whole', async () => {
    const file = join(dir, 'storage', 'artifacts', runId, '01ABC-shell.txt');
    writeFileSync(file, 'the whole output');
    const first = await toolCall(file);
    await toolCall(null);
    const stored = await toolCall('weft-artifact:01DEF', 'fetch');
    const list = await listRunArtifacts(deps, runId);
    expect(list.map(({ seq, name, bytes, tool }) => ({ seq, name, bytes, tool }))).toEqual([
      { seq: first, name: '01ABC-shell.txt', bytes: 16, tool: 'shell' },
      { seq: stored, name: '01DEF.txt', bytes: null, tool: 'fetch' },
    ]);
    expect(await text((await readRunArtifact(deps, runId, first)).body)).toBe('the whole output');
    expect(await text((await readRunArtifact({ ...deps, readStored: async (ref) => `kept as ${ref}` }, runId, stored)).body)).toBe(
      'kept as weft-artifact:01DEF',
    );
    expect(await code(readRunArtifact(deps, runId, stored))).toBe('FILE_NOT_FOUND');
  });

  it('serves nothing outside the storage dir’s artifacts, whatever the log or a symlink says', async () => {
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'not for the browser');
    const outside = await toolCall(secret);
    const link = join(dir, 'storage', 'artifacts', runId, 'link.txt');
    symlinkSync(secret, link);
    const linked = await toolCall(link);
    expect(await code(readRunArtifact(deps, runId, outside))).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(await code(readRunArtifact(deps, runId, linked))).toBe('PATH_OUTSIDE_WORKSPACE');
    // A seq that saved no artifact (run-created) and one past the log are not found.
    expect(await code(readRunArtifact(deps, runId, 1))).toBe('FILE_NOT_FOUND');
    expect(await code(readRunArtifact(deps, runId, 99))).toBe('FILE_NOT_FOUND');
  });
});
