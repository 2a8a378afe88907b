/**
 * Real git repositories for tests: a temporary folder per test, repositories made with the
 * system `git` (a clean environment, a fixed identity), and small readers of what git holds.
 * Used by the git layer's tests beside `src/runs/workspace/`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { WeftError } from '../../src/core/errors.js';
import { gitEnvironment } from '../../src/runs/workspace/git.js';

/** Runs git synchronously in `cwd` and returns its stdout (throws with stderr on failure). */
export function gitSync(cwd: string, args: readonly string[], input?: string): string {
  const env = gitEnvironment({
    GIT_AUTHOR_NAME: 'Test User',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test User',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  });
  return execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...args], {
    cwd,
    env,
    encoding: 'utf8',
    input: input ?? '',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** The bytes of a blob (`<commit>:<path>`). */
export function blobBytes(repo: string, spec: string): Buffer {
  return execFileSync('git', ['cat-file', 'blob', spec], { cwd: repo, env: gitEnvironment(), maxBuffer: 256 * 1024 * 1024 });
}

/** A temporary folder (real path) removed by `cleanup`. */
export interface TempDirs {
  make(prefix: string): string;
  cleanup(): void;
}

export function tempDirs(): TempDirs {
  const made: string[] = [];
  return {
    make(prefix) {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), `weft-ws-${prefix}-`)));
      made.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes files (creating folders) under `dir`. */
export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

/** A new repository at `dir` with `files` committed on `main`; returns the commit. */
export function initRepo(dir: string, files: Record<string, string | Buffer> = { 'README.md': 'hello\n' }): string {
  mkdirSync(dir, { recursive: true });
  gitSync(dir, ['init', '--quiet']);
  writeFiles(dir, files);
  return commitAll(dir, 'initial');
}

/** Commits everything in `dir` and returns the commit. */
export function commitAll(dir: string, message: string): string {
  gitSync(dir, ['add', '-A']);
  gitSync(dir, ['commit', '--quiet', '--allow-empty', '-m', message]);
  return gitSync(dir, ['rev-parse', 'HEAD']).trim();
}

/** A bare repository at `dir` (a remote on disk). */
export function initBare(dir: string): string {
  mkdirSync(dir, { recursive: true });
  gitSync(dir, ['init', '--quiet', '--bare']);
  return dir;
}

/** `path → content` of every file in `commit`'s tree. */
export function filesOf(repo: string, commit: string): Map<string, string> {
  const listing = gitSync(repo, ['ls-tree', '-r', '-z', '--name-only', commit])
    .split('\0')
    .filter((name) => name !== '');
  return new Map(listing.map((name) => [name, gitSync(repo, ['show', `${commit}:${name}`])]));
}

/** Every commit reachable from any ref. */
export function reachableCommits(repo: string): Set<string> {
  return new Set(
    gitSync(repo, ['rev-list', '--all'])
      .split('\n')
      .filter((line) => line !== ''),
  );
}

/** The `WeftError` a promise rejects with (fails the test when it resolves or rejects with anything else). */
export async function weftFailure(promise: Promise<unknown>): Promise<WeftError> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof WeftError)) throw new Error(`expected a WeftError, got ${String(error)}`);
  return error;
}
