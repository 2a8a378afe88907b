// Declarations of the library entry points (package.json `exports`): tsc writes them for
// every module the entries reach, then only those the public declarations import are kept,
// so the package ships the types its API names and nothing of the rest.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TYPES = join(ROOT, 'dist', 'types');
export const TYPE_ENTRIES = ['lib/index.d.ts', 'lib/mcp.d.ts', 'lib/workflow.d.ts', 'lib/ai-sdk.d.ts', 'lib/server.d.ts'];
const SPECIFIER = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Declaration files reachable from `entries` through relative imports. */
export function reachableDeclarations(root, entries) {
  const seen = new Set();
  const queue = entries.map((entry) => join(root, entry));
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2];
      if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.d.ts')));
    }
  }
  return seen;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  rmSync(TYPES, { recursive: true, force: true });
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.types.json')], {
    stdio: 'inherit',
  });
  const keep = reachableDeclarations(TYPES, TYPE_ENTRIES);
  for (const name of readdirSync(TYPES, { recursive: true })) {
    const path = join(TYPES, String(name));
    if (path.endsWith('.d.ts') && !keep.has(path)) rmSync(path);
  }
  console.log(`types: ${keep.size} declaration files in dist/types`);
}
