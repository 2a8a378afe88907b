/**
 * A run's inputs against its workflow's declared inputs: defaults filled in, required
 * ones present, declared types respected, undeclared ones refused — with messages that
 * name the input and say how to pass it.
 */
import { WeftError } from '../core/errors.js';
import type { JsonObject, JsonValue } from './model/json.js';
import type { InputType, Workflow } from './workflow/index.js';

function fits(value: unknown, type: InputType): boolean {
  switch (type) {
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    default: {
      const unknown: never = type;
      return unknown;
    }
  }
}

/** Coerces `--input k=v` strings to the declared type (`3` → 3, `true` → true); JSON for arrays and objects. */
export function coerceInput(raw: string, type: InputType | undefined): JsonValue {
  switch (type) {
    case 'number':
    case 'integer': {
      const value = Number(raw);
      return raw.trim() !== '' && Number.isFinite(value) ? value : raw;
    }
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    case 'array':
    case 'object':
      try {
        return JSON.parse(raw) as JsonValue;
      } catch {
        return raw;
      }
    default:
      return raw;
  }
}

export function resolveInputs(workflow: Workflow, given: Record<string, unknown>): JsonObject {
  const problems: string[] = [];
  const inputs: JsonObject = {};
  for (const name of Object.keys(given)) {
    if (!workflow.inputs[name]) {
      const declared = Object.keys(workflow.inputs);
      problems.push(
        `input '${name}' is not declared by workflow '${workflow.name}'${declared.length > 0 ? ` (declared: ${declared.join(', ')})` : ' (it declares no inputs)'}`,
      );
    }
  }
  for (const spec of Object.values(workflow.inputs)) {
    const value = given[spec.name] ?? spec.default;
    if (value === undefined) {
      if (spec.required)
        problems.push(
          `input '${spec.name}' is required${spec.description ? ` (${spec.description})` : ''} — pass it with --input ${spec.name}=…`,
        );
      continue;
    }
    if (spec.type && !fits(value, spec.type)) {
      problems.push(
        `input '${spec.name}' must be ${spec.type === 'integer' || spec.type === 'array' || spec.type === 'object' ? 'an' : 'a'} ${spec.type}, got ${JSON.stringify(value).slice(0, 60)}`,
      );
      continue;
    }
    inputs[spec.name] = value as JsonValue;
  }
  if (problems.length > 0) {
    throw new WeftError('RUN_INVALID_PARAMS', `Invalid inputs for ${workflow.file}: ${problems.join('; ')}.`, { data: { problems } });
  }
  return inputs;
}
