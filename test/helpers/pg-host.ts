/**
 * The PostgreSQL "host" of the network-namespace tests (`fixtures/chaos/pg-host.ts`, run in
 * the test net's `pg` namespace): started, its database URL read, told to `stop`, `start`
 * or `kill` its server (resolving once it says it has), and ended (it removes its data).
 */
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestNet } from './netns.js';
import { REPO_ROOT } from './run-cli.js';

export interface PgHost {
  child: ChildProcess;
  /** The database's URL at the namespace's address (what the other hosts use). */
  url: string;
  /** Stops, starts or SIGKILLs (a host dying: no shutdown) the server; resolves once done. */
  command(command: 'stop' | 'start' | 'kill'): Promise<void>;
  /** Ends the host, which stops the server and removes its data; resolves when it has exited. */
  close(): Promise<void>;
}

const ANSWERS = { stop: 'stopped', start: 'started', kill: 'killed' } as const;

export async function startPgHost(net: TestNet): Promise<PgHost> {
  const child = net.spawnIn(
    'pg',
    process.execPath,
    ['--import', 'tsx', resolve(REPO_ROOT, 'test/fixtures/chaos/pg-host.ts'), net.hosts.get('pg')!.address],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolveUrl, reject) => {
    lines.on('line', (line) => line.startsWith('url ') && resolveUrl(line.slice(4)));
    child.once('exit', (code) => reject(new Error(`the PostgreSQL host exited (${code}): ${stderr}`)));
  });
  lines.close();
  return {
    child,
    url,
    command(command) {
      const answers = createInterface({ input: child.stdout! });
      const done = new Promise<void>((resolveDone) => answers.on('line', (line) => line === ANSWERS[command] && resolveDone()));
      child.stdin!.write(`${command}\n`);
      return done.finally(() => answers.close());
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
      child.stdin!.end();
      await exited;
    },
  };
}
