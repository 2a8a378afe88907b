/**
 * The text a PostgreSQL change notice carries (`pg_notify` payload, at most 8000 bytes):
 * the sending store's id first, so a store skips the notices of its own writes by their
 * start (it told its own listeners when they committed), then what changed —
 *
 *   `<source> runs <0|1 claimable> <id>:<head seq>:<status> …` (head and status may be
 *   empty), or `<source> unknown`.
 *
 * A payload that does not parse (an empty one, as an older weft sends, or a foreign one)
 * reads as an unknown change from nobody in particular: anything may have changed.
 */
import { isUlid } from '../../../core/ids.js';
import { RUN_STATUSES } from '../../model/run-status.js';
import { UNKNOWN_CHANGE, type RunChange, type StoreChange } from '../store-change.js';

/** PostgreSQL refuses a longer payload; a notice that would not fit says `unknown` instead. */
export const PAYLOAD_LIMIT = 7900;

export interface Notice {
  source: string | undefined;
  change: StoreChange;
}

export function encodeNotice(source: string, change: StoreChange): string {
  if (change.kind === 'unknown') return `${source} unknown`;
  const runs = change.runs.map((run) => `${run.id}:${run.headSeq ?? ''}:${run.status ?? ''}`);
  const text = `${source} runs ${change.claimable ? 1 : 0} ${runs.join(' ')}`.trimEnd();
  return text.length <= PAYLOAD_LIMIT ? text : `${source} unknown`;
}

export function decodeNotice(payload: string | undefined): Notice {
  const [source, kind, claimable, ...items] = (payload ?? '').split(' ');
  if (source === undefined || source === '' || kind !== 'runs' || (claimable !== '0' && claimable !== '1')) {
    return { source: kind === 'unknown' ? source : undefined, change: UNKNOWN_CHANGE };
  }
  const runs: RunChange[] = [];
  for (const item of items) {
    const [id = '', seq = '', status = '', extra] = item.split(':');
    const headSeq = seq === '' ? undefined : Number(seq);
    const known = status === '' ? undefined : RUN_STATUSES.find((each) => each === status);
    if (
      !isUlid(id) ||
      extra !== undefined ||
      (headSeq !== undefined && !Number.isSafeInteger(headSeq)) ||
      (status !== '' && known === undefined)
    )
      return { source, change: UNKNOWN_CHANGE };
    runs.push({ id, ...(headSeq === undefined ? {} : { headSeq }), ...(known === undefined ? {} : { status: known }) });
  }
  return { source, change: { kind: 'runs', runs, claimable: claimable === '1' } };
}
