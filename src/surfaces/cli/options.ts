/**
 * Option parsers shared by commands: repeatable flags and `key=value` pairs.
 */
import { WeftError } from '../../core/errors.js';
import { budgetArg, budgetRequest } from '../../app/views/run-args.js';
import type { RunBudgetPayload } from '../../runs/model/event-types.js';
import { MAX_PRIORITY, MIN_PRIORITY } from '../../runs/model/run-record.js';
import { readSandboxSpec, type SandboxSpec } from '../../core/sandbox/sandbox-rules.js';

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--label k=v` values: every value stays a string. */
export function parseLabels(values: string[]): Record<string, string> {
  return parseKeyValues(values, '--label', (raw) => raw);
}

/** `--input k=v` values: numbers, booleans, arrays and objects given as JSON become those; anything else stays a string. */
export function parseInputs(values: string[]): Record<string, unknown> {
  return parseKeyValues(values, '--input', parseLoose);
}

function parseKeyValues<T>(values: string[], flag: string, parseValue: (raw: string) => T): Record<string, T> {
  const pairs: Record<string, T> = {};
  for (const value of values) {
    const index = value.indexOf('=');
    if (index <= 0) throw new WeftError('USAGE', `${flag} '${value}' is not key=value; e.g. ${flag} topic=release.`);
    pairs[value.slice(0, index)] = parseValue(value.slice(index + 1));
  }
  return pairs;
}

function parseLoose(raw: string): unknown {
  if (/^-?\d+(\.\d+)?$/.test(raw) || raw === 'true' || raw === 'false' || raw.startsWith('[') || raw.startsWith('{')) {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  return raw;
}

export function parseSeconds(value: string, flag: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw new WeftError('USAGE', `${flag} must be a number of seconds, not '${value}'.`);
  return seconds;
}

/** `--budget k=v` values, as `budgetArg` (app/views/run-args.ts) takes them, then checked by it with the flag named. */
export function parseBudget(values: string[]): RunBudgetPayload {
  const fields = parseKeyValues(values, '--budget', parseLoose);
  const checked = budgetArg.safeParse(fields);
  if (!checked.success) {
    const problems = checked.error.issues.map((issue) =>
      issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
    );
    throw new WeftError(
      'USAGE',
      `--budget ${problems.join('; ')}. Use max_cost_usd=5, max_tokens=2000000, max_duration=2h or on_exceeded=pause|fail.`,
    );
  }
  return budgetRequest(checked.data);
}

/** `--priority n`: a whole number from -100 to 100. */
export function parsePriority(value: string): number {
  const priority = Number(value);
  if (!Number.isInteger(priority) || priority < MIN_PRIORITY || priority > MAX_PRIORITY)
    throw new WeftError('USAGE', `--priority must be a whole number from ${MIN_PRIORITY} to ${MAX_PRIORITY}, not '${value}'.`);
  return priority;
}

/**
 * The `--sandbox*` flags as a run's own sandbox, each checked like its `[run.sandbox]` key
 * with the flag named; undefined when no flag was given.
 * @example parseSandbox({ mode: 'os', allowWrite: [], denyRead: [], network: 'registry.npmjs.org' }) // { mode: 'os', network: { allow: ['registry.npmjs.org'] } }
 */
export function parseSandbox(flags: {
  mode?: string;
  allowWrite: string[];
  denyRead: string[];
  network?: string;
  maxProcesses?: string;
}): SandboxSpec | undefined {
  const problems: string[] = [];
  const read = (flag: string, table: Record<string, unknown>): SandboxSpec => {
    const checked = readSandboxSpec(table, flag);
    problems.push(...checked.problems.map((problem) => problem.replace(/'[a-z_.]+' /, '')));
    return checked.spec;
  };
  const network = flags.network?.trim();
  const spec: SandboxSpec = {
    ...(flags.mode === undefined ? {} : read('--sandbox', { mode: flags.mode })),
    ...(flags.allowWrite.length === 0 ? {} : read('--sandbox-allow-write', { allow_write: flags.allowWrite })),
    ...(flags.denyRead.length === 0 ? {} : read('--sandbox-deny-read', { deny_read: flags.denyRead })),
    ...(network === undefined
      ? {}
      : read('--sandbox-network', {
          network:
            network === 'none'
              ? 'none'
              : {
                  allow: network
                    .split(',')
                    .map((host) => host.trim())
                    .filter((host) => host !== ''),
                },
        })),
    ...(flags.maxProcesses === undefined
      ? {}
      : read('--sandbox-max-processes', {
          max_processes: /^\d+$/.test(flags.maxProcesses) ? Number(flags.maxProcesses) : flags.maxProcesses,
        })),
  };
  if (problems.length > 0) throw new WeftError('USAGE', problems.join('; '));
  return Object.keys(spec).length === 0 ? undefined : spec;
}
