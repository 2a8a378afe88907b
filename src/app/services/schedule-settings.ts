/**
 * `[schedules.<name>]` tables of the user's and the project's settings (the project's entry
 * wins for a name), read into schedule requests that `ScheduleService.syncFromSettings`
 * stores when a worker starts. Relative workflow paths resolve from the workspace (where
 * the worker runs). Every problem names the file and the dotted key.
 */
import { WeftError } from '../../core/errors.js';
import type { Settings } from '../../core/settings/settings.js';
import { CATCH_UP_POLICIES, OVERLAP_POLICIES } from '../../runs/store/schedule-store.js';
import type { ScheduleRequest } from './schedule-service.js';

type Document = Settings['userDocument'];

const KEYS = ['workflow', 'cron', 'timezone', 'inputs', 'catch_up', 'overlap', 'auto_approve'] as const;

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function read(document: Document, workspaceRoot: string): Map<string, ScheduleRequest> {
  const found = new Map<string, ScheduleRequest>();
  const tables = document?.data.schedules;
  if (document === undefined || tables === undefined) return found;
  const fail = (key: string, problem: string): never => {
    throw new WeftError('SETTINGS_INVALID', `${document.file}: key '${key}' ${problem}.`, {
      data: { file: document.file, problems: [`${key}: ${problem}`] },
    });
  };
  if (!isTable(tables)) fail('schedules', 'must be a table of [schedules.<name>] tables');
  for (const [name, entry] of Object.entries(tables as Record<string, unknown>)) {
    const key = `schedules.${name}`;
    if (!isTable(entry)) fail(key, 'must be a table with workflow and cron');
    const table = entry as Record<string, unknown>;
    for (const field of Object.keys(table))
      if (!(KEYS as readonly string[]).includes(field)) fail(`${key}.${field}`, `is not a schedule key (known: ${KEYS.join(', ')})`);
    for (const field of ['workflow', 'cron', 'timezone', 'catch_up', 'overlap'] as const) {
      if (table[field] !== undefined && typeof table[field] !== 'string') fail(`${key}.${field}`, 'must be a string');
    }
    if (typeof table.workflow !== 'string') fail(`${key}.workflow`, 'is required (the workflow file, relative to the workspace)');
    if (typeof table.cron !== 'string') fail(`${key}.cron`, 'is required (e.g. "0 3 * * *")');
    if (table.catch_up !== undefined && !(CATCH_UP_POLICIES as readonly unknown[]).includes(table.catch_up))
      fail(`${key}.catch_up`, `must be one of ${CATCH_UP_POLICIES.join(', ')}`);
    if (table.overlap !== undefined && !(OVERLAP_POLICIES as readonly unknown[]).includes(table.overlap))
      fail(`${key}.overlap`, `must be one of ${OVERLAP_POLICIES.join(', ')}`);
    if (table.inputs !== undefined && !isTable(table.inputs)) fail(`${key}.inputs`, 'must be a table of input values');
    if (table.auto_approve !== undefined && typeof table.auto_approve !== 'boolean') fail(`${key}.auto_approve`, 'must be true or false');
    found.set(name, {
      name,
      workflow: table.workflow as string,
      cwd: workspaceRoot,
      cron: table.cron as string,
      ...(table.timezone === undefined ? {} : { timezone: table.timezone as string }),
      inputs: (table.inputs ?? {}) as Record<string, unknown>,
      ...(table.catch_up === undefined ? {} : { catchUp: table.catch_up as string }),
      ...(table.overlap === undefined ? {} : { overlap: table.overlap as string }),
      ...(table.auto_approve === undefined ? {} : { autoApprove: table.auto_approve as boolean }),
      source: 'settings',
    });
  }
  return found;
}

/** The schedules settings define, the project's over the user's. */
export function settingsSchedules(settings: Pick<Settings, 'userDocument' | 'projectDocument'>, workspaceRoot: string): ScheduleRequest[] {
  return [...new Map([...read(settings.userDocument, workspaceRoot), ...read(settings.projectDocument, workspaceRoot)]).values()];
}
