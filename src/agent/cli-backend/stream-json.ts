/**
 * Small readers for the JSON lines CLIs print: a line as an object (or undefined when it
 * is not one), and typed fields that are undefined when absent or of another type, so a
 * parser never trusts a field's type because its name looks right.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../runs/model/json.js';

/** The line as a JSON object; undefined when it does not parse or is not an object. */
export function jsonLine(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? (value as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

export function objectField(value: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

export function stringField(object: JsonObject, name: string): string | undefined {
  const value = object[name];
  return typeof value === 'string' ? value : undefined;
}

export function numberField(object: JsonObject, name: string): number | undefined {
  const value = object[name];
  return typeof value === 'number' ? value : undefined;
}
