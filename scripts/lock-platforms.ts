// Is package-lock.json complete for every laptop and server a team uses?
// `npm ci` on a platform whose native build the lock omits either refuses the
// lock or installs a tree that fails with "Cannot find native binding", so an
// upgrade of next/tailwind that drops macOS or Windows must fail here first.
// Run as `npm run check:lock`; tests/unit/lock-platforms.test.ts runs it in `npm test`.
import { readFileSync } from "node:fs";
import path from "node:path";

export type Platform = { name: string; os: string; cpu: string; libc?: "glibc" | "musl" };

/** The platforms every native family must cover (musl is checked wherever a family declares it). */
export const requiredPlatforms: Platform[] = [
  { name: "darwin-arm64", os: "darwin", cpu: "arm64" },
  { name: "darwin-x64", os: "darwin", cpu: "x64" },
  { name: "win32-x64", os: "win32", cpu: "x64" },
  { name: "linux-x64-glibc", os: "linux", cpu: "x64", libc: "glibc" },
  { name: "linux-arm64-glibc", os: "linux", cpu: "arm64", libc: "glibc" },
];

type LockEntry = {
  version?: string;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
};
export type Lockfile = { packages: Record<string, LockEntry> };

/** npm's own rule for `os`/`cpu`/`libc` lists: an allow-list, or "!x" entries that exclude. */
function allows(list: string[] | undefined, value: string | undefined): boolean {
  if (!list || list.length === 0 || value === undefined) return true;
  if (list.includes(`!${value}`)) return false;
  const positives = list.filter((item) => !item.startsWith("!"));
  return positives.length === 0 || positives.includes(value);
}

function installsOn(entry: LockEntry, platform: Platform): boolean {
  return allows(entry.os, platform.os) && allows(entry.cpu, platform.cpu) && allows(entry.libc, platform.libc);
}

const isPlatformSpecific = (entry: LockEntry) => Boolean(entry.os?.length || entry.cpu?.length || entry.libc?.length);

/** Node's lookup: the dependency's nearest node_modules folder, walking up from its parent. */
function resolveInLock(packages: Lockfile["packages"], parent: string, name: string): LockEntry | undefined {
  let base = parent;
  for (;;) {
    const found = packages[`${base ? `${base}/` : ""}node_modules/${name}`];
    if (found) return found;
    if (!base) return undefined;
    const cut = base.lastIndexOf("node_modules/");
    base = cut > 0 ? base.slice(0, cut - 1) : "";
  }
}

/**
 * Every problem found, as one readable line each; an empty list means the lock is complete.
 * A "native family" is a package with two or more platform-specific optional dependencies
 * (next → @next/swc-*, @tailwindcss/oxide → oxide-*, unrs-resolver → @unrs/resolver-binding-*).
 */
export function findLockGaps(lock: Lockfile): string[] {
  const gaps: string[] = [];
  for (const [location, entry] of Object.entries(lock.packages)) {
    const optional = Object.entries(entry.optionalDependencies ?? {});
    if (optional.length === 0) continue;
    const label = `${location.replace(/^.*node_modules\//, "")}@${entry.version ?? "?"}`;
    const builds: LockEntry[] = [];
    const missing: string[] = [];
    for (const [name, range] of optional) {
      const found = resolveInLock(lock.packages, location, name);
      if (!found) missing.push(`${name}@${range}`);
      else if (isPlatformSpecific(found)) builds.push(found);
    }
    // A declared build the lock lacks is a platform (musl, arm, …) whose `npm ci` fails.
    if (missing.length > 0) gaps.push(`${label}: the lock lacks ${missing.join(", ")}`);
    if (builds.length < 2) continue;
    for (const platform of requiredPlatforms) {
      if (!builds.some((build) => installsOn(build, platform))) gaps.push(`${label}: no build for ${platform.name}`);
    }
  }
  return gaps;
}

export function readLockfile(file = path.join(process.cwd(), "package-lock.json")): Lockfile {
  return JSON.parse(readFileSync(file, "utf8")) as Lockfile;
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const gaps = findLockGaps(readLockfile());
  if (gaps.length === 0) {
    console.log(`package-lock.json lists a native build for ${requiredPlatforms.map((p) => p.name).join(", ")} (and musl where published).`);
  } else {
    console.error("package-lock.json is incomplete for some platforms:");
    for (const gap of gaps) console.error(`  ✗ ${gap}`);
    console.error("Pick versions whose every platform build is published (see docs/operations.md › Upgrading next/tailwind), then regenerate the lock.");
    process.exit(1);
  }
}
