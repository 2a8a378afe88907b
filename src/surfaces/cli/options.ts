/**
 * Option parsers shared by commands: repeatable flags and `key=value` pairs.
 */
import { WeftError } from '../../core/errors.js';

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
