/**
 * RunStore contract, search: for many random combinations of filters, paging through
 * `searchRuns` returns exactly the runs a brute-force filter over every run returns, in
 * order, without duplicates or gaps, whatever index the implementation picks.
 */
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/runs/model/run-record.js';
import type { RunStatus } from '../../src/runs/model/run-status.js';
import type { RunFilter } from '../../src/runs/store/run-store.js';
import { T0, type ContractContext } from './run-store-kit.js';

const STATUSES: RunStatus[] = ['submitted', 'pending', 'queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled'];

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function matches(run: RunRecord, filter: RunFilter): boolean {
  const archived = filter.archived ?? false;
  return (
    (archived === 'any' || run.archived === archived) &&
    (filter.ids === undefined || filter.ids.includes(run.id)) &&
    (filter.parentId === undefined || run.parentId === filter.parentId) &&
    (filter.workflow === undefined || run.workflow === filter.workflow) &&
    (filter.status === undefined || filter.status.includes(run.status)) &&
    (filter.createdAfter === undefined || run.createdAt > filter.createdAfter) &&
    (filter.createdBefore === undefined || run.createdAt < filter.createdBefore) &&
    Object.entries(filter.labels ?? {}).every(([key, value]) => run.labels[key] === value)
  );
}

export function searchContract(ctx: ContractContext): void {
  describe('search', () => {
    it('pages through exactly the brute-force matches for random filter combinations', async () => {
      const random = seeded(7);
      const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
      const runs: RunRecord[] = [];
      for (let index = 0; index < 70; index += 1) {
        if (random() < 0.6) ctx.advance(Math.floor(random() * 3) * 1000);
        const parentId = runs.length > 0 && random() < 0.3 ? pick(runs.slice(0, 5)).id : undefined;
        const run = await ctx.createIn(pick(STATUSES), {
          workflow: pick(['build', 'deploy', 'triage']),
          labels: { team: pick(['core', 'web', 'ops']), ...(random() < 0.5 ? { env: pick(['prod', 'dev']) } : {}) },
          ...(parentId ? { parentId } : {}),
        });
        runs.push(
          random() < 0.3 && ['succeeded', 'failed', 'cancelled'].includes(run.status) ? await ctx.store.setArchived(run.id, true) : run,
        );
      }
      const span = ctx.now() - T0;
      for (let round = 0; round < 40; round += 1) {
        const filter: RunFilter = {};
        if (random() < 0.4) filter.status = [...new Set([pick(STATUSES), pick(STATUSES)])];
        if (random() < 0.4)
          filter.labels =
            random() < 0.5 ? { team: pick(['core', 'web', 'ops', 'none']) } : { team: pick(['core', 'web']), env: pick(['prod', 'dev']) };
        if (random() < 0.25) filter.workflow = pick(['build', 'deploy', 'triage']);
        if (random() < 0.15) filter.parentId = pick(runs.slice(0, 5)).id;
        if (random() < 0.3) filter.createdAfter = T0 + Math.floor(random() * span);
        if (random() < 0.3) filter.createdBefore = T0 + Math.floor(random() * span) + 1000;
        if (random() < 0.2) filter.archived = pick([true, 'any'] as const);
        if (random() < 0.1) filter.ids = runs.filter(() => random() < 0.3).map((run) => run.id);
        const expected = runs
          .map((run) => run.id)
          .filter((id) => matches(runs.find((run) => run.id === id) as RunRecord, filter))
          .sort((a, b) => {
            const [left, right] = [runs.find((run) => run.id === a) as RunRecord, runs.find((run) => run.id === b) as RunRecord];
            return right.createdAt - left.createdAt || (a < b ? 1 : -1);
          });
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await ctx.store.searchRuns({ ...filter, limit: 7, ...(cursor ? { cursor } : {}) });
          seen.push(...page.runs.map((run) => run.id));
          cursor = page.nextCursor;
        } while (cursor !== undefined && seen.length <= runs.length);
        expect(seen, JSON.stringify(filter)).toEqual(expected);
      }
    });

    it('walks changed runs in the order of their changes, archived ones included, page by page from any point', async () => {
      const [a, b, c] = [await ctx.create(), await ctx.create(), await ctx.create()];
      ctx.advance(1000);
      await ctx.store.appendEvents(b.id, [{ type: 'run-status-changed', payload: { to: 'queued' } }]);
      ctx.advance(1000);
      await ctx.store.appendEvents(a.id, [{ type: 'run-status-changed', payload: { to: 'cancelled' } }]);
      await ctx.store.setArchived(a.id, true);
      const walk = async (after: { updatedAt: number; id: string }) => {
        const seen: [string, string][] = [];
        for (let cursor: typeof after | undefined = after; cursor !== undefined;) {
          const page = await ctx.store.listRunsUpdatedAfter(cursor, 2);
          seen.push(...page.runs.map((run): [string, string] => [run.id, run.status]));
          cursor = page.next;
        }
        return seen;
      };
      // c alone still carries its creation time; a and b changed later, b first.
      expect(await walk({ updatedAt: 0, id: '' })).toEqual([
        [c.id, 'submitted'],
        [b.id, 'queued'],
        [a.id, 'cancelled'],
      ]);
      expect(await walk({ updatedAt: T0 + 1000, id: '' })).toEqual([
        [b.id, 'queued'],
        [a.id, 'cancelled'],
      ]);
      expect(await walk({ updatedAt: T0 + 1000, id: b.id })).toEqual([[a.id, 'cancelled']]);
      expect((await ctx.store.listRunsUpdatedAfter({ updatedAt: T0 + 2000, id: a.id })).runs).toEqual([]);
      expect((await ctx.store.getRun(a.id))?.archived).toBe(true);
    });
  });
}
