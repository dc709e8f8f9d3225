// The production build the tests run (`next start`): one per engine, since the
// Prisma client compiled into it serves one. Vitest's integration and fault
// suites and Playwright's web server share it, and it is rebuilt only when a
// file that goes into it changed: a stamp beside the build records a hash of
// those files. Several processes may ask at once (Vitest's workers): the first
// builds under a lock, the others wait for its stamp.
//   node --import tsx scripts/test-build.ts   (builds for DATABASE_URL's engine if stale)
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { databaseEngine, type DatabaseEngine } from "../lib/database/engine";
import { ensurePrismaClientFor } from "../lib/database/migrations/prisma-client";

const ROOT = process.cwd();
/** What `next build` reads: the app, its libraries (the generated Prisma client too), public files and build configuration. */
const INPUTS = ["app", "lib", "public", "proxy.ts", "instrumentation.ts", "next.config.ts", "tailwind.config.ts", "postcss.config.mjs", "tsconfig.json", "package-lock.json"];
const STAMP = "framehook-test-build.json";

/** The build directory of an engine, as playwright.config.ts names it. */
export function testDistDir(engine: DatabaseEngine): string {
  return process.env.NEXT_DIST_DIR || (engine === "postgres" ? ".next-postgres" : ".next");
}

function fingerprint(): string {
  const hash = createHash("sha256");
  const visit = (relative: string) => {
    const full = path.join(ROOT, relative);
    if (!fs.existsSync(full)) return;
    if (fs.statSync(full).isDirectory()) {
      for (const name of fs.readdirSync(full).sort()) visit(path.join(relative, name));
      return;
    }
    hash.update(relative).update("\0").update(fs.readFileSync(full)).update("\0");
  };
  INPUTS.forEach(visit);
  return hash.digest("hex");
}

const readStamp = (distDir: string): string | undefined => {
  try {
    return (JSON.parse(fs.readFileSync(path.join(ROOT, distDir, STAMP), "utf8")) as { fingerprint: string }).fingerprint;
  } catch {
    return undefined;
  }
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The build lock's owner is gone: its pid names a dead process, or it never wrote one and the lock is 10 s old. */
function abandoned(lock: string): boolean {
  try {
    const owner = Number(fs.readFileSync(path.join(lock, "pid"), "utf8").trim()) || 0;
    if (owner) return !alive(owner);
  } catch {
    // No pid yet: the owner is between mkdir and writing it, or died there.
  }
  try {
    return Date.now() - fs.statSync(lock).mtimeMs > 10_000;
  } catch {
    return false; // gone meanwhile: the next turn takes it
  }
}

/**
 * Makes sure distDir holds a build of the current sources for databaseUrl's
 * engine, building it if not, and returns the directory. Returns at once when
 * the stamp matches.
 */
export async function ensureTestBuild(databaseUrl: string): Promise<string> {
  const engine = databaseEngine(databaseUrl);
  const distDir = testDistDir(engine);
  const lock = path.join(ROOT, `${distDir}.building`);
  for (;;) {
    ensurePrismaClientFor(databaseUrl);
    if (readStamp(distDir) === fingerprint()) return distDir;
    try {
      fs.mkdirSync(lock);
    } catch {
      // Another process is building; a lock whose owner died is taken over,
      // and so is one left without an owner (killed between mkdir and writing
      // its pid) once it is older than that gap could ever be.
      if (abandoned(lock)) fs.rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    try {
      fs.writeFileSync(path.join(lock, "pid"), String(process.pid));
      const before = fingerprint();
      if (readStamp(distDir) === before) return distDir;
      await build(distDir, databaseUrl);
      fs.writeFileSync(path.join(ROOT, distDir, STAMP), JSON.stringify({ fingerprint: before, engine, builtAt: new Date().toISOString() }));
      return distDir;
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

function build(distDir: string, databaseUrl: string): Promise<void> {
  const started = Date.now();
  console.log(`[test-build] next build → ${distDir} (${databaseEngine(databaseUrl)})`);
  // `next build` is production whatever the caller's NODE_ENV (Vitest sets "test").
  const env: Record<string, string | undefined> = { ...process.env, NEXT_DIST_DIR: distDir, DATABASE_URL: databaseUrl, NEXT_TELEMETRY_DISABLED: "1" };
  delete env.NODE_ENV;
  // The test commands type-check the project themselves (npm run typecheck);
  // the build's own check would also fail on a test file being edited.
  env.NEXT_SKIP_TYPECHECK = "1";
  const child = spawn(process.execPath, [path.join(ROOT, "node_modules", "next", "dist", "bin", "next"), "build"], {
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on("exit", (code: number | null) => {
      if (code === 0) {
        console.log(`[test-build] built ${distDir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        resolve();
      } else reject(new Error(`next build failed (${code}):\n${output}`));
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { env } = await import("../lib/env");
  await ensureTestBuild(env.DATABASE_URL);
}
