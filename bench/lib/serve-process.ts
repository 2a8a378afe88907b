/**
 * bench/lib: one `weft serve --no-worker` in a child process on an ephemeral port of
 * 127.0.0.1, over a given storage dir and with a given bearer token, for the benches
 * that drive the HTTP API or the dashboard (serve, dashboard-jank).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { listeningUrl } from '../../test/helpers/listening-url.js';

export interface Served {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Resolves with the URL `weft serve` prints once it listens; rejects when it exits first. */
export async function startServe(storageDir: string, bin: string, token: string): Promise<Served> {
  const child = spawn(
    process.execPath,
    [bin, '--storage-dir', storageDir, '--cwd', storageDir, 'serve', '--port', '0', '--no-worker', '--token-env', 'BENCH_TOKEN'],
    {
      env: { ...process.env, BENCH_TOKEN: token },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const { url } = await listeningUrl(child);
  return {
    url,
    child,
    stop: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
