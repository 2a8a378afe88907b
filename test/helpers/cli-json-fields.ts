/**
 * The `--json` field names docs/cli-json.md promises, read from its tables, and the check
 * that an output holds every one of them (fields marked *optional* are not required).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { REPO_ROOT } from './run-cli.js';

/** Section title → the fields its table lists, optional ones left out. */
export async function documentedFields(): Promise<Map<string, string[]>> {
  const text = await readFile(join(REPO_ROOT, 'docs', 'cli-json.md'), 'utf8');
  const sections = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of text.split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) sections.set(heading[1]!, (current = []));
    const row = /^\| `(\w+)` \| (.*) \|$/.exec(line);
    if (row && !row[2]!.startsWith('*optional*')) current.push(row[1]!);
  }
  return sections;
}

export function keysOf(value: unknown): string[] {
  return Object.keys(value as object).sort();
}

/** Fails when `value` lacks a documented field (or the section lists none, e.g. a renamed heading). */
export function expectFields(value: unknown, fields: string[] | undefined): void {
  expect(fields?.length).toBeGreaterThan(0);
  expect(keysOf(value)).toEqual(expect.arrayContaining(fields!));
}
