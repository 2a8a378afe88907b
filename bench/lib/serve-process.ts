/**
 * bench/lib: one `weft serve --no-worker` in a child process on an ephemeral port of
 * 127.0.0.1, over a given storage dir and with a given bearer token, for the benches
 * that drive the HTTP API or the dashboard (serve, dashboard-jank).
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Served {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Resolves with the URL `weft serve` prints once it listens; rejects when it exits first. */
export async function startServe(storageDir: string, bin: string, token: string): Promise<Served> {
  const child = spawn(process.execPath, [bin, '--storage-dir', storageDir, '--cwd', storageDir, 'serve', '--port', '0', '--no-worker', '--token-env', 'BENCH_TOKEN'], {
    env: { ...process.env, BENCH_TOKEN: token },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+?)\/?(?:\s|$)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`weft serve exited with ${code}: ${output}`)));
  });
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
