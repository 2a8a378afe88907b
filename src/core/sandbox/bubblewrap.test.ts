/**
 * What `bubblewrapArgs` gives one process, read the way bwrap applies it: each mount in
 * order over the ones before (a mount over a folder hides what was mounted inside it), so
 * the assertions are about what a path inside the sandbox is (read-only, writable, masked,
 * which host path it shows) rather than about the order of the argument list. Real folders,
 * files and symlinks in a temporary directory; bwrap itself runs in `test/sandbox-run.test.ts`.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrapArgs, SANDBOX_PROXY_PORT } from './bubblewrap.js';
import type { SandboxRules } from './sandbox-rules.js';

type Mount =
  | { kind: 'bind'; source: string; dest: string; readOnly: boolean }
  | { kind: 'tmpfs'; dest: string; readOnly: boolean; perms: string | undefined }
  | { kind: 'dev' | 'proc'; dest: string; readOnly: false };

interface Sandbox {
  /** The namespaces and process options (flags without a path). */
  options: string[];
  uid: string | undefined;
  gid: string | undefined;
  mounts: Mount[];
  chdir: string | undefined;
  env: Record<string, string>;
  unset: string[];
  caps: string[];
}

const FLAGS = new Set(['--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--die-with-parent']);

/** The arguments as bwrap reads them; an option this reader does not know fails the test, so a new one gets an assertion. */
function read(args: readonly string[]): Sandbox {
  const sandbox: Sandbox = { options: [], uid: undefined, gid: undefined, mounts: [], chdir: undefined, env: {}, unset: [], caps: [] };
  let perms: string | undefined;
  const take = (index: number) => {
    const value = args[index];
    if (value === undefined) throw new Error(`${args[index - 1]} lacks its value`);
    return value;
  };
  for (let i = 0; i < args.length; i += 1) {
    const flag = args[i]!;
    if (FLAGS.has(flag)) sandbox.options.push(flag);
    else if (flag === '--uid') sandbox.uid = take(++i);
    else if (flag === '--gid') sandbox.gid = take(++i);
    else if (flag === '--perms') perms = take(++i);
    else if (flag === '--ro-bind' || flag === '--bind') {
      sandbox.mounts.push({ kind: 'bind', source: take(i + 1), dest: take(i + 2), readOnly: flag === '--ro-bind' });
      i += 2;
    } else if (flag === '--tmpfs') {
      sandbox.mounts.push({ kind: 'tmpfs', dest: take(++i), readOnly: false, perms });
      perms = undefined;
    } else if (flag === '--dev' || flag === '--proc')
      sandbox.mounts.push({ kind: flag === '--dev' ? 'dev' : 'proc', dest: take(++i), readOnly: false });
    else if (flag === '--remount-ro') {
      const dest = take(++i);
      const mount = sandbox.mounts.findLast((candidate) => candidate.dest === dest);
      if (mount === undefined || mount.kind === 'dev' || mount.kind === 'proc')
        throw new Error(`--remount-ro ${dest}: nothing mounted there`);
      mount.readOnly = true;
    } else if (flag === '--chdir') sandbox.chdir = take(++i);
    else if (flag === '--setenv') {
      sandbox.env[take(i + 1)] = take(i + 2);
      i += 2;
    } else if (flag === '--unsetenv') sandbox.unset.push(take(++i));
    else if (flag === '--cap-add') sandbox.caps.push(take(++i));
    else throw new Error(`unknown bwrap option ${flag}: teach this test what it means`);
  }
  return sandbox;
}

function within(path: string, folder: string): boolean {
  return folder === '/' || path === folder || path.startsWith(`${folder}/`);
}

/** The mounts still visible after all of them: a later mount over a folder hides the earlier ones inside it. */
function visible(mounts: readonly Mount[]): Mount[] {
  const shown: Mount[] = [];
  for (const mount of mounts) {
    for (let i = shown.length - 1; i >= 0; i -= 1) if (within(shown[i]!.dest, mount.dest)) shown.splice(i, 1);
    shown.push(mount);
  }
  return shown;
}

