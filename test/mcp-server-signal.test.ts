/**
 * Signals through `weft mcp start` and the SDK client: weft_run_interact action `signal`
 * releases a `wait` stage with its data; an event the workflow does not await is refused
 * with the names it does.
 */
import type { Client } from '@modelcontextprotocol/client';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectStdio, createRun, endAllRuns, makeWorkspace, waitForStatus, type Workspace } from './helpers/mcp-server-kit.js';

describe('weft_run_interact signal', () => {
  let ws: Workspace;
  let client: Client;

  beforeAll(async () => {
    ws = makeWorkspace();
    writeFileSync(
      join(ws.dir, 'gate.toml'),
      '[nodes.gate]\nkind = "wait"\nevent = "deployed"\nnext = "gate2"\n\n[nodes.gate2]\nkind = "wait"\nevent = "approved"\nnext = "after"\n\n[nodes.after]\nkind = "command"\nrun = "echo released"\n',
    );
    client = await connectStdio(ws);
  });

  afterAll(async () => {
    if (client) {
      await endAllRuns(client);
      await client.close();
    }
    ws?.remove();
  }, 90_000);

  it('releases the wait stage with the data; refuses an event not awaited, naming those that are', async () => {
    const run = await createRun(client, { workflow: 'gate.toml', auto_approve: true });
    const refused = await call(client, 'weft_run_interact', { run_id: run.id, action: 'signal', event: 'shipped' });
    expect(refused).toMatchObject({ isError: true, code: 'RUN_INVALID_PARAMS' });
    expect(refused.text).toContain(`Run ${run.id} does not await the event 'shipped'; it awaits 'approved', 'deployed'.`);
    const missing = await call(client, 'weft_run_interact', { run_id: run.id, action: 'signal' });
    expect(missing).toMatchObject({ isError: true, code: 'INVALID_ARGUMENTS' });

    // The second stage's event first: it waits for its stage instead of being lost.
    expect((await call(client, 'weft_run_interact', { run_id: run.id, action: 'signal', event: 'approved' })).isError).toBe(false);
    const sent = await call(client, 'weft_run_interact', { run_id: run.id, action: 'signal', event: 'deployed', data: { version: 2 } });
    expect(sent.isError, sent.text).toBe(false);
    expect(sent.text).toMatch(new RegExp(`^Sent 'deployed' to run ${run.id} \\(\\w+\\)\\.$`));
    await waitForStatus(client, run.id, ['succeeded']);
    const finished = await call(client, 'weft_run_events', { run_id: run.id, types: ['stage-finished'] });
    expect(
      (finished.data.events as { stage_id: string; payload: { output: unknown } }[]).map((event) => [event.stage_id, event.payload.output]),
    ).toEqual([
      ['gate@1', { version: 2 }],
      ['gate2@1', null],
      ['after@1', 'released'],
    ]);
  }, 90_000);
});
