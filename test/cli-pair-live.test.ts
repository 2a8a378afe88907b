/**
 * `weft pair` while the agent answers: on a terminal (a pseudo-terminal from util-linux
 * `script`) the answer shows as it streams, while the fake model server still holds the
 * rest of it; piped, the transcript keeps its plain lines. The run executes in this
 * process over a SQLite store (pair-kit), `weft pair` is the built CLI in a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pieces } from './fixtures/model-server/model-server.js';
import { startHeldRun, type HeldRun } from './fixtures/model-server/pair-kit.js';
import { WEFT_BIN } from './helpers/run-cli.js';
import { ESC, screen, spawnInTerminal } from './helpers/terminal.js';

vi.setConfig({ testTimeout: 90_000 });

const ANSWER = 'The release notes now mention the retry flag and the longer default timeout.';

let held: HeldRun | undefined;

afterEach(async () => {
  await held?.close();
  held = undefined;
});

/** Everything `stream` has written so far, and a wait for a piece of text in it. */
function collect(stream: NodeJS.ReadableStream): { text: () => string; saw: (needle: string) => Promise<void> } {
  let text = '';
  const waiting: { needle: string; resolve: () => void }[] = [];
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text += chunk;
    for (const wait of waiting.filter((candidate) => text.includes(candidate.needle))) wait.resolve();
  });
  return {
    text: () => text,
    saw: (needle) => (text.includes(needle) ? Promise.resolve() : new Promise((resolve) => waiting.push({ needle, resolve }))),
  };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', resolve));
}

describe('weft pair while the agent answers', () => {
  it("streams the agent's answer onto a terminal while it is still open, and shows it once", async () => {
    let letGo!: () => void;
    const rest = new Promise<void>((resolve) => (letGo = resolve));
    held = await startHeldRun({ sqlite: true, answer: { text: ANSWER, pauseAfterText: rest } });
    const child = spawnInTerminal([process.execPath, WEFT_BIN, '--storage-dir', held.storageDir!, 'pair', held.runId], {
      cwd: held.kit.dir,
    });
    const exited = exitOf(child);
    const out = collect(child.stdout);
    await out.saw('Pairing with work@1');

    // The tool call returns, the model's second turn starts answering and stops after its first piece.
    held.release();
    await out.saw(pieces(ANSWER)[0]!);
    expect(out.text()).not.toContain(ANSWER);
    letGo();
    // The stage finishes, which ends the session and `weft pair`.
    expect(await exited).toBe(0);
    child.stdin.end();

    const lines = screen(out.text());
    expect(lines).toContain(`◆ ${ANSWER}`);
    // Shown live, so not again as the turn's line.
    expect(lines.filter((line) => line.includes(ANSWER))).toHaveLength(1);
    expect(lines).toContain('Pair session ended: work@1 finished.');
  });

  it('keeps plain lines when piped, the answer in its turn line', async () => {
    held = await startHeldRun({ sqlite: true, answer: { text: ANSWER } });
    const child = spawn(process.execPath, [WEFT_BIN, '--storage-dir', held.storageDir!, 'pair', held.runId], {
      cwd: held.kit.dir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = exitOf(child);
    const [out, notes] = [collect(child.stdout), collect(child.stderr)];
    await notes.saw('Pairing with work@1');
    held.release();
    expect(await exited).toBe(0);
    child.stdin.end();

    expect(out.text()).not.toContain(ESC);
    expect(out.text()).not.toContain('\r');
    const lines = out.text().split('\n');
    expect(lines).toContain(`◆ turn 2: ${ANSWER}`);
    expect(lines.filter((line) => line.includes(ANSWER))).toHaveLength(1);
    expect(notes.text()).toContain('Pair session ended: work@1 finished.');
  });
});