/** What `path` is inside the sandbox: the deepest visible mount holding it. */
function at(
  sandbox: Sandbox,
  path: string,
): { shows: string; writable: boolean } | { tmpfs: string; perms: string | undefined; writable: boolean } {
  const mount = visible(sandbox.mounts)
    .filter((candidate) => within(path, candidate.dest))
    .sort((a, b) => b.dest.length - a.dest.length)[0];
  if (mount === undefined) throw new Error(`nothing mounted at ${path}`);
  if (mount.kind === 'bind')
    return { shows: join(mount.source, path.slice(mount.dest === '/' ? 0 : mount.dest.length)), writable: !mount.readOnly };
  if (mount.kind === 'tmpfs') return { tmpfs: mount.dest, perms: mount.perms, writable: !mount.readOnly };
  return { tmpfs: `(${mount.kind})`, perms: undefined, writable: true };
}

const base = mkdtempSync(join(tmpdir(), 'weft-bwrap-args-'));
const workspace = join(base, 'workspace');
const linkedWorkspace = join(base, 'workspace-link');
const storage = join(base, 'storage');
const worktree = join(storage, 'worktrees', 'run-1');
const home = join(base, 'home');
const sandboxBase = join(base, 'sandbox');
mkdirSync(join(workspace, 'secrets'), { recursive: true });
writeFileSync(join(workspace, '.env'), 'TOKEN=1\n');
mkdirSync(worktree, { recursive: true });
mkdirSync(join(home, '.ssh'), { recursive: true });
mkdirSync(join(base, 'cache'));
symlinkSync(workspace, linkedWorkspace);
afterAll(() => rmSync(base, { recursive: true, force: true }));

const where = {
  privateTmp: join(sandboxBase, 'tmp'),
  deniedFile: join(sandboxBase, 'denied'),
  sockets: join(sandboxBase, 'sockets'),
  proxied: false,
  uid: 1234,
  gid: 5678,
  cwd: workspace,
};

function rules(overrides: Partial<SandboxRules> = {}): SandboxRules {
  return {
    mode: 'os',
    allowWrite: [linkedWorkspace, worktree],
    denyRead: [join(home, '.ssh'), storage, join(workspace, '.env'), join(workspace, 'secrets'), join(home, '.aws')],
    network: 'none',
    maxProcesses: 1024,
    ...overrides,
  };
}

