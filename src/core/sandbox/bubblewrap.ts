/**
 * The `os` sandbox on Linux: bubblewrap (`bwrap`) around each process, built from the
 * run's rules. What one wrapped process gets:
 *
 * - the whole file system read-only (`--ro-bind / /`), the run's `allow_write` folders
 *   read-write, a private `/tmp` (a folder of this run's, not the host's), `/run` empty
 *   (no Docker, D-Bus or agent sockets), each `deny_read` path masked by an unreadable
 *   mount (even inside a writable folder);
 * - new user, PID, IPC and network namespaces: the host's processes (weft's included, and
 *   their `/proc/<pid>/environ`) are invisible, and when the sandbox's first process ends
 *   the kernel ends every process left in it, daemons that called `setsid` included; no
 *   network but loopback, and with `network.allow` a proxy of weft's reached through `socat`;
 * - a process limit: the PID namespace's own `pid_max` (Linux ≥ 6.14), written before the
 *   command runs by a prelude that then drops every capability (`setpriv`), so the command
 *   cannot raise it; on older kernels `ulimit -u` instead (which root ignores).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';
import { createServer, connect, type Server } from 'node:net';
import { WeftError } from '../errors.js';
import { packageRoot } from '../package-version.js';
import { startSandboxProxy, type SandboxProxy } from './network-proxy.js';
import type {
  PreparedSandbox,
  ProcessSpec,
  SandboxProvider,
  SandboxRequirements,
  SandboxViolation,
  WrapExtras,
} from './sandbox-provider.js';
import type { SandboxRules } from './sandbox-rules.js';
import { violationsInStderr } from './sandbox-violations.js';
import { forwardToSocket, listensInside } from './inner-ports.js';

/** Where the proxy listens inside the sandbox (socat's end). */
export const SANDBOX_PROXY_PORT = 3128;
/** weft's sockets (the proxy, loopback forwards) inside the sandbox. */
const SOCKETS = '/run/weft';
const PROXY_SOCKET = `${SOCKETS}/proxy.sock`;
/** Sockets of servers inside that weft reaches (`socat` inside listens on them): the one folder the sandbox writes in `/run`. */
const INBOUND = '/run/weft-in';
/** Used for the sandbox's user when weft runs as root: a non-root user cannot rewrite `pid_max`. */
const ROOT_STAND_IN = 1000;
const REQUIRED = [
  { binary: 'bwrap', apt: 'bubblewrap' },
  { binary: 'socat', apt: 'socat' },
  { binary: 'setpriv', apt: 'util-linux' },
] as const;

// $1 = pid_max; $2 = 1 when the proxy is wired; $3 = loopback ports forwarded; $4 = inbound ports (servers inside weft reaches). Runs with CAP_SYS_ADMIN in the sandbox's
// user namespace only long enough to set the limit; socat and the command run without any.
const PRELUDE = [
  'max=$1; proxy=$2; ports=$3; inbound=$4; shift 4',
  'drop="setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all --"',
  // Waits until something listens on the port (hex) inside, with shell builtins only: a grep and a sleep per try cost ~70 ms a start.
  'listening() { i=0; while [ $i -lt 5000 ]; do while read -r _ local _ state _; do [ "$state" = 0A ] && [ "${local##*:}" = "$1" ] && return 0; done < /proc/net/tcp; i=$((i+1)); done; return 1; }',
  'echo "$max" > /proc/sys/kernel/pid_max 2>/dev/null || ulimit -u "$max" 2>/dev/null',
  `if [ "$proxy" = 1 ]; then $drop socat TCP-LISTEN:${SANDBOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_SOCKET} 2>/dev/null & fi`,
  `for p in $ports; do $drop socat TCP-LISTEN:$p,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${SOCKETS}/port-$p.sock 2>/dev/null & done`,
  `for p in $inbound; do $drop socat UNIX-LISTEN:${INBOUND}/port-$p.sock,fork,unlink-early TCP:127.0.0.1:$p 2>/dev/null & done`,
  `if [ "$proxy" = 1 ]; then listening ${SANDBOX_PROXY_PORT.toString(16).toUpperCase().padStart(4, '0')}; fi`,
  'for p in $ports; do listening "$(printf %04X "$p")"; done',
  'exec $drop "$@"',
].join('\n');

function onPath(binary: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const folder of (env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    const path = join(folder, binary);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // next folder
    }
  }
  return undefined;
}

