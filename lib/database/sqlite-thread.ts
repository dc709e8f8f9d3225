// SQLite files on a thread of their own: libSQL's driver runs every statement
// synchronously (and a COMMIT waits for an fsync), so on the main thread each
// one would stall every request of the process. One worker thread per process
// owns the real @libsql/client connections; the main thread holds a handle per
// connection and exchanges messages with it. sqlite-connection.ts keeps the
// lock rules (one statement or transaction at a time, a connection that saw a
// lock error is replaced); this module only moves the work.
import { Worker } from "node:worker_threads";
import { LibsqlError, type Config, type InStatement, type ResultSet, type Row, type Value } from "@libsql/client";

/** One connection in the worker: what SqliteConnection needs of a driver. */
export type SqliteHandle = {
  execute(stmt: InStatement): Promise<ResultSet>;
  executeMultiple(sql: string): Promise<void>;
  /**
   * BEGIN IMMEDIATE, the statements, COMMIT, in one message: the write lock is
   * held for the statements alone, not for a round trip per statement. Any
   * failure rolls the whole transaction back before the error is answered.
   */
  transaction(stmts: InStatement[]): Promise<ResultSet[]>;
  close(): void;
  /** The thread that held this connection stopped, and the connection with it: open another. */
  readonly stopped: boolean;
};

/** The work a connection is asked to do; each is answered by a Reply with the same seq. */
type Call =
  | { op: "execute"; id: number; stmt: InStatement }
  | { op: "executeMultiple"; id: number; sql: string }
  | { op: "transaction"; id: number; stmts: InStatement[] };
type Request = { op: "open"; id: number; config: Config } | { op: "close"; id: number } | (Call & { seq: number });

/** A ResultSet as it crosses threads: rows as plain arrays (libSQL's rows keep their indices non-enumerable, which a message drops). */
type WireResult = Pick<ResultSet, "columns" | "columnTypes" | "rowsAffected" | "lastInsertRowid"> & { rows: Value[][] };
type WireError = { name: string; message: string; code?: string; rawCode?: number };
type Reply = { seq: number; ok: true; value: WireResult | WireResult[] | null } | { seq: number; ok: false; error: WireError };

