/**
 * The part of the better-sqlite3 API the SQLite run store uses (`@types/better-sqlite3`
 * is not installed). Only this folder imports better-sqlite3.
 */
declare module 'better-sqlite3' {
  class Database {
    constructor(filename: string, options?: Database.Options);
    readonly open: boolean;
    readonly inTransaction: boolean;
    readonly name: string;
    prepare<Row = unknown>(sql: string): Database.Statement<Row>;
    exec(sql: string): this;
    pragma(source: string, options?: { simple?: boolean }): unknown;
    transaction<F extends (...args: never[]) => unknown>(fn: F): Database.Transaction<F>;
    close(): this;
  }

  namespace Database {
    interface Options {
      readonly?: boolean;
      fileMustExist?: boolean;
      /** Busy timeout in milliseconds (default 5000). */
      timeout?: number;
    }

    interface RunResult {
      changes: number;
      lastInsertRowid: number | bigint;
    }

    interface Statement<Row = unknown> {
      run(...params: unknown[]): RunResult;
      get(...params: unknown[]): Row | undefined;
      all(...params: unknown[]): Row[];
    }

    type TransactionFunction<F extends (...args: never[]) => unknown> = (...args: Parameters<F>) => ReturnType<F>;

    interface Transaction<F extends (...args: never[]) => unknown> extends TransactionFunction<F> {
      deferred: TransactionFunction<F>;
      immediate: TransactionFunction<F>;
      exclusive: TransactionFunction<F>;
    }

    class SqliteError extends Error {
      readonly code: string;
      constructor(message: string, code: string);
    }
  }

  export = Database;
}
