/**
 * Elicitation defaults (SEP-1034): fills the fields of an `elicitation/create` form that
 * the answer leaves out with the defaults the server's requested schema declares, so an
 * accepted form carries every field that has a default. Pure; no I/O.
 */
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';

export type ElicitationSchema = ElicitRequestFormParams['requestedSchema'];
export type ElicitationContent = NonNullable<ElicitResult['content']>;

/**
 * `content` (the answers given, none by default) plus, for each schema field it omits,
 * that field's declared `default`. Fields without a default stay absent; given answers win.
 */
export function applyElicitationDefaults(schema: ElicitationSchema, content: ElicitationContent = {}): ElicitationContent {
  const filled: ElicitationContent = { ...content };
  for (const [name, property] of Object.entries(schema.properties)) {
    if (filled[name] !== undefined || property.default === undefined) continue;
    filled[name] = Array.isArray(property.default) ? [...property.default] : property.default;
  }
  return filled;
}
