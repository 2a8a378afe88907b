/**
 * `weft pair` with a Claude Code stage: a message sent while Claude Code works reaches it
 * as its next message once it has answered (Claude Code reads stream-JSON messages on
 * stdin), the stage's answer is then the one after the message, and the pair session ends
 * with the stage.
 */
import { describe, expect, it } from 'vitest';
import { createClaudeKit, useClaudeTestContext } from './kits/cli-backend-kit.js';

const WORKFLOW = `
[workflow]
name = "pair"
start = "code"

[nodes.code]
kind = "agent"
backend = "cli"
cli = "claude"
prompt = "Start the work."
`;

const context = useClaudeTestContext();

describe('pairing with a Claude Code stage', () => {
  it('delivers a message sent while it works as its next message, and the answer after it is the output', async () => {
    let release!: () => void;
    const firstTurnHeld = new Promise<void>((resolve) => (release = resolve));
    context.claude = await createClaudeKit(context.kit, async (_request, index) => {
      if (index === 0) {
        await firstTurnHeld;
        return { text: 'first answer' };
      }
      return { text: 'second answer, hello included' };
    });
    const file = await context.kit.write('wf.toml', WORKFLOW);
    const created = await context.kit.service.create({ workflow: file, cwd: context.kit.dir, autoApprove: true });
    const worker = context.kit.startWorker({ agent: context.claude!.agent });
    await context.kit.until(
      created.id,
      (run) => run.currentStageId === 'code@1' && context.claude!.server.requests.length === 1,
      'waiting on the model',
    );

    const { session } = await context.kit.service.pairing.start(created.id, { by: 'tester' });
    expect(session.stageId).toBe('code@1');
    await context.kit.service.pairing.message(created.id, 'Also say hello.');
    release();
    const run = await context.kit.until(created.id, (item) => item.status === 'succeeded' || item.status === 'failed', 'finished');
    await worker.stop();

    expect(run.status).toBe('succeeded');
    const events = await context.kit.events(created.id);
    expect(events.filter((event) => event.type === 'message-delivered').map((event) => event.payload.text)).toEqual(['Also say hello.']);
    expect(events.filter((event) => event.type === 'model-turn-finished').map((event) => event.payload.text)).toEqual([
      'first answer',
      'second answer, hello included',
    ]);
    expect(events.find((event) => event.type === 'stage-finished')!.payload.output).toBe('second answer, hello included');
    expect(events.find((event) => event.type === 'pair-ended')!.payload.reason).toBe('stage-finished');
    const second = context.claude!.server.requests[1]!;
    expect(second.messages.filter((message) => message.role === 'user').at(-1)!.text).toContain('Also say hello.');
  });
});
