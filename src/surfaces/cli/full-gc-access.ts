/**
 * The `weft` process's way to a full garbage collection without starting node with
 * `--expose-gc`: the flag is set for a moment, long enough to make a context that is handed
 * `gc`, and unset again (this process's own global never gets `gc`). Done on the first
 * request only, so a command that never reads a huge MCP line never touches V8's flags.
 * Only the CLI entry point installs it: a library user's process keeps its flags as they are.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { setFullGc } from '../../core/full-gc.js';

let reached: (() => void) | undefined;

function gcThroughFlag(): void {
  if (reached === undefined) {
    const exposed = (globalThis as { gc?: unknown }).gc;
    if (typeof exposed === 'function') reached = exposed as () => void;
    else {
      setFlagsFromString('--expose-gc');
      try {
        reached = runInNewContext('gc') as () => void;
      } finally {
        setFlagsFromString('--no-expose-gc');
      }
    }
  }
  reached();
}

/** Lets `fullGc` collect in this process (the `weft` CLI and the runners it starts). */
export function enableFullGc(): void {
  setFullGc(gcThroughFlag);
}
