/** The package version and folder, read once from package.json next to the bundle or the sources. */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

function readPackage(): { version: string; root: string | undefined } {
  // dist/<chunk>.js sits one level below package.json, dist/lib/<entry>.js and src/core/ two.
  for (const candidate of ['../package.json', '../../package.json']) {
    const url = new URL(candidate, import.meta.url);
    try {
      const parsed = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === 'weft-runtime' && parsed.version) return { version: parsed.version, root: dirname(fileURLToPath(url)) };
    } catch {
      // Try the next layout.
    }
  }
  return { version: '0.0.0', root: undefined };
}

const found = readPackage();
export const version = found.version;
/** The folder weft is installed in (undefined when it cannot be told): what weft starts inside a sandbox may need to read it. */
export const packageRoot = found.root;
