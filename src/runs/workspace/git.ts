/**
 * The one door to the system `git` binary: argument arrays only (never a shell), a clean
 * environment so the caller's `GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE` or hooks cannot
 * redirect weft's commands, no terminal prompts, bounded output, and failures turned into
 * `WeftError`s that quote the tail of git's stderr with credentials in URLs redacted.
 */
import { spawn } from 'node:child_process';
import { WeftError, type WeftErrorCode } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';

/** Options that hold for every weft git command; `-c` so the user's repository config is never written. */
const FIXED_CONFIG = [
  '-c',
  'core.quotepath=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.untrackedCache=true',
  '-c',
  'advice.detachedHead=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
  '-c',
  'commit.gpgSign=false',
] as const;

/** 64 MiB: a diff or listing larger than this is cut (and says so), never buffered without end. */
export const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;
const STDERR_TAIL = 2000;

export interface GitOptions {
  cwd: string;
  /** Extra environment (e.g. `GIT_INDEX_FILE`, author identity). */
  env?: Record<string, string>;
  input?: string | Buffer;
  /** Exit codes that are answers, not failures (e.g. 1 of `merge-base --is-ancestor`). */
  okCodes?: readonly number[];
  maxOutput?: number;
  /** The error code and sentence used when git fails. */
  failure?: { code: WeftErrorCode; what: string; hint: string };
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
  /** True when stdout was cut at `maxOutput`. */
  truncated: boolean;
}

/** `GIT_*` variables that only say how to reach a remote, never which repository to act on. */
const KEPT_GIT_VARIABLES = new Set(['GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_SSL_CAINFO', 'GIT_SSL_CAPATH', 'GIT_ASKPASS']);

/** The caller's environment without the `GIT_*` variables that could redirect git, plus what weft's commands need. */
export function gitEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || (name.startsWith('GIT_') && !KEPT_GIT_VARIABLES.has(name))) continue;
    env[name] = value;
  }
  return { ...env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', ...extra };
}

/** `user:password@` in URLs and registered secrets removed, for anything git says that weft shows. */
export function redactGitText(text: string): string {
  return redactSecrets(text.replace(/([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/\s@]+@/g, '$1***@'));
}

/** The last lines of git's stderr, for an error message. */
export function stderrTail(stderr: string): string {
  const trimmed = stderr.trim();
  const tail = trimmed.length > STDERR_TAIL ? `…${trimmed.slice(-STDERR_TAIL)}` : trimmed;
  return redactGitText(tail);
}

/**
 * Runs `git <args>` and resolves with its output; rejects with a `WeftError` when it exits
 * with a code not in `okCodes` (default: only 0).
 * @example const { stdout } = await git(['rev-parse', 'HEAD'], { cwd: repo });
 */
export function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return startGit(args, options).finish(options.input ?? '');
}

/** A git process started before its input is known: its start-up (a few ms) overlaps the caller's other work. */
export interface StartedGit {
  /** Writes the input, closes stdin and waits for the result (as `git()` would). */
  finish(input: string | Buffer): Promise<GitResult>;
  /** Kills the process; its result is ignored. */
  abort(): void;
}

/**
 * Starts `git <args>` reading its stdin later (`--stdin` commands: `hash-object`,
 * `update-ref`, `diff-tree`).
 * @example const ref = startGit(['update-ref', '--stdin'], { cwd }); await ref.finish(`update ${name} ${id}\n`);
 */
export function startGit(args: readonly string[], options: Omit<GitOptions, 'input'>): StartedGit {
  const maxOutput = options.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const child = spawn('git', [...FIXED_CONFIG, ...args], {
    cwd: options.cwd,
    env: gitEnvironment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let aborted = false;
  const result = new Promise<GitResult>((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let truncated = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      const room = maxOutput - outBytes;
      if (chunk.length > room) {
        out.push(chunk.subarray(0, room));
        outBytes = maxOutput;
        truncated = true;
        child.stdout.destroy();
        child.kill('SIGTERM');
        return;
      }
      out.push(chunk);
      outBytes += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errBytes > 1024 * 1024) return;
      err.push(chunk);
      errBytes += chunk.length;
    });
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      reject(
        new WeftError('WORKSPACE_GIT_FAILED', `Could not start git (${error.message}). Install git and make sure it is on PATH.`, {
          cause: error,
        }),
      );
    });
    child.on('close', (code) => {
      const result: GitResult = {
        code: code ?? -1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        truncated,
      };
      if (truncated || result.code === 0 || (options.okCodes ?? []).includes(result.code)) {
        resolve(result);
        return;
      }
      reject(aborted ? new WeftError('WORKSPACE_GIT_FAILED', `git ${args[0] ?? ''} was stopped.`) : gitFailure(args, options, result));
    });
  });
  return {
    finish(input) {
      child.stdin.end(input);
      return result;
    },
    abort() {
      aborted = true;
      result.catch(() => undefined);
      child.kill('SIGKILL');
      child.stdin.destroy();
    },
  };
}

function gitFailure(args: readonly string[], options: GitOptions, result: GitResult): WeftError {
  const failure = options.failure ?? {
    code: 'WORKSPACE_GIT_FAILED' as const,
    what: `git ${args[0] ?? ''} failed`,
    hint: 'Fix what git names, then retry.',
  };
  const said = stderrTail(result.stderr) || `exit code ${result.code}`;
  return new WeftError(failure.code, `${failure.what} (in ${options.cwd}): ${said}. ${failure.hint}`, {
    data: { command: `git ${redactGitText(args.join(' '))}`, exitCode: result.code, stderr: said },
  });
}

/** The first line of stdout, trimmed (for `rev-parse` and friends). */
export async function gitLine(args: readonly string[], options: GitOptions): Promise<string> {
  const { stdout } = await git(args, options);
  return stdout.split('\n')[0]?.trim() ?? '';
}

/** Whether `ancestor` is `descendant` or one of its ancestors. */
export async function isAncestor(cwd: string, ancestor: string, descendant: string): Promise<boolean> {
  if (ancestor === descendant) return true;
  const { code } = await git(['merge-base', '--is-ancestor', ancestor, descendant], { cwd, okCodes: [1] });
  return code === 0;
}

/** The commit a ref points at, or undefined when it does not exist. */
export async function readRef(cwd: string, ref: string): Promise<string | undefined> {
  const { code, stdout } = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], {
    cwd,
    okCodes: [1, 128],
  });
  return code === 0 ? stdout.trim() : undefined;
}
