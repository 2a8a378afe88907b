// Bundles the CLI into one ESM file so `weft` starts without resolving hundreds of source modules.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// Packages bundled into weft's own chunks instead of loaded from node_modules at run time:
// only weft's MCP server surface uses them, and zod's hundred-odd ESM files cost more to
// resolve and load than to read as one chunk — `weft mcp start` must answer `tools/list`
// fast (spec §8). The OpenTelemetry API and semantic conventions are bundled too: every layer
// that traces imports them, and as one tree-shaken chunk they cost the untraced CLI next to
// nothing (the API keeps its global state on globalThis, so the external SDK, loaded only when
// tracing is on, shares it). Everything else stays external (native modules, SDKs with their own zod).
const BUNDLED = new Set([
  'zod',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/core',
  '@opentelemetry/api',
  '@opentelemetry/semantic-conventions',
]);
const { dependencies = {} } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = Object.keys(dependencies)
  .filter((name) => !BUNDLED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../dist');
/** Chunks of earlier builds older than this are removed; younger ones may still be loaded by a running weft. */
const STALE_AFTER_MS = 10 * 60 * 1000;

/** The library's entry points (package.json `exports`), bundled with the CLI so they share chunks. */
const LIBRARY_ENTRIES = {
  'lib/index': 'src/lib/index.ts',
  'lib/mcp': 'src/lib/mcp.ts',
  'lib/workflow': 'src/lib/workflow.ts',
  'lib/ai-sdk': 'src/lib/ai-sdk.ts',
  'lib/server': 'src/lib/server.ts',
};

const result = await build({
  entryPoints: { cli: 'src/surfaces/cli/main.ts', ...LIBRARY_ENTRIES },
  outdir: DIST,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  splitting: true,
  // The SDK server's Node shim loads ajv eagerly; weft's loads it on first use (see the file).
  alias: { '@modelcontextprotocol/server/_shims': './src/surfaces/mcp-server/fast-path/sdk-shims.ts' },
  sourcemap: 'linked',
  logLevel: 'warning',
  write: false,
});

// The dashboard's static files go beside the chunks, where src/surfaces/dashboard/index.ts looks.
const DASHBOARD = resolve(dirname(fileURLToPath(import.meta.url)), '../src/surfaces/dashboard/assets');
const dashboardFiles = readdirSync(DASHBOARD).map((name) => ({
  path: join(DIST, 'dashboard', name),
  contents: readFileSync(join(DASHBOARD, name)),
}));
const outputs = [...dashboardFiles, ...result.outputFiles];

// Another build may run at the same time (each test run builds) while weft processes of the
// previous one are running: every file is replaced by a rename, chunks before the entry
// that imports them, and a chunk of an earlier build stays until it is surely unused.
mkdirSync(DIST, { recursive: true });
const entries = new Set([join(DIST, 'cli.js'), ...Object.keys(LIBRARY_ENTRIES).map((name) => join(DIST, `${name}.js`))]);
const written = new Set(outputs.map((file) => file.path));
for (const file of [...outputs].sort((a, b) => Number(entries.has(a.path)) - Number(entries.has(b.path)))) {
  const temporary = `${file.path}.${process.pid}.tmp`;
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(temporary, file.contents);
  renameSync(temporary, file.path);
}
// Declarations are written by tsc (scripts/build-types.mjs), not by this build: keep them.
for (const name of readdirSync(DIST, { recursive: true })) {
  const path = join(DIST, String(name));
  if (path.startsWith(join(DIST, 'types'))) continue;
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isFile() && !written.has(path) && Date.now() - stat.mtimeMs > STALE_AFTER_MS) rmSync(path, { force: true });
}