/** bwrap, socat and setpriv on PATH, and whether this kernel limits processes per PID namespace. */
export function bubblewrapRequirements(env: Readonly<Record<string, string | undefined>> = process.env): SandboxRequirements {
  if (process.platform !== 'linux') {
    return { ok: false, missing: ['Linux (the os sandbox on macOS, Seatbelt, is not built yet)'], notes: [] };
  }
  const missing = REQUIRED.filter((entry) => onPath(entry.binary, env) === undefined);
  const notes: string[] = [];
  const [major = 0, minor = 0] = (/^(\d+)\.(\d+)/.exec(osRelease()) ?? []).slice(1).map(Number);
  if (major < 6 || (major === 6 && minor < 14))
    notes.push(
      `Linux ${osRelease()} has no per-namespace pid_max (6.14+): the process limit falls back to ulimit -u, which does not bind root`,
    );
  return {
    ok: missing.length === 0,
    missing: missing.map((entry) => entry.binary),
    ...(missing.length === 0 ? {} : { install: `apt-get install ${[...new Set(missing.map((entry) => entry.apt))].join(' ')}` }),
    notes,
  };
}

function osRelease(): string {
  return spawnSync('uname', ['-r'], { encoding: 'utf8' }).stdout?.trim() ?? '';
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/** The bwrap arguments for one process (everything before `--`). Exported for its unit test. */
export function bubblewrapArgs(
  rules: SandboxRules,
  where: { privateTmp: string; deniedFile: string; sockets: string; proxied: boolean; uid: number; gid: number; cwd: string },
  extras: WrapExtras = {},
): string[] {
  const args = [
    '--unshare-user',
    '--uid',
    String(where.uid),
    '--gid',
    String(where.gid),
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
  ];
  args.push(
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    where.privateTmp,
    '/tmp',
    '--perms',
    '0755',
    '--tmpfs',
    '/run',
  );
  args.push('--ro-bind', where.sockets, SOCKETS, '--bind', `${where.sockets}-in`, INBOUND);
  // weft itself may live under /tmp (a clone in CI): what it starts inside (its fixtures, MCP servers run with its
  // node_modules) must still read it, though the host's /tmp is replaced by the run's own.
  if (packageRoot !== undefined && inside(packageRoot, '/tmp')) args.push('--ro-bind', packageRoot, packageRoot);
  args.push('--remount-ro', '/run');
  const writable = [...rules.allowWrite, ...(extras.allowWrite ?? [])].map(real).filter((path): path is string => path !== undefined);
  const denied = rules.denyRead
    .flatMap((path) => [path, real(path)])
    .filter((path): path is string => path !== undefined && existsSync(path));
  // A writable folder inside a hidden one (the run's worktree and a CLI stage's config home in weft's storage) is
  // bound on the hidden folder's tmpfs before that is made read-only, which traverses to it (0111) but lists nothing.
  const nested = (hidden: string) => writable.filter((path) => inside(path, hidden) && path !== hidden);
  for (const path of writable) if (!denied.some((hidden) => nested(hidden).includes(path))) args.push('--bind', path, path);
  for (const path of new Set(denied)) {
    if (!statSync(path).isDirectory()) {
      args.push('--ro-bind', where.deniedFile, path);
      continue;
    }
    const within = nested(path);
    args.push('--perms', within.length > 0 ? '0111' : '0000', '--tmpfs', path);
    for (const inner of within) args.push('--bind', inner, inner);
    args.push('--remount-ro', path);
  }
  args.push('--chdir', where.cwd, '--setenv', 'TMPDIR', '/tmp', '--cap-add', 'CAP_SYS_ADMIN');
  if (where.proxied) {
    const proxy = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'])
      args.push('--setenv', name, proxy);
    args.push('--unsetenv', 'NO_PROXY', '--unsetenv', 'no_proxy');
  }
  return args;
}

class BubblewrapSandbox implements PreparedSandbox {
  readonly rules: SandboxRules;
  readonly #base: string;
  readonly #proxy: SandboxProxy;
  readonly #onViolation: (violation: SandboxViolation) => void;
  readonly #forwards = new Map<number, Server>();
  readonly #exposed = new Map<number, Promise<{ port: number; server: Server }>>();

  constructor(rules: SandboxRules, base: string, proxy: SandboxProxy, onViolation: (violation: SandboxViolation) => void) {
    this.rules = rules;
    this.#onViolation = onViolation;
    this.#base = base;
    this.#proxy = proxy;
  }

  wrap(spec: ProcessSpec, extras: WrapExtras = {}): ProcessSpec {
    const extraHosts = extras.allowHosts ?? [];
    if (extraHosts.length > 0) this.#proxy.allow(extraHosts);
    // The proxy costs socat and a wait at each start: wired only where something may be reached.
    const wired = this.rules.network !== 'none' || extraHosts.length > 0;
    const uid = process.getuid?.() ?? ROOT_STAND_IN;
    const gid = process.getgid?.() ?? ROOT_STAND_IN;
    const where = {
      privateTmp: join(this.#base, 'tmp'),
      deniedFile: join(this.#base, 'denied'),
      sockets: join(this.#base, 'sockets'),
      proxied: wired,
      uid: uid === 0 ? ROOT_STAND_IN : uid,
      gid: uid === 0 ? ROOT_STAND_IN : gid,
      cwd: spec.cwd,
    };
    const args = bubblewrapArgs(this.rules, where, extras);
    const limit = String(Math.max(301, this.rules.maxProcesses + 1));
    const ports = [...new Set(extras.loopbackPorts ?? [])];
    for (const port of ports) this.#forward(port);
    const inbound = [...new Set(extras.inboundPorts ?? [])].join(' ');
    return {
      command: 'bwrap',
      args: [
        ...args,
        '--',
        '/bin/sh',
        '-c',
        PRELUDE,
        'weft-sandbox',
        limit,
        wired ? '1' : '0',
        ports.join(' '),
        inbound,
        spec.command,
        ...spec.args,
      ],
      cwd: spec.cwd,
      env: spec.env,
    };
  }

  /** A Unix socket in the sandbox's socket folder that pipes to the host's 127.0.0.1:port (socat inside listens on the same port). */
  #forward(port: number): void {
    if (this.#forwards.has(port)) return;
    const server = createServer((client) => {
      const upstream = connect({ host: '127.0.0.1', port });
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    server.listen(join(this.#base, 'sockets', `port-${port}.sock`));
    this.#forwards.set(port, server);
  }

  async exposePort(port: number): Promise<number> {
    const known = this.#exposed.get(port);
    if (known !== undefined) return (await known).port;
    const forward = forwardToSocket(join(this.#base, 'sockets-in', `port-${port}.sock`));
    this.#exposed.set(port, forward);
    return (await forward).port;
  }

  listensInside(pid: number, port: number): boolean {
    return listensInside(pid, port);
  }

  noticeViolations(stderr: string, cwd: string): SandboxViolation[] {
    const violations = violationsInStderr(stderr, cwd, this.rules);
    for (const violation of violations) this.#onViolation(violation);
    return violations;
  }

  async dispose(): Promise<void> {
    await this.#proxy.close().catch(() => undefined);
    for (const server of this.#forwards.values()) server.close();
    for (const exposed of this.#exposed.values())
      void exposed.then(
        ({ server }) => server.close(),
        () => undefined,
      );
    await rm(this.#base, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * @example
 * const sandbox = await bubblewrapProvider().prepare(rules, { onViolation });
 * spawn(...Object.values(sandbox.wrap({ command: '/bin/bash', args: ['-c', 'make'], cwd, env })));
 */
export function bubblewrapProvider(env: Readonly<Record<string, string | undefined>> = process.env): SandboxProvider {
  return {
    name: 'bubblewrap',
    requirements: () => bubblewrapRequirements(env),
    async prepare(rules, context) {
      const needs = bubblewrapRequirements(env);
      if (!needs.ok) {
        const fix =
          needs.install === undefined
            ? ''
            : ` Install them: ${needs.install} (as root, e.g. with sudo), or set [run.sandbox] mode = "none".`;
        throw new WeftError(
          'CONFIG_INVALID',
          `[run.sandbox] mode = "os" needs ${needs.missing.join(', ')}, which ${needs.missing.length === 1 ? 'is' : 'are'} not installed.${fix} weft does not run it unsandboxed.`,
          {
            data: { missing: needs.missing, install: needs.install },
          },
        );
      }
      const base = await mkdtemp(join(tmpdir(), 'weft-sandbox-'));
      await mkdir(join(base, 'tmp'), { mode: 0o700 });
      await mkdir(join(base, 'sockets'), { mode: 0o755 });
      await mkdir(join(base, 'sockets-in'), { mode: 0o700 });
      await writeFile(join(base, 'denied'), '', { mode: 0o000 });
      await chmod(join(base, 'denied'), 0o000);
      // Started even with network = "none": a CLI stage's own model endpoint goes through it.
      const allow = rules.network === 'none' ? [] : rules.network.allow;
      const proxy = await startSandboxProxy(join(base, 'sockets', 'proxy.sock'), allow, (refused) =>
        context.onViolation({ kind: 'network', ...refused, setting: 'network.allow' }),
      );
      return new BubblewrapSandbox(rules, base, proxy, context.onViolation);
    },
  };
}
