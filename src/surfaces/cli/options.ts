/**
 * Option parsers shared by commands: repeatable flags and `key=value` pairs.
 */
import { WeftError } from '../../core/errors.js';

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `k=v` pairs; values that read as JSON numbers, booleans, arrays or objects become those. */
export function parseKeyValues(values: string[], flag: string): Record<string, unknown> {
  const pairs: Record<string, unknown> = {};
  for (const value of values) {
    const index = value.indexOf('=');
    if (index <= 0) throw new WeftError('USAGE', `${flag} '${value}' is not key=value; e.g. ${flag} topic=release.`);
    const raw = value.slice(index + 1);
    pairs[value.slice(0, index)] = flag === '--label' ? raw : parseLoose(raw);
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
