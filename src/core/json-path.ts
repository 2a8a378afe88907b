/**
 * A tiny reader for the JSONPath subset a webhook's input map needs: `$`, `.name`,
 * `['name']` and `[index]` steps (`$.pull_request.head.ref`, `$.commits[0].id`). No filters,
 * no wildcards, no evaluation: a path is parsed into steps once and walked over plain data,
 * so a hostile body cannot make it do anything but read.
 */
import { WeftError } from './errors.js';

export type PathStep = string | number;

const STEP = /^(?:\.([A-Za-z_$][\w$-]*)|\[(\d{1,9})\]|\['([^'\\]*)'\]|\["([^"\\]*)"\])/;

/** Parses `$.a.b[0]` into steps; a path that is not of the subset throws TRIGGER_INVALID naming it. */
export function parseJsonPath(path: string): PathStep[] {
  if (!path.startsWith('$')) throw invalid(path, "must start with '$'");
  const steps: PathStep[] = [];
  let rest = path.slice(1);
  while (rest.length > 0) {
    const match = STEP.exec(rest);
    if (match === null) throw invalid(path, `cannot read '${rest.slice(0, 40)}'`);
    steps.push(match[2] !== undefined ? Number(match[2]) : (match[1] ?? match[3] ?? match[4])!);
    rest = rest.slice(match[0].length);
  }
  return steps;
}

/** The value at `steps` in `value`, or undefined when a step is missing; own properties only. */
export function readJsonPath(value: unknown, steps: readonly PathStep[]): unknown {
  let at: unknown = value;
  for (const step of steps) {
    if (typeof step === 'number') {
      if (!Array.isArray(at) || step >= at.length) return undefined;
      at = at[step];
    } else {
      if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.prototype.hasOwnProperty.call(at, step)) return undefined;
      at = (at as Record<string, unknown>)[step];
    }
  }
  return at;
}

function invalid(path: string, why: string): WeftError {
  return new WeftError('TRIGGER_INVALID', `Input map path '${path.slice(0, 80)}' ${why}; use $.field.sub, $.list[0] or $['odd key'].`, {
    data: { field: 'input_map', value: path.slice(0, 80) },
  });
}
