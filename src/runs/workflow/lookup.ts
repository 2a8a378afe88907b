/**
 * Reads a reference path (`inputs.topic`, `stages.fetch.output.items.0`, `status`) out of a
 * run's context: own properties of plain objects and array indexes only, never anything
 * inherited. A string that holds JSON is parsed when a field of it is asked for, so
 * `output.ok` works for a command that prints `{"ok": true}`.
 */
import { WeftError } from '../../core/errors.js';
import type { WorkflowContext } from './types.js';

/** Keys no expression or template may read. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function rootValue(root: string, context: WorkflowContext): unknown {
  switch (root) {
    case 'inputs':
      return context.inputs;
    case 'stages':
      return context.stages;
    case 'env':
      return context.env;
    case 'run':
      return context.run;
    case 'status':
    case 'exit_code':
    case 'output':
    case 'answer':
      return context.last?.[root];
    default:
      return undefined;
  }
}

function asContainer(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return value;
  }
}

function step(value: unknown, key: string | number): unknown {
  if (typeof key === 'string' && FORBIDDEN_KEYS.has(key)) {
    throw new WeftError('WORKFLOW_INVALID', `Access to '${key}' is not allowed in workflow expressions.`);
  }
  const container = asContainer(value);
  if (Array.isArray(container)) {
    const index = typeof key === 'number' ? key : /^\d+$/.test(key) ? Number(key) : -1;
    return index >= 0 && index < container.length ? (container[index] as unknown) : undefined;
  }
  if (container === null || typeof container !== 'object') return undefined;
  const prototype = Object.getPrototypeOf(container) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const name = String(key);
  return Object.hasOwn(container, name) ? (container as Record<string, unknown>)[name] : undefined;
}

/** The value at `path`, or undefined when any step is missing. */
export function lookupPath(path: readonly (string | number)[], context: WorkflowContext): unknown {
  const [root, ...rest] = path;
  if (typeof root !== 'string' || FORBIDDEN_KEYS.has(root)) {
    throw new WeftError('WORKFLOW_INVALID', `Access to '${String(root)}' is not allowed in workflow expressions.`);
  }
  let value = rootValue(root, context);
  for (const key of rest) {
    if (value === undefined || value === null) return undefined;
    value = step(value, key);
  }
  return value;
}
