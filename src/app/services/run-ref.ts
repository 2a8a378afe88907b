/**
 * What a user may type for a run: its whole id, any unique prefix of it (ULIDs are
 * Crockford base32, so case does not matter), or `@last` for the newest run. Resolved
 * here, under RunService, so the CLI, the MCP server and the HTTP API accept the same forms.
 */
import { WeftError } from '../../core/errors.js';
import { isUlid } from '../../core/ids.js';
import type { RunStore } from '../../runs/store/run-store.js';

export const LAST_RUN_REF = '@last';

const PREFIX = /^[0-9A-HJKMNP-TV-Z]{1,25}$/;
/** Candidates named in an "ambiguous prefix" error; the rest are counted. */
const CANDIDATES_SHOWN = 10;
const SCAN_PAGE = 500;

/** The whole id `ref` spells (in any case), or undefined when it is a prefix, `@last` or no id at all. */
export function wholeRunId(ref: string): string | undefined {
  const upper = ref.trim().toUpperCase();
  return isUlid(upper) ? upper : undefined;
}

/**
 * Returns the full id of the run `ref` names, or throws `RUN_NOT_FOUND` (nothing matches)
 * or `INVALID_ID` (not an id form, or a prefix that matches several runs, which are listed).
 *
 * @example await resolveRunRef(store, '01jd3q') // → '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC'
 */
export async function resolveRunRef(store: RunStore, ref: string): Promise<string> {
  const trimmed = ref.trim();
  if (trimmed.toLowerCase() === LAST_RUN_REF) {
    const newest = (await store.searchRuns({ archived: 'any', limit: 1 })).runs[0];
    if (!newest)
      throw new WeftError('RUN_NOT_FOUND', `No runs yet, so ${LAST_RUN_REF} names none. Start one with 'weft run <workflow.toml>'.`, {
        data: { runId: ref },
      });
    return newest.id;
  }
  const whole = wholeRunId(trimmed);
  if (whole !== undefined) return whole;
  const upper = trimmed.toUpperCase();
  if (!PREFIX.test(upper)) {
    throw new WeftError(
      'INVALID_ID',
      `Invalid run id '${ref.slice(0, 80)}': expected a 26-character ULID such as 01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC, any unique prefix of one, or ${LAST_RUN_REF}.`,
      {
        data: { value: ref.slice(0, 80) },
      },
    );
  }
  const matches = await idsStartingWith(store, upper);
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new WeftError('RUN_NOT_FOUND', `No run id starts with ${upper}. List runs with 'weft ps --all'.`, { data: { runId: ref } });
  }
  const shown = matches.slice(0, CANDIDATES_SHOWN).join(', ');
  const more = matches.length > CANDIDATES_SHOWN ? ` and ${matches.length - CANDIDATES_SHOWN} more` : '';
  throw new WeftError('INVALID_ID', `Run id prefix ${upper} matches ${matches.length} runs: ${shown}${more}. Give more characters.`, {
    data: { value: ref, candidates: matches.slice(0, CANDIDATES_SHOWN) },
  });
}

/**
 * Scans every run page by page (archived ones too): the store interface has no prefix filter,
 * and a prefix is typed by a person, so one scan per command is cheap next to the run it names.
 */
async function idsStartingWith(store: RunStore, prefix: string): Promise<string[]> {
  const matches: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.searchRuns({ archived: 'any', limit: SCAN_PAGE, ...(cursor !== undefined ? { cursor } : {}) });
    for (const run of page.runs) if (run.id.startsWith(prefix)) matches.push(run.id);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return matches;
}
