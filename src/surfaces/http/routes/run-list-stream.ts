/**
 * `GET /api/v1/runs` with `Accept: text/event-stream`: the runs list's changes, live, for
 * the list's filters. Each run that changes comes as `event: run` (it is in the list, new
 * or changed) or `event: run-left` (it changed and no longer matches, so a client drops
 * it), `id: <its updated_at in epoch ms>`, `data: <the run as the list shows it>`. With
 * `Last-Event-ID` the stream starts with the runs changed since that time (less a short
 * overlap, so some may come twice), so a client that reconnects misses none. One reader,
 * woken by the store's change notices, serves every stream (see `RunListFanout`).
 */
import type { Context } from 'hono';
import { listMembership, type ListMembership } from '../../../app/services/run-list-membership.js';
import { runPreview } from '../../../app/views/run-view.js';
import type { RunRecord } from '../../../runs/model/run-record.js';
import type { RunFilter } from '../../../runs/store/run-store.js';
import type { HttpDeps } from '../http-deps.js';
import { followerStream, lastEventId } from './sse-stream.js';

interface ListChange {
  membership: ListMembership;
  run: RunRecord;
}

const SSE_EVENT: Record<ListMembership, string> = { in: 'run', left: 'run-left' };

/** The run as the list shows it, serialised once however many streams send it (they share the records of a read). */
const previews = new WeakMap<RunRecord, string>();
function frame({ membership, run }: ListChange): string {
  let json = previews.get(run);
  if (json === undefined) {
    json = JSON.stringify(runPreview(run));
    previews.set(run, json);
  }
  return `event: ${SSE_EVENT[membership]}\nid: ${run.updatedAt}\ndata: ${json}\n\n`;
}

/** Serves the list streams of one `weft serve`, all on one reader. */
export function runListStreams(deps: HttpDeps): (context: Context, filter: RunFilter, text: string | undefined) => Promise<Response> {
  return async (context, filter, text) => {
    const membership = listMembership(filter, text);
    const after = lastEventId(context, 'the id (updated_at in epoch ms) of the last run received');
    const runs = await deps.runs();
    const pick = (run: RunRecord): ListChange | undefined => {
      const found = membership(run);
      return found === undefined ? undefined : { membership: found, run };
    };
    return followerStream(context, () => runs.followList(pick, after), frame);
  };
}
