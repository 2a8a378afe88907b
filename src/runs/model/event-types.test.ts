import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, type CatalogueEventType, type EventType } from './event-types.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CATALOGUE = join(SRC, 'runs/model/event-types.ts');
/** A quoted string (any quote) that is a whole kebab-case word, e.g. `'stage-started'`. */
const KEBAB_LITERAL = /(['"`])([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\1/g;
const COMMENT = /\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/.*$/gm;

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? sourceFiles(join(dir, entry.name))
        : Promise.resolve(entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [join(dir, entry.name)] : []),
    ),
  );
  return nested.flat();
}

/** Every event type written out in code (comments aside) outside the catalogue, as `file: 'type'`. */
function spelledOutEventTypes(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (file === CATALOGUE) continue;
    for (const match of text.replace(COMMENT, '').matchAll(KEBAB_LITERAL)) {
      if (EVENT_TYPES.has(match[2] ?? '')) found.push(`${relative(SRC, file)}: '${match[2]}'`);
    }
  }
  return found;
}

describe('the event type catalogue', () => {
  it('is the only place in src that spells out an event type', async () => {
    const files = new Map<string, string>();
    for (const file of await sourceFiles(SRC)) files.set(file, await readFile(file, 'utf8'));
    expect(files.has(CATALOGUE)).toBe(true);
    expect(spelledOutEventTypes(files)).toEqual([]);
  });

  it('flags an event type written as a string in code, but not in a comment or as another word', () => {
    const files = new Map([
      [join(SRC, 'surfaces/cli/lines.ts'), "switch (event.type) { case 'stage-started': return 'x'; }"],
      [
        join(SRC, 'runs/engine/node.ts'),
        '/** Writes `tool-call-started`. */\n// then "tool-call-finished"\nemit({ type: "tool-call-finished" });',
      ],
      [join(SRC, 'agent/loop.ts'), "const kind = 'tool-result'; const url = 'https://x'; // 'model-turn-finished'"],
      [CATALOGUE, "export const RUN_EVENT = { runCreated: 'run-created' };"],
    ]);
    expect(spelledOutEventTypes(files)).toEqual(["surfaces/cli/lines.ts: 'stage-started'", "runs/engine/node.ts: 'tool-call-finished'"]);
  });

  it('holds the types every layer writes', () => {
    expect([...EVENT_TYPES]).toEqual(
      expect.arrayContaining([
        'run-created',
        'stage-finished',
        'child-run-created',
        'model-text-streamed',
        'model-request-retried',
        'model-turn-finished',
        'sampling-request-retried',
        'sampling-finished',
        'run-trace-started',
        'question-withdrawn',
        'budget-warning',
        'budget-exceeded',
        'budget-raised',
        'model-call-throttled',
      ]),
    );
    expect(EVENT_TYPES.size).toBe(44);
  });
});

/**
 * Every event type has a payload type and no payload type lacks an event type: checked by
 * tsc (`npm run typecheck`, part of `npm test`), where a mismatch fails to compile — not
 * by a test that would pass at run time whatever the types say.
 */
type SameTypes<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const EVERY_EVENT_TYPE_HAS_A_PAYLOAD: SameTypes<EventType, CatalogueEventType> = true;
