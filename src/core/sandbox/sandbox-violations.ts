/**
 * Reading what the sandbox refused from a process's stderr: "Read-only file system" on a
 * path is a write outside `allow_write`; "Permission denied" on a path under `deny_read`
 * is a hidden read. Only what tools print is seen: a program that swallows the error, or
 * prints it without the path, goes unreported (the refusal itself still holds). Network
 * refusals are reported by the proxy itself, exactly.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import type { SandboxViolation } from './sandbox-provider.js';
import type { SandboxRules } from './sandbox-rules.js';

const READ_ONLY = /read-only file system/i;
const DENIED = /permission denied/i;
/** A path as tools quote it: after `cannot create`, in quotes, or before a colon. */
const PATHS = [/'([^']+)'/g, /"([^"]+)"/g, /(?:^|\s)((?:\/|\.{1,2}\/|~\/)?[\w.@+-]+(?:\/[\w.@+-]*)*):\s/g];
const MAX_VIOLATIONS = 20;

function under(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/** A symlink planted in the workspace is reported as where it points. */
function target(path: string): string {
  try {
    if (lstatSync(path).isSymbolicLink()) {
      const link = readlinkSync(path);
      return isAbsolute(link) ? link : resolve(dirname(path), link);
    }
  } catch {
    // Not there (any more): report the path as printed.
  }
  return path;
}

/** `sh: 1: `, `bash: line 3: `, `cat: `: the program's name in front is not a path it was refused. */
const PROGRAM = /^[^\s:]+:\s(?:line\s)?(?:\d+:\s)?/;

function candidates(line: string, cwd: string): string[] {
  const found: string[] = [];
  const body = line.replace(PROGRAM, '');
  for (const pattern of PATHS) {
    for (const match of body.matchAll(pattern)) {
      const text = match[1]?.trim();
      if (text === undefined || text === '' || /^\d+$/.test(text) || text.includes(' ')) continue;
      found.push(isAbsolute(text) ? resolve(text) : resolve(cwd, text));
    }
  }
  return found;
}

/**
 * @example violationsInStderr("touch: cannot touch '/etc/x': Read-only file system", '/src', rules) // [{ kind: 'write', path: '/etc/x', setting: 'allow_write' }]
 */
export function violationsInStderr(stderr: string, cwd: string, rules: SandboxRules): SandboxViolation[] {
  const seen = new Set<string>();
  const violations: SandboxViolation[] = [];
  for (const line of stderr.split('\n')) {
    if (violations.length >= MAX_VIOLATIONS) break;
    const write = READ_ONLY.test(line);
    if (!write && !DENIED.test(line)) continue;
    for (const printed of candidates(line, cwd)) {
      const path = target(printed);
      const violation: SandboxViolation | undefined = write
        ? rules.allowWrite.some((folder) => under(path, folder)) && path === printed
          ? undefined
          : { kind: 'write', path, setting: 'allow_write' }
        : rules.denyRead.some((hidden) => under(path, hidden))
          ? { kind: 'read', path, setting: 'deny_read' }
          : undefined;
      if (violation === undefined || seen.has(`${violation.kind}:${path}`)) continue;
      seen.add(`${violation.kind}:${path}`);
      violations.push(violation);
      break;
    }
  }
  return violations;
}
