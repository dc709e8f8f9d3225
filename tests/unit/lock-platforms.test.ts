// The committed lock installs on every platform a team uses, and `npm ci`
// prints no install-script warning: both are read from the files npm reads.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { findLockGaps, readLockfile, type Lockfile } from "@/scripts/lock-platforms";

const lock = readLockfile();
const manifest = JSON.parse(readFileSync("package.json", "utf8")) as {
  allowScripts?: Record<string, boolean>;
  "//allowScripts"?: Record<string, string>;
};

/** The committed lock without the entries `drop` selects, as a lock written against a registry lacking them would be. */
function lockWithout(drop: (location: string) => boolean): Lockfile {
  return { packages: Object.fromEntries(Object.entries(lock.packages).filter(([location]) => !drop(location))) };
}

describe("package-lock.json covers darwin-arm64, darwin-x64, win32-x64, linux-x64 and linux-arm64", () => {
  test("the committed lock has no gap", () => {
    expect(findLockGaps(lock)).toEqual([]);
  });

  test.each([
    ["next without its macOS builds", /node_modules\/@next\/swc-darwin-/, ["next@16.4.5: no build for darwin-arm64", "next@16.4.5: no build for darwin-x64"]],
    ["tailwind without its Windows build", /node_modules\/@tailwindcss\/oxide-win32-x64-msvc$/, ["@tailwindcss/oxide@4.3.3: no build for win32-x64"]],
    ["eslint's resolver without its Apple-silicon build", /node_modules\/@unrs\/resolver-binding-darwin-arm64$/, ["unrs-resolver@1.12.2: no build for darwin-arm64"]],
    // @libsql's builds name no libc, so only the declared-but-absent rule can see this one.
    ["libsql without its linux-arm64 build", /node_modules\/@libsql\/linux-arm64-gnu$/, ["libsql@0.3.19: the lock lacks @libsql/linux-arm64-gnu@0.3.19"]],
  ])("fails for %s", (_name, dropped, expected) => {
    const gaps = findLockGaps(lockWithout((location) => dropped.test(location)));
    for (const line of expected) expect(gaps).toContain(line);
  });

  test("a missing musl build, which no required platform needs, still fails: `npm ci` refuses the lock on Alpine", () => {
    const gaps = findLockGaps(lockWithout((location) => location.endsWith("node_modules/@next/swc-linux-x64-musl")));
    expect(gaps).toEqual(["next@16.4.5: the lock lacks @next/swc-linux-x64-musl@16.4.5"]);
  });

  test("npm's os/cpu/libc rules, negations included, decide which platform a build serves", () => {
    const family = (builds: Record<string, { os?: string[]; cpu?: string[]; libc?: string[] }>): Lockfile => ({
      packages: {
        "node_modules/native": { version: "1.0.0", optionalDependencies: Object.fromEntries(Object.keys(builds).map((name) => [name, "1.0.0"])) },
        ...Object.fromEntries(Object.entries(builds).map(([name, build]) => [`node_modules/${name}`, { version: "1.0.0", ...build }])),
      },
    });
    expect(findLockGaps(family({ "native-unix": { os: ["!win32"] }, "native-win": { os: ["win32"], cpu: ["x64"] } }))).toEqual([]);
    expect(findLockGaps(family({ "native-musl": { os: ["linux"], libc: ["musl"] }, "native-mac": { os: ["darwin"] }, "native-win": { os: ["win32"] } }))).toEqual([
      "native@1.0.0: no build for linux-x64-glibc",
      "native@1.0.0: no build for linux-arm64-glibc",
    ]);
  });
});

describe("every dependency install script is reviewed in package.json allowScripts", () => {
  const withScripts = Object.entries(lock.packages)
    .filter(([location, entry]) => location !== "" && (entry as { hasInstallScript?: boolean }).hasInstallScript)
    .map(([location]) => location.replace(/^.*node_modules\//, ""));

  test("each locked package with an install script is allowed or denied by name", () => {
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => !(name in (manifest.allowScripts ?? {})))).toEqual([]);
  });

  test("each entry says why in //allowScripts, and none is stale", () => {
    expect(Object.keys(manifest["//allowScripts"] ?? {}).sort()).toEqual(Object.keys(manifest.allowScripts ?? {}).sort());
    expect(Object.keys(manifest.allowScripts ?? {}).filter((name) => !withScripts.includes(name))).toEqual([]);
  });
});
