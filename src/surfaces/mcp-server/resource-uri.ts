/**
 * The resource URIs weft serves, parsed in one place: `weft://runs` (recent runs),
 * `weft://runs/{run_id}` (one run) and `weft://runs/{run_id}/events` (its events). Run ids
 * are checked as ULIDs, so nothing like `../` ever reaches a lookup.
 */
import { assertUlid } from '../../core/ids.js';

export const RUNS_URI = 'weft://runs';
export const RUN_URI_TEMPLATE = 'weft://runs/{run_id}';
export const RUN_EVENTS_URI_TEMPLATE = 'weft://runs/{run_id}/events';

export type RunResource = { kind: 'runs' } | { kind: 'run'; runId: string } | { kind: 'events'; runId: string };

const PATTERN = /^weft:\/\/runs(?:\/([^/?#]*)(\/events)?)?\/?(?:[?#].*)?$/;

export function runUri(runId: string): string {
  return `${RUNS_URI}/${runId}`;
}

export function runEventsUri(runId: string): string {
  return `${RUNS_URI}/${runId}/events`;
}

/**
 * @example parseRunResource('weft://runs/01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC/events') // → { kind: 'events', runId: '01JD…' }
 * `undefined` for a URI weft does not serve; throws `INVALID_ID` for a bad run id.
 */
export function parseRunResource(uri: string): RunResource | undefined {
  const match = PATTERN.exec(uri);
  if (!match) return undefined;
  const [, rawId, events] = match;
  if (rawId === undefined) return { kind: 'runs' };
  let id: string;
  try {
    id = decodeURIComponent(rawId);
  } catch {
    id = rawId;
  }
  const runId = assertUlid(id, 'run id');
  return events ? { kind: 'events', runId } : { kind: 'run', runId };
}