describe('bubblewrapArgs', () => {
  const sandbox = read(bubblewrapArgs(rules(), where));

  it("isolates the process: its own user (the given ids), PID, network, IPC and host-name namespaces, ended with weft's", () => {
    expect(new Set(sandbox.options)).toEqual(new Set(FLAGS));
    expect([sandbox.uid, sandbox.gid]).toEqual(['1234', '5678']);
    expect(sandbox.caps).toEqual(['CAP_SYS_ADMIN']);
  });

  it('shows the whole host read-only, with /dev and /proc of its own', () => {
    expect(at(sandbox, '/usr/bin/env')).toEqual({ shows: '/usr/bin/env', writable: false });
    expect(at(sandbox, '/etc/passwd')).toEqual({ shows: '/etc/passwd', writable: false });
    expect(at(sandbox, join(homedir(), '.bashrc'))).toEqual({ shows: join(homedir(), '.bashrc'), writable: false });
    expect(at(sandbox, '/proc/1/environ')).toEqual({ tmpfs: '(proc)', perms: undefined, writable: true });
    expect(at(sandbox, '/dev/null')).toEqual({ tmpfs: '(dev)', perms: undefined, writable: true });
  });

  it("writes only in allow_write (by real path: a symlinked workspace is bound where it really is), the run's private /tmp and its inbound-socket folder", () => {
    expect(at(sandbox, join(workspace, 'src/index.ts'))).toEqual({ shows: join(workspace, 'src/index.ts'), writable: true });
    expect(at(sandbox, '/tmp/scratch')).toEqual({ shows: join(where.privateTmp, 'scratch'), writable: true });
    expect(at(sandbox, join(base, 'cache'))).toEqual({
      shows: join(where.privateTmp, join(base, 'cache').slice('/tmp'.length)),
      writable: true,
    });
    const writable = visible(sandbox.mounts)
      .filter((mount) => !mount.readOnly && mount.kind !== 'dev' && mount.kind !== 'proc')
      .map((mount) => (mount.kind === 'bind' ? `${mount.source} -> ${mount.dest}` : `tmpfs ${mount.dest}`));
    expect(writable.sort()).toEqual(
      [
        `${workspace} -> ${workspace}`,
        `${worktree} -> ${worktree}`,
        `${where.privateTmp} -> /tmp`,
        `${where.sockets}-in -> /run/weft-in`,
      ].sort(),
    );
    expect(sandbox.chdir).toBe(workspace);
    expect(sandbox.env.TMPDIR).toBe('/tmp');
  });

  it("replaces /tmp and /run: no host temp files, Docker, D-Bus or agent sockets; weft's sockets read-only", () => {
    expect(at(sandbox, '/tmp/.X11-unix/X0')).toEqual({ shows: join(where.privateTmp, '.X11-unix/X0'), writable: true });
    expect(at(sandbox, '/run/docker.sock')).toEqual({ tmpfs: '/run', perms: '0755', writable: false });
    expect(at(sandbox, '/run/user/1000/bus')).toEqual({ tmpfs: '/run', perms: '0755', writable: false });
    expect(at(sandbox, '/run/weft/proxy.sock')).toEqual({ shows: join(where.sockets, 'proxy.sock'), writable: false });
  });

  it('masks deny_read even inside a writable folder: folders as empty unlistable tmpfs, files as an unreadable file; absent paths cost nothing', () => {
    expect(at(sandbox, join(home, '.ssh/id_ed25519'))).toEqual({ tmpfs: join(home, '.ssh'), perms: '0000', writable: false });
    expect(at(sandbox, join(workspace, 'secrets/key'))).toEqual({ tmpfs: join(workspace, 'secrets'), perms: '0000', writable: false });
    expect(at(sandbox, join(workspace, '.env'))).toEqual({ shows: where.deniedFile, writable: false });
    expect(sandbox.mounts.some((mount) => mount.dest.startsWith(join(home, '.aws')))).toBe(false);
  });

  it("keeps a writable folder inside a hidden one reachable (a run's worktree in weft's storage) and nothing else of it", () => {
    expect(at(sandbox, join(storage, 'weft.db'))).toEqual({ tmpfs: storage, perms: '0111', writable: false });
    expect(at(sandbox, join(storage, 'worktrees'))).toEqual({ tmpfs: storage, perms: '0111', writable: false });
    expect(at(sandbox, join(worktree, 'README.md'))).toEqual({ shows: join(worktree, 'README.md'), writable: true });
  });

  it("adds what a process is given besides the rules (a CLI stage's config home) as writable", () => {
    const extra = join(base, 'cache');
    const withExtra = read(bubblewrapArgs(rules(), where, { allowWrite: [extra] }));
    expect(at(withExtra, join(extra, 'state.json'))).toEqual({ shows: join(extra, 'state.json'), writable: true });
    expect(at(sandbox, join(extra, 'state.json'))).not.toEqual({ shows: join(extra, 'state.json'), writable: true });
  });

  it("has no network but its own loopback; with a proxy wired, every proxy variable names weft's proxy inside and NO_PROXY is dropped", () => {
    expect(sandbox.options).toContain('--unshare-net');
    expect(Object.keys(sandbox.env).filter((name) => /proxy/i.test(name))).toEqual([]);
    expect(sandbox.unset).toEqual([]);

    const proxied = read(bubblewrapArgs(rules({ network: { allow: ['registry.npmjs.org'] } }), { ...where, proxied: true }));
    expect(proxied.options).toContain('--unshare-net');
    const proxy = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
    expect(proxied.env).toEqual({
      TMPDIR: '/tmp',
      HTTP_PROXY: proxy,
      HTTPS_PROXY: proxy,
      ALL_PROXY: proxy,
      http_proxy: proxy,
      https_proxy: proxy,
      all_proxy: proxy,
    });
    expect(proxied.unset.sort()).toEqual(['NO_PROXY', 'no_proxy']);
  });
});
