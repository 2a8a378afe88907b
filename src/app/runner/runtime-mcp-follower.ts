/**
 * Keeps a run's MCP hub in step with the store's MCP server catalogue (runtime
 * registration, spec §3.8): servers added through `POST /api/v1/mcp/servers` — in the
 * `weft serve` process, while this run executes in a runner — are connected here, and
 * removed ones disconnected, so an agent stage that is already running sees the tools on
 * its next turn (the loop reads the registry every turn). The catalogue is re-read on the
 * store's change notices that may concern it (`unknown` ones), never by polling; each change is recorded as an event in the run.
 */
import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { McpServerConfig } from '../../mcp/config/index.js';
import type { McpHub } from '../../mcp/hub/index.js';
import { MCP_EVENT } from '../../runs/model/event-types.js';
import type { NewRunEvent } from '../../runs/model/run-event.js';
import type { McpServerEntry, RunStore } from '../../runs/store/run-store.js';

export interface RuntimeMcpFollower {
  /** Resolves once the catalogue as it was at the start is connected. */
  synced: Promise<void>;
  stop(): void;
}

export interface FollowParams {
  store: Pick<RunStore, 'listMcpServers' | 'appendEvents' | 'watchChanges'>;
  hub: Pick<McpHub, 'addServer' | 'removeServer'>;
  runId: string;
  /** Servers the run has from its config files and workflow: a catalogue entry of the same name does not replace them. */
  configured: ReadonlySet<string>;
  /** A catalogue entry as a server config; throws when it is not valid. */
  resolve(entry: McpServerEntry): McpServerConfig;
  logger: Logger;
}

/** @example const follower = followRuntimeServers({ store, hub, runId, configured, resolve, logger }); await follower.synced; … follower.stop(); */
export function followRuntimeServers(params: FollowParams): RuntimeMcpFollower {
  const { store, hub, runId, logger } = params;
  /** Catalogue entries connected here, by name, with the version (updatedAt) connected. */
  const applied = new Map<string, number>();
  let stopped = false;
  let first = true;

  const sync = async (): Promise<void> => {
    if (stopped) return;
    const initial = first;
    first = false;
    const entries = (await store.listMcpServers()).filter((entry) => !params.configured.has(entry.name));
    const wanted = new Map(entries.map((entry) => [entry.name, entry]));
    const events: NewRunEvent[] = [];
    for (const name of [...applied.keys()]) {
      if (wanted.get(name)?.updatedAt === applied.get(name)) continue;
      applied.delete(name);
      await hub.removeServer(name);
      if (!wanted.has(name)) events.push({ type: MCP_EVENT.serverRemoved, payload: { name } });
    }
    for (const entry of entries) {
      if (applied.has(entry.name) || stopped) continue;
      applied.set(entry.name, entry.updatedAt);
      try {
        const status = await hub.addServer(params.resolve(entry));
        events.push({
          type: MCP_EVENT.serverAdded,
          payload: { name: entry.name, status: status.state, tools: status.tools, ...(status.error ? { error: status.error } : {}) },
        });
      } catch (error) {
        events.push({ type: MCP_EVENT.serverAdded, payload: { name: entry.name, status: 'failed', tools: 0, error: errorMessage(error) } });
      }
    }
    // Servers the run started with are part of its toolbox from the beginning, not a change to it.
    if (!initial && events.length > 0 && !stopped) await store.appendEvents(runId, events);
  };

  let chain = Promise.resolve();
  // Notices come with every write to the store: while one read is waiting to run, more notices add nothing.
  let queued = false;
  const schedule = (): Promise<void> => {
    if (queued) return chain;
    queued = true;
    chain = chain
      .then(() => {
        queued = false;
        return sync();
      })
      .catch((error: unknown) => logger.warn(`runtime MCP servers of run ${runId}: ${errorMessage(error)}`));
    return chain;
  };
  // A catalogue change is always told as `unknown`: a notice naming runs is only about runs.
  const stopWatching = store.watchChanges((change) => {
    if (change.kind === 'unknown') void schedule();
  });
  return {
    synced: schedule(),
    stop: () => {
      stopped = true;
      stopWatching();
    },
  };
}
