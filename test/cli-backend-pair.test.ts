/**
 * `weft pair` with a Claude Code stage: a message sent while Claude Code works reaches it
 * as its next message once it has answered (Claude Code reads stream-JSON messages on
 * stdin), the stage's answer is then the one after the message, and the pair session ends
 * with the stage.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, type EngineKit } from './kits/engine-kit.js';
import { createClaudeKit, type ClaudeKit } from './kits/cli-backend-kit.js';

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

let kit: EngineKit;
let claude: ClaudeKit | undefined;

beforeEach(async () => {
  kit = await createEngineKit();
});

afterEach(async () => {
  await claude?.close();
  claude = undefined;
  await kit.close();
});

describe('pairing with a Claude Code stage', () => {
  it('delivers a message sent while it works as its next message, and the answer after it is the output', async () => {
    let release!: () => void;
    const firstTurnHeld = new Promise<void>((resolve) => (release = resolve));
    claude = await createClaudeKit(kit, async (_request, index) => {
      if (index === 0) {
        await firstTurnHeld;
        return { text: 'first answer' };
      }
      return { text: 'second answer, hello included' };
    });
    const file = await kit.write('wf.toml', WORKFLOW);
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    const worker = kit.startWorker({ agent: claude.agent });
    await kit.until(created.id, (run) => run.currentStageId === 'code@1' && claude!.server.requests.length === 1, 'waiting on the model');

    const { session } = await kit.service.pairing.start(created.id, { by: 'tester' });
    expect(session.stageId).toBe('code@1');
    await kit.service.pairing.message(created.id, 'Also say hello.');
    release();
    const run = await kit.until(created.id, (item) => item.status === 'succeeded' || item.status === 'failed', 'finished');
    await worker.stop();

    expect(run.status).toBe('succeeded');
    const events = await kit.events(created.id);
    expect(events.filter((event) => event.type === 'message-delivered').map((event) => event.payload.text)).toEqual(['Also say hello.']);
    expect(events.filter((event) => event.type === 'model-turn-finished').map((event) => event.payload.text)).toEqual(['first answer', 'second answer, hello included']);
    expect(events.find((event) => event.type === 'stage-finished')!.payload.output).toBe('second answer, hello included');
    expect(events.find((event) => event.type === 'pair-ended')!.payload.reason).toBe('stage-finished');
    const second = claude.server.requests[1]!;
    expect(second.messages.filter((message) => message.role === 'user').at(-1)!.text).toContain('Also say hello.');
  });
});
