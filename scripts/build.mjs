// Bundles the CLI into one ESM file so `weft` starts without resolving hundreds of source modules.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

// Packages bundled into weft's own chunks instead of loaded from node_modules at run time:
// only weft's MCP server surface uses them, and zod's hundred-odd ESM files cost more to
// resolve and load than to read as one chunk — `weft mcp start` must answer `tools/list`
// fast (spec §8). Everything else stays external (native modules, SDKs with their own zod).
const BUNDLED = new Set(['zod', '@modelcontextprotocol/server', '@modelcontextprotocol/core']);
const { dependencies = {} } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = Object.keys(dependencies)
  .filter((name) => !BUNDLED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

// Chunk names carry content hashes: clear the old ones so dist/ holds only this build.
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/surfaces/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  splitting: true,
  // The SDK server's Node shim loads ajv eagerly; weft's loads it on first use (see the file).
  alias: { '@modelcontextprotocol/server/_shims': './src/surfaces/mcp-server/sdk-shims.ts' },
  sourcemap: 'linked',
  logLevel: 'warning',
});
