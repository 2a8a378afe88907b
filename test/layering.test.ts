/**
 * Imports point down the stack only: core → tools → mcp → runs → agent → app → surfaces,
 * and the surfaces never import each other — except the CLI, which launches every other
 * surface (`weft mcp start` loads the MCP server surface on demand). Scans the sources so
 * the rule cannot be switched off by editing the lint config alone.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const LAYERS = ['core', 'tools', 'mcp', 'runs', 'agent', 'app', 'surfaces'] as const;
/** What several surfaces share (Host/Origin and bearer checks, input-issue wording): below them all, importing none. */
const SHARED_SURFACE = 'surfaces/shared';
/** Surface → surface imports that are allowed, each with its reason. */
const SURFACE_EDGES: ReadonlyMap<string, string> = new Map([
  ['surfaces/cli → surfaces/mcp-server', "the CLI is the launcher of every surface: 'weft mcp start' imports the MCP server on demand"],
  ['surfaces/cli → surfaces/http', "the CLI is the launcher of every surface: 'weft serve' imports the HTTP surface on demand"],
  ['surfaces/http → surfaces/mcp-server', "'weft serve' mounts the MCP server at /mcp"],
  ['surfaces/http → surfaces/dashboard', "'weft serve' serves the dashboard's static assets at /"],
  [
    'lib → surfaces/http',
    "weft-runtime/server mounts the HTTP API, the dashboard and /mcp in the application's own server, as 'weft serve' does",
  ],
  ['lib → surfaces/mcp-server', 'weft-runtime/server serves the MCP server on stdio or a transport of the application'],
]);
/**
 * Top-level folders that are surfaces of their own, each with its reason. `lib` is the
 * package's public API (`exports`): facades over the application services, like any surface.
 */
const OWN_SURFACES: ReadonlyMap<string, string> = new Map([
  ['lib', 'the library entry points (package.json exports) are a surface over app, like the CLI'],
]);
const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return Promise.resolve(entry.name.endsWith('.ts') ? [path] : []);
    }),
  );
  return nested.flat();
}

/** `tools`, or `surfaces/cli` for the surfaces, which are separate from each other. */
function layerOf(file: string): { layer: string; rank: number; unit: string } {
  const parts = relative(SRC, file).split(sep);
  const folder = parts[0] ?? '';
  if (OWN_SURFACES.has(folder)) return { layer: 'surfaces', rank: LAYERS.indexOf('surfaces'), unit: folder };
  const rank = LAYERS.indexOf(folder as (typeof LAYERS)[number]);
  return { layer: folder, rank, unit: folder === 'surfaces' ? `surfaces/${parts[1]}` : folder };
}

export function layeringViolations(files: Map<string, string>): string[] {
  const violations: string[] = [];
  for (const [file, text] of files) {
    const from = layerOf(file);
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? '';
      if (!specifier.startsWith('.')) continue;
      const resolved = resolve(dirname(file), specifier);
      const target = layerOf(resolved);
      const where = `${relative(SRC, file)} imports '${specifier}'`;
      if (relative(SRC, resolved).startsWith('..') && !file.endsWith('.test.ts'))
        violations.push(`${where}: only tests import from outside src (test kits live in test/kits)`);
      else if (from.rank < 0) violations.push(`${where}: ${from.layer} is not a known layer (${LAYERS.join(', ')})`);
      else if (target.rank > from.rank) violations.push(`${where}: ${from.layer} may not import from ${target.layer} (higher layer)`);
      else if (target.unit === SHARED_SURFACE && from.layer === 'surfaces' && from.unit !== SHARED_SURFACE) continue;
      else if (from.unit === SHARED_SURFACE && target.layer === 'surfaces' && target.unit !== SHARED_SURFACE)
        violations.push(`${where}: what the surfaces share imports no surface`);
      else if (
        from.layer === 'surfaces' &&
        target.layer === 'surfaces' &&
        from.unit !== target.unit &&
        !SURFACE_EDGES.has(`${from.unit} → ${target.unit}`)
      ) {
        violations.push(`${where}: surfaces do not import each other`);
      }
    }
  }
  return violations;
}

describe('layering', () => {
  it('every import in src points down the stack', async () => {
    const files = new Map<string, string>();
    for (const file of await sourceFiles(SRC)) files.set(file, await readFile(file, 'utf8'));
    expect(files.size).toBeGreaterThan(10);
    expect(layeringViolations(files)).toEqual([]);
  });

  it('flags an import that points up, one between surfaces (only the CLI may launch another surface; lib is a surface), and a test kit imported by code', () => {
    const files = new Map([
      [join(SRC, 'tools/registry.ts'), "import { McpHub } from '../mcp/hub/mcp-hub.js';"],
      [join(SRC, 'core/errors.ts'), "const lazy = await import('../app/weft-app.js');"],
      [join(SRC, 'surfaces/dashboard/index.ts'), "import { route } from '../http/app.js';"],
      [join(SRC, 'mcp/hub/x.ts'), "import type { Tool } from '../../tools/tool.js';"],
      [join(SRC, 'surfaces/cli/commands/mcp-server.ts'), "const server = await import('../../mcp-server/index.js');"],
      [join(SRC, 'surfaces/mcp-server/server.ts'), "import { main } from '../cli/main.js';"],
      [join(SRC, 'runs/engine/worker.ts'), "import { createEngineKit } from '../../../test/kits/engine-kit.js';"],
      [join(SRC, 'runs/engine/worker.test.ts'), "import { createEngineKit } from '../../../test/kits/engine-kit.js';"],
      [join(SRC, 'lib/index.ts'), "import { createWeftApp } from '../app/weft-app.js';"],
      [join(SRC, 'lib/mcp.ts'), "import { main } from '../surfaces/cli/main.js';"],
    ]);
    expect(layeringViolations(files)).toEqual([
      "tools/registry.ts imports '../mcp/hub/mcp-hub.js': tools may not import from mcp (higher layer)",
      "core/errors.ts imports '../app/weft-app.js': core may not import from app (higher layer)",
      "surfaces/dashboard/index.ts imports '../http/app.js': surfaces do not import each other",
      "surfaces/mcp-server/server.ts imports '../cli/main.js': surfaces do not import each other",
      "runs/engine/worker.ts imports '../../../test/kits/engine-kit.js': only tests import from outside src (test kits live in test/kits)",
      "lib/mcp.ts imports '../surfaces/cli/main.js': surfaces do not import each other",
    ]);
  });
});
