/**
 * RunStore contract, secrets: whatever a caller appends — a goal, stage output, tool
 * arguments, an error — is stored with its secrets replaced by `[redacted:NAME]`.
 */
import { describe, expect, it } from 'vitest';
import { registerSecret } from '../../src/core/redact.js';
import type { ContractContext } from './run-store-kit.js';

const SECRET = 'contract-secret-0123456789';
const ODD = 'contract "quoted" \\ secret';

export function secretsContract(ctx: ContractContext): void {
  describe('secrets', () => {
    it('stores goals, payload strings and keys with secrets redacted, and leaves short values alone', async () => {
      registerSecret(SECRET, 'CONTRACT_API_KEY');
      registerSecret(ODD, 'CONTRACT_ODD_TOKEN');
      registerSecret('short', 'CONTRACT_SHORT_TOKEN');
      const run = await ctx.create({ goal: `deploy with ${SECRET}`, inputs: { token: SECRET } });
      expect(run.goal).toBe('deploy with [redacted:CONTRACT_API_KEY]');
      await ctx.store.appendEvents(run.id, [
        {
          type: 'stage-finished',
          stageId: 'deploy@1',
          payload: { output: `key=${SECRET}\n${ODD}`, error: `failed: ${SECRET}`, exitCode: 0 },
        },
        { type: 'tool-call-started', stageId: 'deploy@1', payload: { arguments: { headers: [{ [SECRET]: 'short' }] } } },
      ]);
      const stored = await ctx.store.listEvents(run.id);
      expect(stored.map((event) => event.payload)).toEqual([
        expect.objectContaining({ goal: 'deploy with [redacted:CONTRACT_API_KEY]', inputs: { token: '[redacted:CONTRACT_API_KEY]' } }),
        {
          output: 'key=[redacted:CONTRACT_API_KEY]\n[redacted:CONTRACT_ODD_TOKEN]',
          error: 'failed: [redacted:CONTRACT_API_KEY]',
          exitCode: 0,
        },
        { arguments: { headers: [{ '[redacted:CONTRACT_API_KEY]': 'short' }] } },
      ]);
      expect(JSON.stringify(await ctx.store.getRun(run.id))).not.toContain(SECRET);
    });
  });
}