// Plain CommonJS evaluated in the worker (a file beside this one would not
// survive bundling): `require` resolves from the working directory, where
// Next and the tests run, and the native driver is the same file as the main
// thread's (one SQLite library per process, so its file locks agree).
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { createClient } = require("@libsql/client");
const connections = new Map();
const wire = (r) => ({ columns: r.columns, columnTypes: r.columnTypes, rows: r.rows.map((row) => Array.from(row)), rowsAffected: r.rowsAffected, lastInsertRowid: r.lastInsertRowid });
// A message turns a Buffer into a plain Uint8Array: the driver binds Buffers.
const toBuffer = (v) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v);
const stmtOf = (s) => {
  if (typeof s === "string" || !s.args) return s;
  if (Array.isArray(s.args)) return { sql: s.sql, args: s.args.map(toBuffer) };
  const args = {};
  for (const k in s.args) args[k] = toBuffer(s.args[k]);
  return { sql: s.sql, args };
};
async function transaction(db, stmts) {
  await db.execute("BEGIN IMMEDIATE");
  try {
    const results = [];
    for (const s of stmts) results.push(wire(await db.execute(stmtOf(s))));
    await db.execute("COMMIT");
    return results;
  } catch (error) {
    // Never leave the transaction (and the lock) open, even beside a statement a refusal left running.
    await db.execute("ROLLBACK").catch(() => {});
    throw error;
  }
}
parentPort.on("message", async (m) => {
  if (m.op === "open") { try { connections.set(m.id, createClient(m.config)); } catch (error) { connections.set(m.id, error); } return; }
  if (m.op === "close") { const db = connections.get(m.id); connections.delete(m.id); if (db && db.close) db.close(); return; }
  try {
    const db = connections.get(m.id);
    if (!db) throw new Error("The SQLite connection is closed");
    if (!db.execute) throw db;
    let value = null;
    if (m.op === "execute") value = wire(await db.execute(stmtOf(m.stmt)));
    else if (m.op === "executeMultiple") await db.executeMultiple(m.sql);
    else value = await transaction(db, m.stmts);
    parentPort.postMessage({ seq: m.seq, ok: true, value });
  } catch (e) {
    const error = { name: e && e.name || "Error", message: String(e && e.message || e), code: e && e.code, rawCode: e && e.rawCode };
    parentPort.postMessage({ seq: m.seq, ok: false, error });
  }
});
`;

type Pending = { resolve: (value: Reply) => void };

/** The process's SQLite thread: started at the first connection, again if it died. */
class SqliteThread {
  readonly worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #seq = 0;
  alive = true;

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    // Idle, the thread does not keep the process alive; with a statement in flight it does.
    this.worker.unref();
    this.worker.on("message", (reply: Reply) => {
      const pending = this.#pending.get(reply.seq);
      this.#pending.delete(reply.seq);
      if (this.#pending.size === 0) this.worker.unref();
      pending?.resolve(reply);
    });
    const fail = (error: unknown) => {
      this.alive = false;
      const message = `The SQLite thread stopped: ${error instanceof Error ? error.message : String(error)}`;
      for (const [seq, pending] of this.#pending) pending.resolve({ seq, ok: false, error: { name: "Error", message } });
      this.#pending.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(`exit code ${code}`));
  }

  post(message: Request): void {
    this.worker.postMessage(message);
  }

  request(message: Call): Promise<Reply> {
    if (!this.alive) return Promise.resolve({ seq: -1, ok: false, error: { name: "Error", message: "The SQLite thread stopped" } });
    const seq = ++this.#seq;
    if (this.#pending.size === 0) this.worker.ref();
    return new Promise<Reply>((resolve) => {
      this.#pending.set(seq, { resolve });
      this.worker.postMessage({ ...message, seq });
    });
  }
}

let thread: SqliteThread | undefined;
let nextId = 0;

/** Opens a connection on the SQLite thread. */
export function openSqliteHandle(config: Config): SqliteHandle {
  if (!thread?.alive) thread = new SqliteThread();
  const owner = thread;
  const id = ++nextId;
  owner.post({ op: "open", id, config: { url: config.url, authToken: config.authToken, intMode: config.intMode } });
  const call = async <T>(message: Call): Promise<T> => {
    const reply = await owner.request(message);
    if (!reply.ok) throw errorOf(reply.error);
    return reply.value as T;
  };
  return {
    execute: async (stmt) => resultSetOf(await call<WireResult>({ op: "execute", id, stmt })),
    executeMultiple: (sql) => call<void>({ op: "executeMultiple", id, sql }),
    transaction: async (stmts) => (await call<WireResult[]>({ op: "transaction", id, stmts })).map(resultSetOf),
    close: () => {
      if (owner.alive) owner.post({ op: "close", id });
    },
    get stopped() {
      return !owner.alive;
    },
  };
}

/**
 * Ends the SQLite thread as a crash would, answering what was in flight with
 * an error; the next statement starts another (sqlite-connection.ts). For
 * tests of that recovery.
 */
export async function stopSqliteThread(): Promise<void> {
  await thread?.worker.terminate();
}

/** The driver's error as the callers read it: LibsqlError's code and rawCode (lock errors, constraint violations). */
function errorOf({ name, message, code, rawCode }: WireError): Error {
  // The driver's own SqliteError is reported as a LibsqlError too, as @libsql/client maps it.
  if (typeof code !== "string") return Object.assign(new Error(message), { name });
  const error = new LibsqlError(message, code, rawCode);
  error.message = message;
  return error;
}

/** A ResultSet shaped as @libsql/client builds it: each row indexable by position and by column name. */
function resultSetOf({ columns, columnTypes, rows, rowsAffected, lastInsertRowid }: WireResult): ResultSet {
  return {
    columns,
    columnTypes,
    rows: rows.map((values) => rowOf(values, columns)),
    rowsAffected,
    lastInsertRowid,
    toJSON: () => ({ columns, columnTypes, rows, rowsAffected, lastInsertRowid: lastInsertRowid?.toString() }),
  };
}

function rowOf(values: Value[], columns: string[]): Row {
  const row = {} as Row;
  Object.defineProperty(row, "length", { value: values.length });
  values.forEach((value, i) => {
    Object.defineProperty(row, i, { value });
    const column = columns[i]!;
    if (!Object.hasOwn(row, column)) Object.defineProperty(row, column, { value, enumerable: true, configurable: true, writable: true });
  });
  return row;
}
