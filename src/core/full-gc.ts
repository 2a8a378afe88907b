/**
 * A full garbage collection on request, for code that has just let go of a huge buffer
 * (the MCP hub's stdio lines of 8 MiB and more, `mcp/hub/line-buffer.ts`). Whether and how
 * it collects is the entry point's choice, never a library's: in a library user's process
 * it collects only when that process was started with `--expose-gc`, and otherwise does
 * nothing. weft's own CLI opts in with `setFullGc` (`surfaces/cli/full-gc-access.ts`).
 */

let collector: (() => void) | undefined;

/**
 * Sets what `fullGc` calls in this process (`undefined`: back to the process's own `gc`, if
 * it was started with `--expose-gc`).
 * @example setFullGc(() => gcReachedSomehow())
 */
export function setFullGc(collect: (() => void) | undefined): void {
  collector = collect;
}

/** Collects garbage now if this process can (see the module header); says whether it did. */
export function fullGc(): boolean {
  const collect = collector ?? exposedGc();
  if (collect === undefined) return false;
  collect();
  return true;
}

function exposedGc(): (() => void) | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? (gc as () => void) : undefined;
}
