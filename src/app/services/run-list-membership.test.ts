import { describe, expect, it } from 'vitest';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';
import { listMembership } from './run-list-membership.js';

describe('listMembership', () => {
  it('says in for a match, left for a run that matches only what cannot change, nothing for one that never could', async () => {
    const store = new MemoryRunStore();
    const create = (workflow: string, team: string, goal = '') =>
      store.createRun({ workflow, workflowPath: `/${workflow}.toml`, cwd: '/', goal, labels: { team } });
    const deploy = await create('deploy', 'web', 'ship the site');
    const otherTeam = await create('deploy', 'ops', 'ship the site');
    const otherText = await create('deploy', 'web', 'rotate keys');
    const membership = listMembership(
      { status: ['queued'], workflow: 'deploy', labels: { team: 'web' }, limit: 1, cursor: 'ignored-by-streams' },
      'SHIP',
    );
    expect([deploy, otherTeam, otherText].map(membership)).toEqual(['left', undefined, undefined]);
    await store.appendEvents(deploy.id, [{ type: 'run-status-changed', payload: { to: 'queued' } }]);
    const queued = (await store.getRun(deploy.id))!;
    expect(membership(queued)).toBe('in');
    await store.appendEvents(deploy.id, [{ type: 'run-status-changed', payload: { to: 'cancelled' } }]);
    await store.setArchived(deploy.id, true);
    // Archived runs are out of a list that hides them, as its status filter is.
    expect(listMembership({ status: ['cancelled'] })((await store.getRun(deploy.id))!)).toBe('left');
    expect(listMembership({ status: ['cancelled'], archived: 'any' })((await store.getRun(deploy.id))!)).toBe('in');
  });
});
