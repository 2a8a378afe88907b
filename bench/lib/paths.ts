/**
 * bench/lib: where things live — the repository root, the `bench/` folder, where results
 * are written (`bench/results/`) and where benchmarks keep build output between runs.
 */
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = resolve(BENCH_DIR, '..');
export const RESULTS_DIR = resolve(BENCH_DIR, 'results');
/**
 * Scratch space for bundles and profiles; inside node_modules so it is never committed,
 * named after the checkout because git worktrees may share one node_modules (two benches
 * in two worktrees must not delete each other's bundles).
 */
export const CACHE_DIR = resolve(REPO_ROOT, 'node_modules/.cache', `weft-bench-${basename(REPO_ROOT)}`);
