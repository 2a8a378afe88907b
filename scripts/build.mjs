// Bundles the CLI into one ESM file so `weft` starts without resolving hundreds of source modules.
import { build } from 'esbuild';

await build({
  entryPoints: { cli: 'src/surfaces/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  splitting: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});
