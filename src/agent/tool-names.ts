/**
 * Tool names as providers accept them: at most 64 characters of `[A-Za-z0-9_-]` (Gemini
 * also wants a letter or `_` first). Unsafe characters become `_`; longer names keep a
 * prefix plus 8 hex characters of a SHA-256 of the original, so they are stable and
 * distinct. The caller keeps the map back to the registry's name.
 */
import { createHash } from 'node:crypto';
import type { ToolDialect } from './model-client.js';

export const MAX_PROVIDER_TOOL_NAME = 64;
const HASH_LENGTH = 8;

function shortened(base: string, original: string, salt = ''): string {
  const hash = createHash('sha256')
    .update(original + salt)
    .digest('hex')
    .slice(0, HASH_LENGTH);
  return `${base.slice(0, MAX_PROVIDER_TOOL_NAME - HASH_LENGTH - 1)}_${hash}`;
}

/**
 * The provider-safe form of `name`, distinct from every name in `taken`.
 *
 * @example providerToolName('mcp__github__create.issue', 'openai', new Set()) // → 'mcp__github__create_issue'
 */
export function providerToolName(name: string, dialect: ToolDialect, taken: ReadonlySet<string>): string {
  let base = name.replace(/[^A-Za-z0-9_-]/g, '_');
  if (base === '') base = 'tool';
  if (dialect === 'gemini' && !/^[A-Za-z_]/.test(base)) base = `_${base}`;
  let candidate = base.length <= MAX_PROVIDER_TOOL_NAME ? base : shortened(base, name);
  for (let attempt = 1; taken.has(candidate); attempt += 1) candidate = shortened(base, name, String(attempt));
  return candidate;
}
