/**
 * Builds the CLI bundle once before the tests that spawn `bin/weft.js`, so `npx vitest run`
 * works without a separate build step, and brings the system packages the tests need
 * (`system-packages.ts`: bubblewrap, socat, ripgrep).
 */
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSystemPackages } from './system-packages.js';

export default function setup(): void {
  ensureSystemPackages();
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
}
