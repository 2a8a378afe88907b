/** The package version, read once from package.json next to the bundle or the sources. */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  // dist/<chunk>.js sits one level below package.json, dist/lib/<entry>.js and src/core/ two.
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const parsed = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (parsed.name === 'weft-runtime' && parsed.version) return parsed.version;
    } catch {
      // Try the next layout.
    }
  }
  return '0.0.0';
}

export const version = readVersion();
