// A PostgreSQL server of our own from the system's binaries (Debian's
// postgresql package, Homebrew, Postgres.app, or PG_BIN): `npm run dev:postgres`
// keeps one under data/postgres, the tests start a throwaway one in a temp
// directory. The server is a child of this process and stops with it.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

export type LocalPostgres = { url: (database: string) => string; port: number; stop(): Promise<void> };

const SEARCH = [
  "/usr/lib/postgresql", // Debian, Ubuntu: /usr/lib/postgresql/<major>/bin
  "/opt/homebrew/opt", // Homebrew (Apple silicon): postgresql@<major>/bin
  "/usr/local/opt", // Homebrew (Intel)
  "/Applications/Postgres.app/Contents/Versions",
];

/** The folder holding initdb and postgres, or undefined when none is installed. */
export function findPostgresBin(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) candidates.push(dir);
  for (const root of SEARCH) {
    if (!fs.existsSync(root)) continue;
    const versions = fs
      .readdirSync(root)
      .filter((name) => /^(postgresql(@\d+)?|\d+(\.\d+)?|latest)$/.test(name))
      .sort((a, b) => majorOf(b) - majorOf(a));
    for (const version of versions) candidates.push(path.join(root, version, "bin"));
  }
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "postgres")));
  // /usr/local/bin/initdb may be a link into the folder that also has createdb.
  return found && path.dirname(fs.realpathSync(path.join(found, "initdb")));
}

const majorOf = (name: string) => Number(name.match(/\d+/)?.[0] ?? 0);

export const POSTGRES_MISSING = `No PostgreSQL server binaries (initdb, postgres) were found.
Install PostgreSQL, then run this again:
  Debian/Ubuntu: sudo apt-get install -y postgresql
  macOS:         brew install postgresql@17   (or Postgres.app)
  Windows:       use WSL, or run PostgreSQL in Docker and set DATABASE_URL
Or set PG_BIN to the folder holding initdb and postgres.`;

/**
 * Starts PostgreSQL on 127.0.0.1:port over dataDir (initialised on first use,
 * trust authentication for user "postgres", reachable only from loopback).
 * `throwaway` turns durability off (fsync and friends): for tests only.
 */
export async function startLocalPostgres({
  dataDir,
  port,
  throwaway = false,
  log,
}: {
  dataDir: string;
  port: number;
  throwaway?: boolean;
  log?: (line: string) => void;
}): Promise<LocalPostgres> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(POSTGRES_MISSING);
  await stopLeftover(dataDir, { wipe: throwaway });
  // PostgreSQL refuses to run as root: as root, run it as the "postgres" user.
  const user = process.getuid?.() === 0 ? systemUser("postgres") : undefined;
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (user) {
    fs.chownSync(dataDir, user.uid, user.gid);
    // The server's user must be able to reach its folder (mkdtemp makes 0700 folders).
    const parent = path.dirname(dataDir);
    fs.chmodSync(parent, fs.statSync(parent).mode | 0o011);
  }

  if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
    const initArgs = ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-instructions", ...(throwaway ? ["--no-sync"] : [])];
    execFileSync(path.join(bin, "initdb"), initArgs, {
      stdio: ["ignore", "ignore", "pipe"],
      ...user,
    });
  }
  const settings = ["listen_addresses=127.0.0.1", `port=${port}`, "unix_socket_directories=", "max_connections=200"];
  if (throwaway) settings.push("fsync=off", "synchronous_commit=off", "full_page_writes=off");
  const child = spawn(path.join(bin, "postgres"), ["-D", dataDir, ...settings.flatMap((s) => ["-c", s])], {
    stdio: ["ignore", "pipe", "pipe"],
    ...user,
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    log?.(chunk.toString());
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);

  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  await waitUntilReady(url("postgres"), child, () => output);
  return { url, port, stop: () => stopServer(child) };
}

/** One statement on a connection of its own (server set-up: roles, databases). */
export async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * As docs/operations.md "Deploy" recommends for the app's role, on the throwaway
 * servers of the tests and the bench: a write waits out another session's
 * lock for 5 s (as lib/database/sqlite.ts does), then fails.
 */
export const limitRoleLockWait = (serverUrl: string) => adminQuery(serverUrl, "ALTER ROLE postgres SET lock_timeout = '5s'");

/** Creates a database unless it exists. */
export async function ensureDatabase(serverUrl: string, database: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database}"${template ? ` TEMPLATE "${template}"` : ""}`);
  } finally {
    await client.end();
  }
}

/** A server an earlier run left behind in dataDir (that run was killed): stop it; a throwaway folder is wiped. */
async function stopLeftover(dataDir: string, { wipe }: { wipe: boolean }): Promise<void> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]) : 0;
  if (pid > 0) {
    try {
      process.kill(pid, wipe ? "SIGQUIT" : "SIGINT");
      for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    } catch {
      // Not running any more.
    }
  }
  if (wipe) fs.rmSync(dataDir, { recursive: true, force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function systemUser(name: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, name], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`PostgreSQL exited with ${child.exitCode}:\n${output()}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not accept connections: ${String(error)}\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A fast shutdown (SIGINT): clients are disconnected, data is written out. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}
