/**
 * `[run.sandbox]`: what a sandboxed run may write, read and reach, as written in settings
 * and workflows (`SandboxSpec`, every field optional), checked with messages that name the
 * field, the value and the fix, and resolved for one run (`SandboxRules`: absolute paths,
 * the defaults added). Layers: settings (user, then project), then the workflow, then the
 * run's own `--sandbox <mode>`; path lists add up, `mode` and `network` are replaced.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { describeValue, isTable } from '../config-text/describe-value.js';
import { suggestion } from '../config-text/did-you-mean.js';

/** `none`: processes run with the user's full power; `os`: inside the OS sandbox. */
export type SandboxMode = 'none' | 'os';
export const SANDBOX_MODES: readonly SandboxMode[] = ['none', 'os'];

/** `network = "none"`, or `{ allow = ["host", "host:port", "*.suffix"] }` reached through weft's proxy. */
export type SandboxNetwork = 'none' | { allow: string[] };

/** One `[run.sandbox]` table as written: only what it says. */
export interface SandboxSpec {
  mode?: SandboxMode;
  allowWrite?: string[];
  denyRead?: string[];
  network?: SandboxNetwork;
  maxProcesses?: number;
}

/** The rules one sandboxed run gets: absolute paths, defaults included. */
export interface SandboxRules {
  mode: 'os';
  /** Writable (read-write binds), besides the private temp dir mounted at /tmp. */
  allowWrite: string[];
  /** Unreadable (masked), even inside `allowWrite`. */
  denyRead: string[];
  network: SandboxNetwork;
  /** Processes and threads the run's sandbox may hold at once. */
  maxProcesses: number;
}

const FIELDS = ['mode', 'allow_write', 'deny_read', 'network', 'max_processes'] as const;
/** The kernel refuses a PID namespace's `pid_max` below 301. */
export const MIN_PROCESSES = 300;
export const DEFAULT_MAX_PROCESSES = 1024;
const HOST = /^(?:\*\.)?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*(?::\d{1,5})?$|^\[[0-9a-fA-F:.]+\](?::\d{1,5})?$/;

/** The user's credential folders and files: never readable from a sandbox (`~` is the user's home). */
export const CREDENTIAL_PATHS = [
  '~/.ssh',
  '~/.aws',
  '~/.config/gcloud',
  '~/.docker',
  '~/.npmrc',
  '~/.netrc',
  '~/.gnupg',
  '~/.kube',
  '~/.git-credentials',
] as const;

/**
 * Checks one `[run.sandbox]` table; `where` names it in messages (`[run.sandbox] in
 * .weft/settings.toml`).
 * @example readSandboxSpec({ mode: 'os', network: { allow: ['registry.npmjs.org'] } }, '[run.sandbox]') // { spec: { mode: 'os', network: … }, problems: [] }
 */
export function readSandboxSpec(value: unknown, where: string): { spec: SandboxSpec; problems: string[] } {
  const problems: string[] = [];
  if (value === undefined) return { spec: {}, problems };
  if (!isTable(value))
    return { spec: {}, problems: [`${where} must be a table, not ${describeValue(value)} — write [run.sandbox] with mode = "os"`] };
  for (const key of Object.keys(value)) {
    if (!(FIELDS as readonly string[]).includes(key))
      problems.push(`${where}: unknown key '${key}'${suggestion(key, FIELDS, '')} (known keys: ${FIELDS.join(', ')})`);
  }
  const spec: SandboxSpec = {};
  const mode = value.mode;
  if (mode !== undefined) {
    if (typeof mode === 'string' && (SANDBOX_MODES as readonly string[]).includes(mode)) spec.mode = mode as SandboxMode;
    else
      problems.push(
        `${where}: 'mode' must be "none" or "os", not ${describeValue(mode)}${typeof mode === 'string' ? suggestion(mode, SANDBOX_MODES, '') : ''}`,
      );
  }
  for (const [key, field] of [
    ['allow_write', 'allowWrite'],
    ['deny_read', 'denyRead'],
  ] as const) {
    const list = value[key];
    if (list === undefined) continue;
    if (Array.isArray(list) && list.every((item) => typeof item === 'string' && item !== '')) spec[field] = list as string[];
    else problems.push(`${where}: '${key}' must be an array of paths such as ["build", "~/.cache/npm"], not ${describeValue(list)}`);
  }
  if (value.network !== undefined) {
    const network = readNetwork(value.network, where, problems);
    if (network !== undefined) spec.network = network;
  }
  const max = value.max_processes;
  if (max !== undefined) {
    if (typeof max === 'number' && Number.isInteger(max) && max >= MIN_PROCESSES && max <= 4_000_000) spec.maxProcesses = max;
    else
      problems.push(
        `${where}: 'max_processes' must be an integer ≥ ${MIN_PROCESSES} (processes and threads at once), not ${describeValue(max)}`,
      );
  }
  return { spec, problems };
}

