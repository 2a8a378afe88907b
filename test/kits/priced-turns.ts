/**
 * Scripted model turns that cost a known amount, for the budget tests: claude-sonnet-4-5 under
 * 200k tokens prices 100k in at $3/M + 10k out at $15/M = $0.45 a turn (110k tokens).
 */
import { agentRunner, llmSettings } from '../fixtures/model-server/agent-kit.js';
import type { ModelServer } from '../fixtures/model-server/model-server.js';

/** A $0.45 turn that reads `notes.txt` (the agent goes on). */
export const READ_TURN = {
  text: 'Reading.',
  toolCalls: [{ name: 'read_file', arguments: { file_path: 'notes.txt' } }],
  usage: { input: 100_000, output: 10_000 },
};

/** A $0.45 turn that ends the stage. */
export const DONE_TURN = { text: 'Done.', usage: { input: 100_000, output: 10_000 } };

/** The agent runner pricing its turns as claude-sonnet-4-5 through the real Anthropic provider. */
export const pricedAgent = (server: ModelServer) => agentRunner(llmSettings(server, 'anthropic', { model: 'claude-sonnet-4-5' }));
