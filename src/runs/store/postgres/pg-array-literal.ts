/**
 * PostgreSQL array literals for the column arrays of a batch write, built here rather
 * than by `pg`: its per-element escaping (two regular-expression replaces and a
 * concatenation for every element, numbers included) was the largest single cost of
 * sending an append batch. Quoting an element means a backslash before each `"` and `\`,
 * which is what JSON.stringify does, natively, to a string holding neither a control
 * character nor a surrogate (JSON writes those as escapes PostgreSQL would read otherwise);
 * text holding one is quoted by hand.
 */

/** Control characters and surrogates: the text JSON.stringify would not quote the way an array element is quoted. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const JSON_QUOTES_OTHERWISE = /[\u0000-\u001f\ud800-\udfff]/;

function quoted(text: string): string {
  return JSON_QUOTES_OTHERWISE.test(text) ? `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"` : JSON.stringify(text);
}

function literal<T>(values: readonly (T | null | undefined)[], element: (value: T) => string): string {
  let text = '{';
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index];
    text += `${index === 0 ? '' : ','}${value === null || value === undefined ? 'NULL' : element(value)}`;
  }
  return `${text}}`;
}

/** A `text[]` literal of any strings. */
export function textArray(values: readonly (string | null | undefined)[]): string {
  return literal(values, quoted);
}

/** A literal of numbers or booleans (`int[]`, `bigint[]`, `smallint[]`, `boolean[]`). */
export function scalarArray(values: readonly (number | boolean | null | undefined)[]): string {
  return literal(values, String);
}
