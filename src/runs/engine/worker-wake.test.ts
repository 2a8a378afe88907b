// Runners react to the store's change notices: with an hour-long poll and nobody waking
// them directly, a run queued by "another process" is still claimed, and an answer still
// reaches the stage waiting for it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, statusChanges, type EngineKit } from '../../../test/kits/engine-kit.js';

const HOUR_MS = 3_600_000;
let kit: EngineKit;
beforeEach(async () => {
  kit = await createEngineKit({ pollMs: HOUR_MS, wakeOnCreate: false });
});
afterEach(async () => {
  await kit.close();
});

describe('runners woken by change notices', () => {
  it('claims a run queued after the worker went idle, and delivers the answer its human stage waits for', async () => {
    const worker = kit.startWorker();
    try {
      const file = await kit.write(
        'wf.toml',
        `
[nodes.ask]
kind = "human"
question = "Go on?"
type = "yes_no"
next = "done"
[nodes.done]
kind = "command"
run = "echo done"
`,
      );
      const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
      await kit.until(created.id, (run) => run.status === 'blocked', 'blocked on the question');
      const [question] = await kit.service.questions(created.id, true);
      await kit.service.answer(created.id, question!.id, true);
      await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded');
      expect(statusChanges(await kit.events(created.id))).toEqual(['queued', 'starting', 'running', 'blocked', 'running', 'succeeded']);
    } finally {
      await worker.stop();
    }
  });
});
