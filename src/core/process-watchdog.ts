/**
 * Makes sure no child process group that weft started — a stdio MCP server, a `command`
 * stage, an agent's `shell` call — outlives weft, even when weft is SIGKILLed. A tiny
 * `/bin/sh` process in its own process group holds a pipe from weft and the list of
 * process groups; when the pipe closes (weft exited, however it exited) it sends SIGTERM
 * to every group still listed and SIGKILL to any that is left after the grace period.
 * One watchdog serves the whole weft process; it is started with the first group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from './logger.js';
import { PROCESS_GROUPS, signalGroup } from './process-group.js';

// `+<pgid>` registers a group, `-<pgid>` forgets it; EOF on stdin means weft is gone.
// (dash's kill takes `-<pgid>` after the signal, without `--`.)
const SCRIPT = `
groups=' '
while IFS= read -r line; do
  case "$line" in
    +[0-9]*) groups="$groups\${line#+} " ;;
    -[0-9]*) kept=' '; for g in $groups; do [ "$g" = "\${line#-}" ] || kept="$kept$g "; done; groups=$kept ;;
  esac
done
[ "$groups" = ' ' ] && exit 0
for g in $groups; do kill -TERM -"$g" 2>/dev/null; done
ticks=$(( $1 * 10 ))
while [ "$ticks" -gt 0 ]; do
  alive=''
  for g in $groups; do kill -0 -"$g" 2>/dev/null && alive="$alive $g"; done
  [ -z "$alive" ] && exit 0
  groups=$alive
  sleep 0.1
  ticks=$(( ticks - 1 ))
done
for g in $groups; do kill -KILL -"$g" 2>/dev/null; done
exit 0
`;

export interface GroupWatchdog {
  watch(pgid: number): void;
  unwatch(pgid: number): void;
}

interface Unrefable {
  unref?: () => void;
}

export class ProcessWatchdog implements GroupWatchdog {
  readonly #groups = new Set<number>();
  readonly #graceSeconds: number;
  #child: ChildProcess | undefined;
  #exitHookInstalled = false;
  #logger: Logger | undefined;

  constructor(graceSeconds = 2) {
    this.#graceSeconds = graceSeconds;
  }

  /** Where to report a watchdog that cannot start; the first component to ask sets it. */
  useLogger(logger: Logger): void {
    this.#logger ??= logger;
  }

  watch(pgid: number): void {
    if (!PROCESS_GROUPS) return;
    this.#groups.add(pgid);
    this.#installExitHook();
    if (!this.#child) this.#start();
    else this.#send(`+${pgid}\n`);
  }

  unwatch(pgid: number): void {
    if (!this.#groups.delete(pgid)) return;
    this.#send(`-${pgid}\n`);
  }

  /** The watchdog's pid, for tests and diagnostics. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  #start(): void {
    const child = spawn('/bin/sh', ['-c', SCRIPT, 'weft-watchdog', String(this.#graceSeconds)], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    this.#child = child;
    child.unref();
    (child.stdin as unknown as Unrefable).unref?.();
    child.stdin?.on('error', () => this.#lost(child));
    child.on('error', (error) => {
      this.#logger?.warn(`process watchdog could not start (${error.message}); MCP servers and commands may outlive a killed weft`);
      this.#lost(child);
    });
    child.on('exit', () => this.#lost(child));
    this.#send([...this.#groups].map((pgid) => `+${pgid}\n`).join(''));
  }

  /** A watchdog that died is replaced on the next `watch`, with every group still listed. */
  #lost(child: ChildProcess): void {
    if (this.#child === child) this.#child = undefined;
  }

  #send(text: string): void {
    const stdin = this.#child?.stdin;
    if (text && stdin?.writable) stdin.write(text);
  }

  /** On a normal exit without `close()`, the groups get SIGTERM at once; the watchdog follows up. */
  #installExitHook(): void {
    if (this.#exitHookInstalled) return;
    this.#exitHookInstalled = true;
    process.once('exit', () => {
      for (const pgid of this.#groups) signalGroup(pgid, 'SIGTERM');
    });
  }
}

/** The one watchdog of this weft process. */
export const processWatchdog = new ProcessWatchdog();
