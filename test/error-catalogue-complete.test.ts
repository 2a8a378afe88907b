/**
 * The error catalogue is complete in both directions: every code the source throws or
 * refuses with is in it (a cast or a plain string can slip past the type checker, as the
 * webhook refusals once did), every code in it is used somewhere, and the HTTP API page's
 * status table lists every code under the status the surface really answers with.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/core/error-catalogue.js';
import { httpErrorRow, type HttpErrorCode } from '../src/surfaces/http/error-response.js';

const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
/** The HTTP surface's own codes, which the layers below do not have (`surfaces/http/error-response.ts`). */
const HTTP_SURFACE_CODES = ['INVALID_JSON', 'INVALID_ARGUMENTS', 'UNAUTHORIZED', 'FORBIDDEN_HOST', 'NOT_FOUND', 'TOO_LARGE'] as const;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const sources = sourceFiles(SRC).map((file) => ({ file: relative(ROOT, file), text: readFileSync(file, 'utf8') }));

/** Where a code is named as an error's: `new WeftError('X'`, `WeftError.is(e, 'X')`, a delivery's `refuse('X'`. */
const CODE_SITES = [
  /new WeftError(?:<[^>(]*>)?\(\s*'([A-Z][A-Z0-9_]*)'/g,
  /WeftError\.is(?:<[^>(]*>)?\([^,()]+,\s*'([A-Z][A-Z0-9_]*)'/g,
  /\brefuse\(\s*'([A-Z][A-Z0-9_]*)'/g,
];

function codeSites(): { file: string; code: string }[] {
  return sources.flatMap(({ file, text }) =>
    CODE_SITES.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => ({ file, code: match[1]! }))),
  );
}

describe('the error catalogue', () => {
  it('has every code the source throws, tests for or refuses a webhook with', () => {
    const sites = codeSites();
    // Guards the scan itself: weft throws a few hundred coded errors; a broken pattern finds none.
    expect(sites.length).toBeGreaterThan(300);
    const known = new Set<string>([...ERROR_CODES, ...HTTP_SURFACE_CODES]);
    expect(sites.filter(({ code }) => !known.has(code))).toEqual([]);
    expect(new Set(sites.map(({ code }) => code))).toContain('SIGNATURE_INVALID');
  });

  it('has no code that nothing in the source uses', () => {
    const outsideCatalogue = sources.filter(({ file }) => !/src\/core\/(errors|error-catalogue)\.ts$/.test(file)).map(({ text }) => text);
    const unused = ERROR_CODES.filter((code) => !outsideCatalogue.some((text) => text.includes(`'${code}'`)));
    expect(unused).toEqual([]);
  });

  it("is listed whole in docs/http-api.md's status table, each code under the status the API answers with", () => {
    const page = readFileSync(join(ROOT, 'docs', 'http-api.md'), 'utf8');
    const documented = new Map<string, number>();
    for (const [, status, codes] of page.matchAll(/^\| (\d{3}) \| (.+) \|$/gm)) {
      for (const [, code] of codes!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) documented.set(code!, Number(status));
    }
    const codes: HttpErrorCode[] = [...ERROR_CODES, ...HTTP_SURFACE_CODES];
    expect(Object.fromEntries(codes.map((code) => [code, documented.get(code)]))).toEqual(
      Object.fromEntries(codes.map((code) => [code, httpErrorRow(code).status])),
    );
    expect([...documented.keys()].filter((code) => !codes.includes(code as HttpErrorCode))).toEqual([]);
  });
});
