/**
 * `weft signal`: a second CLI invocation releases a run's `wait` stage with an event. A
 * signal sent before the stage starts waiting still counts; a name no stage awaits is
 * refused with the names that are, and bad `--data` is a usage error.
 */
import { describe, expect, it, vi } from 'vitest';
import { until, sandboxPerTest } from './fixtures/workflows-e2e/harness.js';

vi.setConfig({ testTimeout: 60_000 });

const box = sandboxPerTest();

describe('weft signal', () => {
  it("releases the wait stage with the event's data, even when sent before the stage waits; refuses events not awaited", async () => {
    const detached = await box.cli(['run', 'gated.toml', '--detach']);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    const blocked = await until('the question', async () => {
      const run = await box.inspect(id);
      return run.status === 'blocked' && run.pendingQuestions!.length > 0 ? run : undefined;
    });

    const [unknown, badData] = await Promise.all([
      box.cli(['signal', id, 'shipped']),
      box.cli(['signal', id, 'deployed', '--data', '{nope']),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`Run ${id} does not await the event 'shipped'; it awaits 'deployed'.`);
    expect(badData.code).toBe(2);
    expect(badData.stderr).toContain('--data is not JSON');
    expect(await box.events(id, '--type', 'run-signal-sent')).toEqual([]);

    const sent = await box.cli(['signal', id, 'deployed', '--data', '{"version":"2.0.0"}']);
    expect(sent, sent.stderr).toMatchObject({ code: 0, stdout: `Sent 'deployed' to run ${id} (blocked)\n` });
    expect((await box.cli(['answer', id, blocked.pendingQuestions![0]!.id, 'yes'])).code).toBe(0);

    const done = await until(
      'the run to end',
      async () => {
        const run = await box.inspect(id);
        return ['succeeded', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
      },
      45_000,
    );
    expect(done.status).toBe('succeeded');
    const finished = await box.events(id, '--type', 'stage-finished');
    expect(finished.map((event) => [event.stageId, event.payload.output])).toEqual([
      ['ask@1', true],
      ['gate@1', { version: '2.0.0' }],
      ['after@1', 'released'],
    ]);
  });
});
