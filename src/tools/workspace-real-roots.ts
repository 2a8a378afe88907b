/**
 * The realpath of workspace roots, each resolved once for as long as this memo lives: a
 * run's toolbox (its `ToolExecutor`) keeps one, so file tools do not resolve the run's
 * root again on every call (a realpath per call was ~7 % of an engine-only stage's CPU).
 * A root whose realpath fails is not remembered, so the next call tries again. The run's
 * root is fixed for the run; a symlink retargeted meanwhile keeps the tools inside the
 * directory the run started in.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { RealRoots } from './tool.js';

export class WorkspaceRealRoots implements RealRoots {
  readonly #roots = new Map<string, Promise<string>>();

  get(workspaceRoot: string): Promise<string> {
    let real = this.#roots.get(workspaceRoot);
    if (!real) {
      real = fs.realpath(path.resolve(workspaceRoot));
      this.#roots.set(workspaceRoot, real);
      real.catch(() => this.#roots.delete(workspaceRoot));
    }
    return real;
  }
}
