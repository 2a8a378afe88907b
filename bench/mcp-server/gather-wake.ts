/**
 * bench/mcp-server: how soon `weft_run_gather` answers once a run ends in another process.
 * This process plays the runner: it holds the run's lease (so the server starts no runner
 * of its own), waits until the server is waiting (its first progress notification), lets
 * a random 0–200 ms pass so the end lands at any phase of whatever timer the server keeps,
 * commits the run's last status change, and times from the commit's return to the
 * gather's answer in the client.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { now, sleep } from '../lib/measure.js';

const RUNNER_ID = 'bench-runner';
/** Long enough that no lease runs out during a sample: an expired lease would make the server start a runner. */
const LEASE_MS = 10 * 60_000;
/** The random wait between the server waiting and the run ending, at most. */
export const PHASE_MS = 200;

/** One sample: ms from the commit that ends the run to the gather's answer. */
export async function gatherWakeMs(runner: SqliteRunStore, client: Client, random: () => number): Promise<number> {
  const run = await runner.createRun({ workflow: 'bench', workflowPath: 'bench.toml', cwd: '/', initialStatus: 'queued' });
  if ((await runner.claimRun(RUNNER_ID, LEASE_MS))?.id !== run.id) throw new Error(`the bench runner could not claim run ${run.id}`);
  await runner.appendEvents(run.id, [
    { type: 'run-status-changed', payload: { to: 'starting' } },
    { type: 'run-status-changed', payload: { to: 'running' } },
  ]);
  let serverWaiting: () => void = () => {};
  const waiting = new Promise<void>((resolve) => (serverWaiting = resolve));
  const gathered = client.callTool(
    { name: 'weft_run_gather', arguments: { run_ids: [run.id], timeout_seconds: 60 } },
    { onprogress: () => serverWaiting(), timeout: 120_000 },
  );
  await Promise.race([waiting, gathered.then(() => Promise.reject(new Error('weft_run_gather answered before the run ended')))]);
  await sleep(random() * PHASE_MS);
  await runner.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'succeeded' } }]);
  const ended = now();
  const result = await gathered;
  const elapsed = now() - ended;
  const data = result.structuredContent as { timed_out?: boolean; runs?: { status?: string }[] } | undefined;
  if (result.isError || data?.timed_out !== false || data.runs?.[0]?.status !== 'succeeded')
    throw new Error(`unexpected gather answer: ${JSON.stringify(result).slice(0, 300)}`);
  return elapsed;
}
