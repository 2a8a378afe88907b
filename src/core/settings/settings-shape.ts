/**
 * The settings keys weft knows, with their types, and the checker that turns any mismatch
 * into an error naming the file, the dotted key and the expected type. Tables marked
 * no `fields` belong to another layer, which validates them itself (e.g. `mcp.servers`).
 * Kinds, their checks and their wording are the ones every config file shares
 * (`core/config-text/value-kinds.ts`); this file adds the dotted-key placement.
 */
import { CLI_NAMES } from '../cli-names.js';
import { describeValue } from '../config-text/describe-value.js';
import { suggestion } from '../config-text/did-you-mean.js';
import { mismatches, type ValueKind } from '../config-text/value-kinds.js';
import { LIMIT_TABLE } from './llm-limits.js';

/** Tables without `fields` belong to another layer, which validates them itself (e.g. `mcp.servers`). */
export type Shape = ValueKind;

/** A host name (`*.` allowed in front) or an IP literal; no scheme, port or path. */
const HOST_NAME: Shape = {
  kind: 'string',
  pattern: {
    test: /^(?:(?:\*\.)?[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[?[0-9a-f:.]*:[0-9a-f:.]*\]?)$/i,
    means: 'a host name or IP address such as "wiki.internal", "*.corp.example" or "10.0.0.5" (no scheme, port or path)',
  },
};

/** `[cli.<name>]`: where that CLI's binary is, when not on PATH. */
const CLI_TABLE: Shape = { kind: 'table', fields: { path: { kind: 'string' } } };

const PER_MTOK: Shape = { kind: 'number', min: 0 };

/** `[llm.prices."provider:model"]`: US dollars per million tokens (input and output required, the rest default to them). */
const PRICE_TABLE: Shape = {
  kind: 'table',
  fields: {
    input_per_mtok: PER_MTOK,
    output_per_mtok: PER_MTOK,
    cache_read_per_mtok: PER_MTOK,
    cache_write_per_mtok: PER_MTOK,
    reasoning_per_mtok: PER_MTOK,
  },
};

export const SETTINGS_SHAPE: Shape = {
  kind: 'table',
  fields: {
    tools: {
      kind: 'table',
      fields: {
        shell_timeout: { kind: 'duration' },
        output_limit_bytes: { kind: 'integer', min: 1024 },
        web_fetch: { kind: 'table', fields: { allow_hosts: { kind: 'array', of: HOST_NAME, items: 'host names or IP addresses' } } },
      },
    },
    approval: {
      kind: 'table',
      fields: {
        rules: {
          kind: 'array',
          of: { kind: 'table', fields: { pattern: { kind: 'string' }, action: { kind: 'string', values: ['allow', 'deny', 'ask'] } } },
        },
      },
    },
    mcp: { kind: 'table', fields: { servers: { kind: 'table' }, fast_path: { kind: 'boolean' } } },
    runs: { kind: 'table', fields: { retention: { kind: 'duration' } } },
    workspace: { kind: 'table', fields: { root: { kind: 'string' }, author_name: { kind: 'string' }, author_email: { kind: 'string' } } },
    // `[run.sandbox]` is checked by core/sandbox/sandbox-rules.ts (its `network` is a string or a table),
    // `[run.concurrency]` (a table or an array of tables) by run-concurrency-setting.ts.
    run: { kind: 'table', fields: { sandbox: { kind: 'table' }, concurrency: { kind: 'table' } } },
    // `[schedules.<name>]` is checked by app/services/schedule-settings.ts.
    schedules: { kind: 'table' },
    log: { kind: 'table', fields: { level: { kind: 'string', values: ['debug', 'info', 'warn', 'error'] } } },
    store: {
      kind: 'table',
      fields: {
        url: {
          kind: 'string',
          pattern: {
            test: /^postgres(ql)?:\/\/\S+$/i,
            means: 'a PostgreSQL URL such as "postgres://weft@db.internal:5432/weft"',
            secret: true,
          },
        },
      },
    },
    cli: { kind: 'table', fields: { claude: CLI_TABLE, codex: CLI_TABLE, gemini: CLI_TABLE } },
    llm: {
      kind: 'table',
      fields: {
        backend: { kind: 'string', values: ['weft', 'cli'] },
        cli: { kind: 'string', values: CLI_NAMES },
        provider: { kind: 'string' },
        model: { kind: 'string' },
        base_url: { kind: 'string' },
        api_key_env: { kind: 'string' },
        max_retries: { kind: 'integer', min: 0 },
        stream: { kind: 'boolean' },
        aliases: { kind: 'map', of: { kind: 'string' } },
        providers: {
          kind: 'map',
          of: { kind: 'table', fields: { api: { kind: 'string' }, base_url: { kind: 'string' }, api_key_env: { kind: 'string' } } },
        },
        prices: { kind: 'map', of: PRICE_TABLE },
        limits: { kind: 'map', of: LIMIT_TABLE },
      },
    },
  },
};

function dotted(key: string, at: readonly (string | number)[]): string {
  return at.reduce<string>((path, part) => (typeof part === 'number' ? `${path}[${part}]` : path ? `${path}.${part}` : part), key);
}

/** Returns one message per problem, each naming the dotted key. */
export function checkShape(value: unknown, shape: Shape, key: string): string[] {
  return mismatches(value, shape).map((found) => {
    const at = dotted(key, found.at);
    if (found.known) {
      const table = dotted(key, found.at.slice(0, -1));
      return `unknown key '${at}'${suggestion(String(found.at.at(-1)), found.known, '')} (known keys${table ? ` in [${table}]` : ''}: ${found.known.join(', ')})`;
    }
    if (found.secret)
      return `key '${at}' must be ${found.expected} (the value given is not; it is not repeated here as it may hold a password)`;
    const near = found.choices && typeof found.value === 'string' ? suggestion(found.value, found.choices, '') : '';
    return `key '${at}' must be ${found.expected}, not ${describeValue(found.value)}${near}`;
  });
}
