/**
 * The dashboard: static HTML, CSS and plain ES modules that `weft serve` hands out at `/`,
 * talking to the HTTP API from the browser. Nothing is fetched from elsewhere at run time.
 *
 * The files live in `assets/` beside this module; the build copies them to `dist/dashboard/`,
 * beside the bundled chunks, so both the sources (tests, tsx) and the package find them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WeftError } from '../../core/errors.js';

export interface DashboardAsset {
  contentType: string;
  body: string | Uint8Array;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Where the files are: beside the sources, or where the build put them beside the bundle. */
const PLACES = ['./assets/', './dashboard/'];

function assetDir(): string {
  for (const place of PLACES) {
    const dir = fileURLToPath(new URL(place, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  throw new WeftError(
    'INTERNAL',
    `The dashboard's files are missing (looked in ${PLACES.join(' and ')} beside ${fileURLToPath(import.meta.url)}). Run 'npm run build' again.`,
  );
}

let assets: ReadonlyMap<string, DashboardAsset> | undefined;

/**
 * Every dashboard file by URL path (`/` is the page), read once.
 *
 * @example dashboardAssets().get('/app.js')?.contentType // 'text/javascript; charset=utf-8'
 */
export function dashboardAssets(): ReadonlyMap<string, DashboardAsset> {
  if (assets) return assets;
  const dir = assetDir();
  const map = new Map<string, DashboardAsset>();
  for (const name of readdirSync(dir).sort()) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType === undefined) continue;
    map.set(name === 'index.html' ? '/' : `/${name}`, { contentType, body: readFileSync(join(dir, name), 'utf8') });
  }
  assets = map;
  return map;
}
