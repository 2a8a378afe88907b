/**
 * "Hosts" on one machine for partition tests: a Linux network namespace per host, each
 * joined by a veth pair to a bridge in the root namespace, on a 10.x /24 of the test's own
 * (the root namespace, the client host, is .1). A host is cut off by taking its link down
 * (`ip link set … down`), in both directions, with no RST: its TCP connections hang as on
 * a real partition. Names are unique per test run; `dispose` removes every namespace and
 * link made, and is safe to call after a failure half-way.
 */
import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function ip(...args: string[]): Promise<string> {
  return (await run('ip', args)).stdout;
}

export interface NetHost {
  name: string;
  /** The namespace's name (for `ip netns exec`). */
  netns: string;
  address: string;
  /** The root-namespace end of its veth pair: down = partitioned. */
  link: string;
}

export interface TestNet {
  /** The client host's (root namespace's) address on the test network. */
  rootAddress: string;
  hosts: Map<string, NetHost>;
  /** Spawns a process inside a host's namespaces (network, and its own hostname). */
  spawnIn(host: string, command: string, args: string[], options?: SpawnOptions): ChildProcess;
  partition(host: string): Promise<void>;
  heal(host: string): Promise<void>;
  dispose(): Promise<void>;
}

/** Whether this process may create namespaces (root, with `ip netns` available). */
export async function canCreateNamespaces(): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  try {
    await ip('netns', 'list');
    return true;
  } catch {
    return false;
  }
}

/** A /24 in 10.213–10.250 that no interface of this machine uses yet. */
async function freeSubnet(): Promise<string> {
  const used = await ip('-4', 'addr');
  for (let attempt = 0; attempt < 50; attempt++) {
    const prefix = `10.${213 + (randomBytes(1)[0]! % 38)}.${randomBytes(1)[0]!}`;
    if (!used.includes(`${prefix}.`)) return prefix;
  }
  throw new Error('no free 10.x /24 for the test network');
}

export async function createTestNet(hostNames: readonly string[]): Promise<TestNet> {
  // Interface names are at most 15 characters: a 6-character tag leaves room for a suffix.
  const tag = `wc${randomBytes(2).toString('hex')}`;
  const prefix = await freeSubnet();
  const bridge = `${tag}br`;
  const hosts = new Map<string, NetHost>();
  const made = { bridge: false, namespaces: [] as string[], links: [] as string[] };
  const dispose = async () => {
    for (const netns of made.namespaces) {
      // Whatever still runs in a namespace of this test (a stray postgres after a failure) goes with it.
      const pids = (await ip('netns', 'pids', netns).catch(() => '')).split('\n').filter(Boolean).map(Number);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await ip('netns', 'del', netns).catch(() => undefined);
    }
    for (const link of made.links) await ip('link', 'del', link).catch(() => undefined);
    if (made.bridge) await ip('link', 'del', bridge).catch(() => undefined);
  };
  try {
    await ip('link', 'add', bridge, 'type', 'bridge');
    made.bridge = true;
    await ip('addr', 'add', `${prefix}.1/24`, 'dev', bridge);
    await ip('link', 'set', bridge, 'up');
    for (const [index, name] of hostNames.entries()) {
      const netns = `${tag}-${name}`;
      const link = `${tag}h${index}`;
      const inner = `${tag}n${index}`;
      const address = `${prefix}.${index + 2}`;
      await ip('netns', 'add', netns);
      made.namespaces.push(netns);
      await ip('link', 'add', link, 'type', 'veth', 'peer', 'name', inner);
      made.links.push(link);
      await ip('link', 'set', inner, 'netns', netns);
      await ip('link', 'set', link, 'master', bridge);
      await ip('link', 'set', link, 'up');
      await ip('-n', netns, 'addr', 'add', `${address}/24`, 'dev', inner);
      await ip('-n', netns, 'link', 'set', inner, 'up');
      await ip('-n', netns, 'link', 'set', 'lo', 'up');
      hosts.set(name, { name, netns, address, link });
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  const host = (name: string): NetHost => {
    const found = hosts.get(name);
    if (!found) throw new Error(`no host '${name}' on the test network (hosts: ${[...hosts.keys()].join(', ')})`);
    return found;
  };
  return {
    rootAddress: `${prefix}.1`,
    hosts,
    // A UTS namespace too, so each host has its own hostname: weft tells its own host's processes from others' by it.
    spawnIn: (name, command, args, options = {}) =>
      spawn(
        'ip',
        [
          'netns',
          'exec',
          host(name).netns,
          'unshare',
          '--uts',
          'sh',
          '-c',
          'hostname "$0" && exec "$@"',
          `${tag}-${name}`,
          command,
          ...args,
        ],
        options,
      ),
    partition: async (name) => void (await ip('link', 'set', host(name).link, 'down')),
    heal: async (name) => void (await ip('link', 'set', host(name).link, 'up')),
    dispose,
  };
}
