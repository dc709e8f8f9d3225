// One SQLite connection for the process, handed to Prisma's libSQL adapter in
// place of @libsql/client's own, so that the app never keeps SQLite's write
// lock past the statement or transaction that took it, even after another
// connection's lock refused a statement (docs/RELIABILITY.md, "The write lock
// the app kept").
//
// Why @libsql/client 0.8 cannot be used as it is: its driver (libsql 0.3)
// does not reset a statement that SQLITE_BUSY refused. SQLite leaves such a
// statement resumable, still counted as a running write, so on that
// connection the next writes are never committed (their implicit transaction
// waits for the refused one to finish, holding the write lock), a COMMIT fails
// ("SQL statements in progress"), and when garbage collection finally
// finalizes the refused statement everything written since is rolled back.
// The rules here: a connection that saw a lock error runs nothing else
// (it is closed and replaced), and every transaction begins IMMEDIATE and
// always ends, with a ROLLBACK if its COMMIT failed.
//
// The connection itself lives on the SQLite thread (sqlite-thread.ts), so
// that statements and commits never stall the main thread's event loop.
import type { Client, Config, InStatement, ResultSet, Transaction } from "@libsql/client";
import { openSqliteHandle, type SqliteHandle } from "./sqlite-thread";

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;

/** SQLITE_BUSY or SQLITE_LOCKED, with any extended code (BUSY_SNAPSHOT, BUSY_RECOVERY…). */
export function isLockError(error: unknown): boolean {
  const code = (error as { rawCode?: unknown } | undefined)?.rawCode;
  return typeof code === "number" && [SQLITE_BUSY, SQLITE_LOCKED].includes(code & 0xff);
}

export class SqliteConnection implements Client {
  readonly protocol = "file";
  closed = false;
  readonly #config: Config;
  #db: SqliteHandle;
  /** The open transaction, if any: other statements wait for it to end (#acquire). */
  #transaction: { poisoned: boolean } | undefined;
  /** Settles when the last holder of the connection releases it. */
  #tail: Promise<void> = Promise.resolve();
  /** `PRAGMA journal_mode = WAL`, once, before the first statement (it cannot change inside a transaction). */
  #wal: Promise<void> | undefined;

  constructor(config: Config) {
    this.#config = config;
    this.#db = openSqliteHandle(config);
  }

  execute(stmt: InStatement): Promise<ResultSet> {
    return this.#exclusive(async () => {
      await this.#ensureWal();
      return this.#run(() => this.#db.execute(stmt));
    });
  }

  async transaction(): Promise<Transaction> {
    // The connection is this transaction's until it ends: Prisma's adapter and
    // the outcome writer (outcome-write-sqlite.ts) share it, each waiting its turn.
    const release = await this.#acquire();
    // IMMEDIATE takes the write lock at BEGIN or fails there, before anything
    // ran: a refused transaction is safe to try again whole, and no statement
    // inside can be refused halfway (DEFERRED would upgrade at the first write).
    try {
      await this.#ensureWal();
      await this.#run(() => this.#db.execute("BEGIN IMMEDIATE"));
    } catch (error) {
      release();
      throw error;
    }
    const state = { poisoned: false, closed: false };
    this.#transaction = state;
    const end = async (sql: "COMMIT" | "ROLLBACK") => {
      if (state.closed) throw new Error(`${sql}: the transaction is already closed`);
      try {
        await this.#run(() => this.#db.execute(sql));
      } catch (error) {
        // Never leave a transaction open: the lock would stay with it. ROLLBACK
        // works even beside a statement left running by a refusal.
        if (sql === "COMMIT") await this.#db.execute("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        state.closed = true;
        this.#transaction = undefined;
        if (state.poisoned) this.#replace();
        release();
      }
    };
    const inside = <T>(work: () => Promise<T>) => {
      if (state.closed) throw new Error("The transaction is closed");
      return this.#run(work);
    };
    return {
      execute: (stmt) => inside(() => this.#db.execute(stmt)),
      batch: async (stmts) => {
        const results: ResultSet[] = [];
        for (const stmt of stmts) results.push(await inside(() => this.#db.execute(stmt)));
        return results;
      },
      executeMultiple: (sql) => inside(() => this.#db.executeMultiple(sql)),
      commit: () => end("COMMIT"),
      rollback: () => end("ROLLBACK"),
      close: () => {
        if (!state.closed) void end("ROLLBACK").catch(() => {});
      },
      get closed() {
        return state.closed;
      },
    };
  }

  /**
   * The statements in one transaction, sent to the SQLite thread whole: the
   * write lock is held for the statements alone, never across a turn of this
   * thread's busy event loop. BEGIN IMMEDIATE and the ROLLBACK of any failure
   * are the thread's (sqlite-thread.ts); a lock error retires the connection
   * as in a transaction.
   */
  batch(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.#exclusive(async () => {
      await this.#ensureWal();
      return this.#run(() => this.#db.transaction(stmts));
    });
  }

  executeMultiple(sql: string): Promise<void> {
    return this.#exclusive(async () => {
      await this.#ensureWal();
      return this.#run(() => this.#db.executeMultiple(sql));
    });
  }

  /** Embedded replicas only; a plain file has nothing to sync. */
  sync(): Promise<void> {
    return Promise.resolve();
  }

  close(): void {
    this.closed = true;
    this.#db.close();
  }

  /** Waits for the connection, then holds it until the returned release is called. */
  #acquire(): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const previous = this.#tail;
    this.#tail = previous.then(() => released);
    return previous.then(() => release);
  }

  async #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.#acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /**
   * WAL lets readers run beside the one writer, and it is a property of the
   * file: set once, before this connection's first statement or transaction
   * (so never from inside one, where it would wait on the transaction itself).
   * Refused by another connection's lock, it fails the statement that needed
   * it, which the caller retries (sqlite.ts), and is tried again then.
   */
  #ensureWal(): Promise<void> {
    return (this.#wal ??= this.#run(() => this.#db.execute("PRAGMA journal_mode = WAL")).then(
      () => undefined,
      (error: unknown) => {
        this.#wal = undefined;
        throw error;
      },
    ));
  }

  /**
   * Runs one statement; a lock error retires the connection (at once, or when
   * its transaction ends), and so does the death of the SQLite thread, which
   * took the connection with it. A statement outside a transaction opens a new
   * connection first if the thread is gone; one inside fails with it, since
   * the transaction died too.
   */
  async #run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#db.stopped && !this.#transaction) this.#replace();
    try {
      return await work();
    } catch (error) {
      if (isLockError(error) || this.#db.stopped) {
        if (this.#transaction) this.#transaction.poisoned = true;
        else this.#replace();
      }
      throw error;
    }
  }

  /**
   * Closes the connection and opens another. The refused statement holds no
   * lock as long as nothing else runs on its connection; closing lets SQLite
   * free that connection once the statement is finalized.
   */
  #replace(): void {
    this.#db.close();
    this.#db = openSqliteHandle(this.#config);
  }
}