const STORED_KEYS: Readonly<Record<string, string>> = { allowWrite: 'allow_write', denyRead: 'deny_read', maxProcesses: 'max_processes' };

/**
 * A run's own sandbox as a run record keeps it (`SandboxSpec`, camelCase), checked like a
 * `[run.sandbox]` table; `where` names it in messages (`sandbox`).
 * @example readStoredSandboxSpec({ mode: 'os', allowWrite: ['build'] }, 'sandbox').spec // { mode: 'os', allowWrite: ['build'] }
 */
export function readStoredSandboxSpec(value: unknown, where: string): { spec: SandboxSpec; problems: string[] } {
  if (!isTable(value)) return readSandboxSpec(value, where);
  return readSandboxSpec(Object.fromEntries(Object.entries(value).map(([key, item]) => [STORED_KEYS[key] ?? key, item])), where);
}

function readNetwork(value: unknown, where: string, problems: string[]): SandboxNetwork | undefined {
  const fix = `write network = "none" or network = { allow = ["registry.npmjs.org", "localhost:8080"] }`;
  if (value === 'none') return 'none';
  if (!isTable(value)) {
    problems.push(`${where}: 'network' must be "none" or { allow = [hosts] }, not ${describeValue(value)} — ${fix}`);
    return undefined;
  }
  const extra = Object.keys(value).filter((key) => key !== 'allow');
  if (extra.length > 0) problems.push(`${where}: unknown key 'network.${extra[0]}' (known keys: allow)`);
  const allow = value.allow;
  if (!Array.isArray(allow) || !allow.every((host) => typeof host === 'string')) {
    problems.push(`${where}: 'network.allow' must be an array of host names, not ${describeValue(allow)} — ${fix}`);
    return undefined;
  }
  const bad = allow.find((host) => !HOST.test(host));
  if (bad !== undefined) {
    problems.push(
      `${where}: 'network.allow' entry "${bad}" is not a host name: write "example.com", "*.example.com" or "localhost:8080" (no scheme or path)`,
    );
    return undefined;
  }
  return { allow: allow.map((host) => host.toLowerCase()) };
}

/** Layers specs, first to last: later modes and networks replace, path lists add up. */
export function mergeSandboxSpecs(...specs: readonly (SandboxSpec | undefined)[]): SandboxSpec {
  const merged: SandboxSpec = {};
  for (const spec of specs) {
    if (spec === undefined) continue;
    if (spec.mode !== undefined) merged.mode = spec.mode;
    if (spec.network !== undefined) merged.network = spec.network;
    if (spec.maxProcesses !== undefined) merged.maxProcesses = spec.maxProcesses;
    if (spec.allowWrite) merged.allowWrite = [...(merged.allowWrite ?? []), ...spec.allowWrite];
    if (spec.denyRead) merged.denyRead = [...(merged.denyRead ?? []), ...spec.denyRead];
  }
  return merged;
}

function absolute(path: string, workspace: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(workspace, path);
}

/**
 * The run's rules, or undefined when it is not sandboxed. `workspace` is the directory the
 * run's stages work in; `storageDir` (weft's database, settings, other runs) is never readable.
 * @example resolveSandboxRules({ mode: 'os' }, { workspace: '/src/app', storageDir: '/home/me/.weft' })?.denyRead // ['/home/me/.ssh', …, '/home/me/.weft']
 */
export function resolveSandboxRules(
  spec: SandboxSpec,
  where: { workspace: string; storageDir: string; home?: string },
): SandboxRules | undefined {
  if ((spec.mode ?? 'none') === 'none') return undefined;
  const home = where.home ?? homedir();
  const paths = (list: readonly string[]) => [...new Set(list.map((path) => absolute(path, where.workspace, home)))];
  return {
    mode: 'os',
    allowWrite: paths([where.workspace, ...(spec.allowWrite ?? [])]),
    denyRead: paths([...CREDENTIAL_PATHS, where.storageDir, ...(spec.denyRead ?? [])]),
    network: spec.network ?? 'none',
    maxProcesses: spec.maxProcesses ?? DEFAULT_MAX_PROCESSES,
  };
}

/** One line for `weft run`, `inspect` and the dashboard: what the sandbox allows. */
export function describeSandboxRules(rules: SandboxRules | undefined): string {
  if (rules === undefined) return 'none (processes run with your full permissions)';
  const network = rules.network === 'none' ? 'none' : `only ${rules.network.allow.join(', ')} (through weft's proxy)`;
  return `os — writes: ${rules.allowWrite.join(', ')} and a private /tmp; unreadable: ${rules.denyRead.join(', ')}; network: ${network}; at most ${rules.maxProcesses} processes`;
}
