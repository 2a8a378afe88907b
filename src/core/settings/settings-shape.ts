/**
 * The settings keys weft knows, with their types, and the checker that turns any mismatch
 * into an error naming the file, the dotted key and the expected type. Tables marked
 * `opaque` belong to another layer, which validates them itself (e.g. `mcp.servers`).
 */
import { describeValue, isTable } from '../config-text/describe-value.js';
import { suggestion } from '../config-text/did-you-mean.js';
import { parseDuration } from '../duration.js';

export type Shape =
  /** `pattern.secret`: the value may hold a password, so a problem never repeats it. */
  | { kind: 'string'; values?: readonly string[]; pattern?: { test: RegExp; means: string; secret?: boolean } }
  | { kind: 'boolean' }
  | { kind: 'integer'; min?: number }
  | { kind: 'duration' }
  | { kind: 'array'; of: Shape }
  | { kind: 'table'; fields: Record<string, Shape> }
  /** A table whose keys are names chosen by the user (aliases, providers), each value of one shape. */
  | { kind: 'map'; of: Shape }
  | { kind: 'opaque-table' };

/** A host name (`*.` allowed in front) or an IP literal; no scheme, port or path. */
const HOST_NAME: Shape = {
  kind: 'string',
  pattern: {
    test: /^(?:(?:\*\.)?[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[?[0-9a-f:.]*:[0-9a-f:.]*\]?)$/i,
    means: 'a host name or IP address such as "wiki.internal", "*.corp.example" or "10.0.0.5" (no scheme, port or path)',
  },
};

/** The external coding CLIs agent stages can run on (`backend = "cli"`); the workflow layer names the same ones. */
export const CLI_NAMES = ['claude', 'codex', 'gemini'] as const;

/** `[cli.<name>]`: where that CLI's binary is, when not on PATH. */
const CLI_TABLE: Shape = { kind: 'table', fields: { path: { kind: 'string' } } };

export const SETTINGS_SHAPE: Shape = {
  kind: 'table',
  fields: {
    tools: {
      kind: 'table',
      fields: {
        shell_timeout: { kind: 'duration' },
        output_limit_bytes: { kind: 'integer', min: 1024 },
        web_fetch: { kind: 'table', fields: { allow_hosts: { kind: 'array', of: HOST_NAME } } },
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
    mcp: { kind: 'table', fields: { servers: { kind: 'opaque-table' } } },
    runs: { kind: 'table', fields: { retention: { kind: 'duration' } } },
    log: { kind: 'table', fields: { level: { kind: 'string', values: ['debug', 'info', 'warn', 'error'] } } },
    store: { kind: 'table', fields: { url: { kind: 'string', pattern: { test: /^postgres(ql)?:\/\/\S+$/i, means: 'a PostgreSQL URL such as "postgres://weft@db.internal:5432/weft"', secret: true } } } },
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
      },
    },
  },
};

function describeShape(shape: Shape): string {
  switch (shape.kind) {
    case 'string':
      if (shape.pattern) return shape.pattern.means;
      return shape.values ? `one of ${shape.values.map((v) => `"${v}"`).join(', ')}` : 'a string';
    case 'boolean':
      return 'true or false';
    case 'integer':
      return shape.min === undefined ? 'an integer' : `an integer ≥ ${shape.min}`;
    case 'duration':
      return 'a duration such as "500ms", "30s" or "2m"';
    case 'array':
      return `an array of ${describeShape(shape.of).replace(/^an? /, '')}s`;
    case 'table':
    case 'map':
    case 'opaque-table':
      return 'a table';
    default: {
      const unreachable: never = shape;
      return String(unreachable);
    }
  }
}

/** Returns one message per problem, each naming the dotted key. */
export function checkShape(value: unknown, shape: Shape, key: string): string[] {
  const wrongType = () => [`key '${key}' must be ${describeShape(shape)}, not ${describeValue(value)}`];
  switch (shape.kind) {
    case 'string':
      if (typeof value === 'string' && shape.pattern && !shape.pattern.test.test(value)) {
        return shape.pattern.secret ? [`key '${key}' must be ${shape.pattern.means} (the value given is not; it is not repeated here as it may hold a password)`] : wrongType();
      }
      if (typeof value !== 'string') return wrongType();
      if (shape.values && !shape.values.includes(value)) return [`${wrongType()[0]!}${suggestion(value, shape.values, '')}`];
      return [];
    case 'boolean':
      return typeof value === 'boolean' ? [] : wrongType();
    case 'integer':
      return Number.isInteger(value) && (shape.min === undefined || (value as number) >= shape.min) ? [] : wrongType();
    case 'duration':
      return (typeof value === 'string' || typeof value === 'number') && parseDuration(value) !== undefined ? [] : wrongType();
    case 'array':
      if (!Array.isArray(value)) return wrongType();
      return value.flatMap((item, index) => checkShape(item, shape.of, `${key}[${index}]`));
    case 'opaque-table':
      return isTable(value) ? [] : wrongType();
    case 'map':
      if (!isTable(value)) return wrongType();
      return Object.entries(value).flatMap(([name, child]) => checkShape(child, shape.of, `${key}.${name}`));
    case 'table': {
      if (!isTable(value)) return wrongType();
      const problems: string[] = [];
      for (const [name, child] of Object.entries(value)) {
        const childKey = key ? `${key}.${name}` : name;
        const childShape = shape.fields[name];
        if (!childShape) {
          const known = Object.keys(shape.fields).join(', ');
          problems.push(`unknown key '${childKey}'${suggestion(name, Object.keys(shape.fields), '')} (known keys${key ? ` in [${key}]` : ''}: ${known})`);
          continue;
        }
        problems.push(...checkShape(child, childShape, childKey));
      }
      return problems;
    }
    default: {
      const unreachable: never = shape;
      return [String(unreachable)];
    }
  }
}
