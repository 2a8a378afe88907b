/**
 * The URL a starting `weft serve` prints ("listening on http://…"), read from whichever of
 * the child's stdout and stderr are piped: the one wait every test and bench that starts a
 * server shares. Rejects with what the server printed when it exits first.
 */
import type { ChildProcess } from 'node:child_process';

export interface ListeningServer {
  url: string;
  /** Everything the server printed so far (and keeps printing). */
  output(): string;
}

export function listeningUrl(child: ChildProcess): Promise<ListeningServer> {
  let output = '';
  return new Promise((resolve, reject) => {
    const read = (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+?)\/?(?:\s|$)/.exec(output);
      if (match?.[1]) resolve({ url: match[1], output: () => output });
    };
    child.stdout?.setEncoding('utf8').on('data', read);
    child.stderr?.setEncoding('utf8').on('data', read);
    child.once('exit', (code) => reject(new Error(`weft serve exited with ${code}: ${output}`)));
  });
}
