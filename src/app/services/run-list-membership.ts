/**
 * Whether a changed run is in a filtered runs list, or has just left it — for the live
 * list, which sees each run only when it changes. Workflow, labels, creation time and text
 * never change, so a run that matches those but no longer the rest (status, archived,
 * parent) may have been in the list and is reported as gone; one that does not match them
 * never was.
 */
import type { RunRecord } from '../../runs/model/run-record.js';
import type { RunFilter } from '../../runs/store/run-store.js';
import { normalizeFilter, runMatchesFilter } from '../../runs/store/store-input.js';
import { runMatchesText } from './run-text-search.js';

export type ListMembership = 'in' | 'left';

/** @example const membership = listMembership({ status: ['running'] }, 'deploy'); membership(run) // 'in' | 'left' | undefined */
export function listMembership(filter: RunFilter, text?: string): (run: RunRecord) => ListMembership | undefined {
  const { cursor: _page, limit: _size, ...rest } = filter;
  const { status: _status, parentId: _parent, archived: _archived, ...unchanging } = rest;
  const all = normalizeFilter(rest);
  const fixed = normalizeFilter({ ...unchanging, archived: 'any' });
  const needle = text?.trim().toLowerCase() ?? '';
  return (run) => {
    if (!runMatchesFilter(run, fixed) || (needle !== '' && !runMatchesText(run, needle))) return undefined;
    return runMatchesFilter(run, all) ? 'in' : 'left';
  };
}
