/**
 * Secrets and the runner environment end to end: the real CLI, its runners and the SQLite
 * file. A secret a stage sees must not reach events, `weft logs`/`ps`/`inspect` or the
 * database file; `{{ env.NAME }}` renders what the creator exported.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, type Sandbox } from './fixtures/workflows-e2e/harness.js';

vi.setConfig({ testTimeout: 60_000 });

const SECRET = 'e2e-secret-value-4242';

let box: Sandbox;

beforeEach(async () => {
  box = await createSandbox();
});
afterEach(async () => {
  await box.dispose();
});

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
    const id = /^run (\S+) · secrets$/m.exec(result.stderr)?.[1] as string;
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
    for (const text of [result.stdout, result.stderr, logs.stdout, ps.stdout, inspect.stdout, await storeBytes()]) expect(text).not.toContain(SECRET);
    expect(logs.stdout).toContain('[redacted:WEFT_E2E_API_KEY]');
  });
});
