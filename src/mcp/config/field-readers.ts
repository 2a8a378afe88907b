/**
 * Typed reads of one server entry's fields. Every read that finds the wrong kind of value
 * (`core/config-text/value-kinds.ts`, shared with workflows and settings) records a problem
 * naming the file, the server and the field (as the user spelled it) with an example of
 * the right shape, and returns `undefined`.
 */
import { describeValue } from '../../core/config-text/describe-value.js';
import { BOOLEAN, STRING, STRING_MAP, mismatches, type ValueKind } from '../../core/config-text/value-kinds.js';
import { formatDuration, parseDuration } from '../../core/duration.js';
import { ENV_NAME, SECONDS_ALIASES, exampleValue, type EntryField } from './entry-fields.js';
import { example, fieldProblem, type FileContext, type McpConfigProblem } from './problems.js';

const PORT: ValueKind = { kind: 'integer', min: 1, max: 65_535, means: 'an integer port between 1 and 65535' };

export interface RawField {
  /** The key as written in the file (`serverUrl`, `url`, …). */
  key: string;
  value: unknown;
}

export class EntryFieldReader {
  readonly problems: McpConfigProblem[] = [];

  constructor(
    readonly ctx: FileContext,
    readonly server: string,
    readonly fields: Map<EntryField, RawField>,
  ) {}

  has(field: EntryField): boolean {
    return this.fields.has(field);
  }

  key(field: EntryField): string {
    return this.fields.get(field)?.key ?? field;
  }

  error(field: string, text: string, fix: string): void {
    this.problems.push(fieldProblem(this.ctx, this.server, field, text, fix));
  }

  wrongType(field: EntryField, expected: string, value: unknown, shownKey = this.key(field)): void {
    const sample = example(this.ctx.format, shownKey, exampleValue(field, this.ctx.format));
    this.error(shownKey, `must be ${expected}, not ${describeValue(value, this.ctx.format)}`, `e.g. ${sample}`);
  }

  /** The field's value when it is of `kind`; else a problem per wrong place, each with its fix. */
  #read<T>(field: EntryField, kind: ValueKind): T | undefined {
    const raw = this.fields.get(field);
    if (!raw) return undefined;
    const found = mismatches(raw.value, kind, this.ctx.format);
    for (const wrong of found) {
      if (wrong.at.length === 0) {
        this.wrongType(field, wrong.expected, raw.value);
        continue;
      }
      const [place] = wrong.at;
      const shown = typeof wrong.value === 'object' ? '"…"' : JSON.stringify(String(wrong.value));
      const fix =
        typeof place === 'number' ? shown : this.ctx.format === 'json' ? `${JSON.stringify(place)}: ${shown}` : `${place} = ${shown}`;
      const at = typeof place === 'number' ? `${raw.key}[${place}]` : `${raw.key}.${place}`;
      this.error(at, `must be ${wrong.expected}, not ${describeValue(wrong.value, this.ctx.format)}`, `quote it: ${fix}`);
    }
    return found.length === 0 ? (raw.value as T) : undefined;
  }

  string(field: EntryField): string | undefined {
    return this.#read<string>(field, STRING);
  }

  boolean(field: EntryField): boolean | undefined {
    return this.#read<boolean>(field, BOOLEAN);
  }

  /** An array of strings; `what` names the items in messages (e.g. "tool names"). */
  stringArray(field: EntryField, what = 'strings'): string[] | undefined {
    return this.#read<string[]>(field, { kind: 'array', of: STRING, items: what });
  }

  /** A table/object whose values are strings (`env`, `headers`). */
  stringMap(field: EntryField): Record<string, string> | undefined {
    return this.#read<Record<string, string>>(field, STRING_MAP);
  }

  /** Names of environment variables (`env_vars`), each checked. */
  variableNames(field: EntryField): string[] | undefined {
    const names = this.stringArray(field, 'variable names');
    if (!names) return undefined;
    const key = this.key(field);
    let ok = true;
    names.forEach((name, index) => {
      if (ENV_NAME.test(name)) return;
      ok = false;
      this.error(
        `${key}[${index}]`,
        `is not a variable name: ${JSON.stringify(name)}`,
        `use letters, digits and '_', not starting with a digit (e.g. "GITHUB_TOKEN")`,
      );
    });
    return ok ? names : undefined;
  }

  /** A duration (`"500ms"`, `"10s"`, `"2m"`, or a number of milliseconds) greater than zero. */
  duration(field: EntryField): number | undefined {
    const raw = this.fields.get(field);
    if (!raw) return undefined;
    const sample = example(this.ctx.format, raw.key, exampleValue(field, this.ctx.format));
    const inSeconds = Object.hasOwn(SECONDS_ALIASES, raw.key) && typeof raw.value === 'number';
    const ms = inSeconds
      ? parseDuration((raw.value as number) * 1000)
      : typeof raw.value === 'string' || typeof raw.value === 'number'
        ? parseDuration(raw.value)
        : undefined;
    if (ms === undefined) {
      const shown = typeof raw.value === 'string' ? JSON.stringify(raw.value) : describeValue(raw.value, this.ctx.format);
      this.error(raw.key, `is not a duration: ${shown}`, `use a number with a unit ("500ms", "10s", "2m", "1h"), e.g. ${sample}`);
      return undefined;
    }
    if (ms <= 0) {
      this.error(raw.key, `must be greater than zero`, `e.g. ${sample}`);
      return undefined;
    }
    return ms;
  }

  /** A TCP port number. */
  port(field: EntryField): number | undefined {
    return this.#read<number>(field, PORT);
  }

  /** `max_tool_timeout` must not be shorter than `tool_timeout`. */
  checkMaxToolTimeout(toolMs: number, maxMs: number): boolean {
    if (maxMs >= toolMs) return true;
    const key = this.key('max_tool_timeout');
    this.error(
      key,
      `(${formatDuration(maxMs)}) is shorter than tool_timeout (${formatDuration(toolMs)})`,
      `raise it, or remove it to use the default of 10 × tool_timeout`,
    );
    return false;
  }
}
