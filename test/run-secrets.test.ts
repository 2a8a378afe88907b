/**
 * Secrets and the runner environment end to end: the real CLI, its runners and the SQLite
 * file. A secret a stage sees must not reach events, `weft logs`/`ps`/`inspect` or the
 * database file; `{{ env.NAME }}` renders what the creator exported.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { until, sandboxPerTest } from './fixtures/workflows-e2e/harness.js';

vi.setConfig({ testTimeout: 60_000 });

const SECRET = 'e2e-secret-value-4242';

const box = sandboxPerTest();

async function storeBytes(): Promise<string> {
  const files = (await readdir(box.home)).filter((name) => name.startsWith('weft.db'));
  return (await Promise.all(files.map((name) => readFile(join(box.home, name), 'latin1')))).join('\n');
}

describe('secrets in runs', () => {
  it('renders {{ env.NAME }} from the environment and stores stage output and errors with the secret redacted', async () => {
    await writeFile(
      join(box.ws, 'secrets.toml'),
      `[workflow]
name = "secrets"

[nodes.show]
kind = "command"
env = { PASSED = "{{ env.WEFT_E2E_API_KEY }}" }
run = 'echo "direct=$WEFT_E2E_API_KEY passed=$PASSED plain={{ env.WEFT_E2E_PLAIN }} unset=[{{ env.WEFT_E2E_UNSET }}]"'
next = "leak"

[nodes.leak]
kind = "command"
run = 'echo "cannot use $WEFT_E2E_API_KEY" >&2; exit 3'
`,
    );
    const env = { WEFT_E2E_API_KEY: SECRET, WEFT_E2E_PLAIN: 'visible-value' };
    const result = await box.cli(['run', 'secrets.toml'], env);
    expect(result.code, result.stderr).toBe(1);
    const id = /^run (\S+) · secrets · /m.exec(result.stderr)?.[1] as string;
    const [finished, logs, ps, inspect] = await Promise.all([
      box.events(id, '--type', 'stage-finished'),
      box.cli(['logs', id], env),
      box.cli(['ps', '--json', '--all'], env),
      box.cli(['inspect', id, '--json'], env),
    ]);
    expect(finished.map((event) => [event.stageId, event.payload.output, event.payload.error])).toEqual([
      ['show@1', 'direct=[redacted:WEFT_E2E_API_KEY] passed=[redacted:WEFT_E2E_API_KEY] plain=visible-value unset=[]', null],
      ['leak@1', '', 'cannot use [redacted:WEFT_E2E_API_KEY]'],
    ]);
    // Compared as booleans: a failure must not print the database.
    expect(
      [result.stdout, result.stderr, logs.stdout, ps.stdout, inspect.stdout, await storeBytes()].map((text) => text.includes(SECRET)),
    ).toEqual([false, false, false, false, false, false]);
    expect(logs.stdout).toContain('[redacted:WEFT_E2E_API_KEY]');
  });
});

describe('the runner environment', () => {
  it("executes a run with its creator's environment while a runner started for another environment is alive", async () => {
    await writeFile(
      join(box.ws, 'hold.toml'),
      `[nodes.hold]\nkind = "command"\nrun = 'touch held; while [ ! -f release.marker ]; do sleep 0.05; done; echo "base=$WEFT_E2E_BASE_URL"'\n`,
    );
    await writeFile(join(box.ws, 'show.toml'), `[nodes.show]\nkind = "command"\nrun = 'echo "base=$WEFT_E2E_BASE_URL"'\n`);
    const first = box.cli(['run', 'hold.toml'], { WEFT_E2E_BASE_URL: 'http://127.0.0.1:1/one' });
    // The first creator's runner is busy with its run, and free to claim more.
    await until('the first run to hold', async () => (existsSync(join(box.ws, 'held')) ? true : undefined), 30_000);
    const second = await box.cli(['run', 'show.toml'], { WEFT_E2E_BASE_URL: 'http://127.0.0.1:2/two' });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('→ base=http://127.0.0.1:2/two');
    await writeFile(join(box.ws, 'release.marker'), '');
    const held = await first;
    expect(held.code, held.stderr).toBe(0);
    expect(held.stdout).toContain('→ base=http://127.0.0.1:1/one');
    const secondId = /^run (\S+) · show · /m.exec(second.stderr)?.[1] as string;
    const firstId = /^run (\S+) · hold · /m.exec(held.stderr)?.[1] as string;
    const [a, b] = await Promise.all([box.inspect(firstId), box.inspect(secondId)]);
    expect([a, b].map((run) => typeof (run as unknown as { envFingerprint?: unknown }).envFingerprint)).toEqual(['string', 'string']);
    expect((a as unknown as { envFingerprint: string }).envFingerprint).not.toBe(
      (b as unknown as { envFingerprint: string }).envFingerprint,
    );
  });
});
