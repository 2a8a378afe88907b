/**
 * ESM loader hooks that give the MCP conformance CLI the `fs.globSync` it imports (added
 * in Node 22) when it runs on Node 20: `fs` / `node:fs` imported from inside the
 * `@modelcontextprotocol/conformance` package resolve to a shim module that re-exports
 * the real `node:fs` plus a `globSync` built on `globby`. Every other importer gets the
 * real `fs`. Registered by `register-node20-globsync.mjs`; node_modules stays untouched.
 */

const SHIM_URL = 'weft-shim:node20-fs';
const CONFORMANCE_DIR = '/node_modules/@modelcontextprotocol/conformance/';

// `export *` skips `default`, and `globSync` is the one export Node 20's fs lacks.
const SHIM_SOURCE = `
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { globbySync } from 'globby';
export * from 'node:fs';

/** fs.globSync(pattern, { cwd, exclude }) of Node 22: paths relative to cwd, files and directories. */
export function globSync(pattern, options = {}) {
  if (options.withFileTypes) throw new Error('globSync shim (Node 20): withFileTypes is not supported');
  const cwd = options.cwd instanceof URL ? fileURLToPath(options.cwd) : (options.cwd ?? process.cwd());
  const paths = globbySync(pattern, {
    cwd,
    onlyFiles: false,
    ...(Array.isArray(options.exclude) ? { ignore: options.exclude } : {}),
  });
  return typeof options.exclude === 'function' ? paths.filter((path) => !options.exclude(path)) : paths;
}

export default { ...fs, globSync };
`;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(CONFORMANCE_DIR)) {
    return { url: SHIM_URL, shortCircuit: true };
  }
  // The shim's own imports resolve from here (weft's node_modules has globby).
  if (context.parentURL === SHIM_URL) return nextResolve(specifier, { ...context, parentURL: import.meta.url });
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (url === SHIM_URL) return { format: 'module', source: SHIM_SOURCE, shortCircuit: true };
  return nextLoad(url, context);
}
