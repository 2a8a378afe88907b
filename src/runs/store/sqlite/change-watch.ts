/**
 * Change notices for the SQLite store (`RunStore.watchChanges`). Runs are executed by
 * other processes, so a change arrives through the database file: a file-system watch on
 * the storage dir wakes a check of `PRAGMA data_version` on a private read-only
 * connection (under a microsecond; it moves on every commit of every other connection,
 * this process's store included), and only a moved version notifies. A slow poll of the
 * same check covers watches that miss events (network file systems, exhausted inotify
 * watches). Everything runs only while someone watches.
 *
 * The store's own writes are told as they commit, naming their runs (`own`). A commit seen
 * through the file names nothing, so it is told as `unknown` — unless the store's own
 * connection's `data_version`, which moves only with other connections' commits, has not
 * moved: then every commit since the last look was the store's own, already told.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ChangeListeners, UNKNOWN_CHANGE, type StoreChange, type StoreChangeListener } from '../store-change.js';

export interface ChangeWatchOptions {
  /** The safety poll: how often the version is read when no file event came (default 1000 ms). */
  pollMs?: number;
  /** Watch the files (default true); tests turn it off to prove the poll alone suffices. */
  watchFiles?: boolean;
  /** `PRAGMA data_version` of the store's own connection (moves only with other connections' commits); without it every commit seen is unknown. */
  ownVersion?: () => number;
}

/**
 * Re-checks after a file event that found no new version. A writer appends its frames to
 * the WAL (the events) and only then publishes the commit in the shared-memory index, which
 * raises no event: a check that ran in between must look again.
 */
const SETTLE_CHECKS_MS = [2, 20, 200] as const;
const DEFAULT_POLL_MS = 1000;

/**
 * @example
 * const changes = new SqliteChangeWatch('/home/me/.weft/weft.db');
 * const stop = changes.add(() => console.log('something was committed'));
 */
export class SqliteChangeWatch {
  readonly #file: string;
  readonly #pollMs: number;
  readonly #watchFiles: boolean;
  readonly #watchers = new ChangeListeners();
  readonly #ownVersion: (() => number) | undefined;
  #ownSeen = Number.NaN;
  #active: Active | undefined;

  constructor(file: string, options: ChangeWatchOptions = {}) {
    this.#file = file;
    this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.#watchFiles = options.watchFiles ?? true;
    this.#ownVersion = options.ownVersion;
  }

  /** True while someone watches (the connection, the file watch and the poll are open). */
  get active(): boolean {
    return this.#active !== undefined;
  }

  add(listener: StoreChangeListener): () => void {
    const stop = this.#watchers.add(listener, () => {
      this.#active?.close();
      this.#active = undefined;
    });
    if (this.#watchers.size > 0 && this.#active === undefined) {
      this.#ownSeen = this.#readOwnVersion();
      this.#active = new Active(this.#file, this.#pollMs, this.#watchFiles, () => this.#notify());
    }
    return stop;
  }

  /** Tells the watchers about the store's own writes that just committed (soon, with the others of this turn). */
  own(change: StoreChange | undefined): void {
    if (change !== undefined) this.#watchers.tellSoon(change);
  }

  close(): void {
    this.#watchers.close();
    this.#active?.close();
    this.#active = undefined;
  }

  /** Commits seen through the file carry no detail: unknown, unless they were all this store's own (told already). */
  #notify(): void {
    const own = this.#readOwnVersion();
    const othersCommitted = Number.isNaN(own) || own !== this.#ownSeen;
    this.#ownSeen = own;
    if (othersCommitted) this.#watchers.tell(UNKNOWN_CHANGE);
  }

  #readOwnVersion(): number {
    try {
      return this.#ownVersion?.() ?? Number.NaN;
    } catch {
      return Number.NaN;
    }
  }
}

/** The open part of a watch: the read-only connection, the file watch, the poll. */
class Active {
  readonly #notify: () => void;
  readonly #version: (() => number) | undefined;
  readonly #close: (() => void)[] = [];
  #last: number;
  #checkQueued = false;
  #settle: NodeJS.Timeout | undefined;

  constructor(file: string, pollMs: number, watchFiles: boolean, notify: () => void) {
    this.#notify = notify;
    let db: Database | undefined;
    try {
      // A short busy timeout: this check must never hold the event loop the way a writer may wait.
      db = new Database(file, { readonly: true, fileMustExist: true, timeout: 50 });
      const statement = db.prepare<{ data_version: number }>('PRAGMA data_version');
      this.#version = () => statement.get()?.data_version ?? Number.NaN;
      this.#close.push(() => db?.close());
    } catch {
      // No private connection (the file vanished, odd permissions): every poll notifies,
      // and the watchers re-read — slower, never wrong.
      db?.close();
      this.#version = undefined;
    }
    this.#last = this.#read();
    const poll = setInterval(() => this.#check(), pollMs).unref();
    this.#close.push(() => clearInterval(poll));
    if (watchFiles) this.#watchFiles(file);
  }

  close(): void {
    clearTimeout(this.#settle);
    for (const close of this.#close.splice(0)) close();
  }

  #watchFiles(file: string): void {
    const names = new Set([basename(file), `${basename(file)}-wal`]);
    let watcher: FSWatcher;
    try {
      // The directory, not the files: the WAL is deleted and re-created when the last
      // connection of any process closes, and a watch on a deleted file goes quiet.
      watcher = watch(dirname(file), { persistent: false }, (_event, name) => {
        if (name === null || names.has(name)) this.#queueCheck(0);
      });
    } catch {
      return; // The poll carries on alone.
    }
    watcher.on('error', () => watcher.close());
    this.#close.push(() => watcher.close());
  }

  /** One check per burst of file events (a commit writes several frames). */
  #queueCheck(settleIndex: number): void {
    if (this.#checkQueued) return;
    this.#checkQueued = true;
    setImmediate(() => {
      this.#checkQueued = false;
      if (this.#check()) return;
      const delay = SETTLE_CHECKS_MS[settleIndex];
      if (delay === undefined) return;
      clearTimeout(this.#settle);
      this.#settle = setTimeout(() => this.#queueCheck(settleIndex + 1), delay).unref();
    });
  }

  /** True when the version moved (and the watchers were told). */
  #check(): boolean {
    if (this.#close.length === 0) return false;
    const now = this.#read();
    if (now === this.#last && this.#version !== undefined) return false;
    this.#last = now;
    clearTimeout(this.#settle);
    this.#notify();
    return true;
  }

  #read(): number {
    try {
      return this.#version?.() ?? 0;
    } catch {
      // A locked or vanished file for a moment: report a change so watchers re-read.
      return Number.NaN;
    }
  }
}
