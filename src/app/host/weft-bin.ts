/**
 * Where the `weft` executable is, so that whatever creates a run (the CLI, the MCP server,
 * a child stage) can start a separate runner process with the same code.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function weftBinPath(): string {
  if (cached) return cached;
  // From dist/ (the bundle) or src/app/ (sources under tsx): walk up to the package root.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth += 1) {
    const candidate = join(dir, 'bin', 'weft.js');
    if (existsSync(candidate)) return (cached = candidate);
    dir = dirname(dir);
  }
  throw new Error('cannot find bin/weft.js above ' + fileURLToPath(import.meta.url));
}
