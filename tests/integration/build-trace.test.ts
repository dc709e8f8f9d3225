// What the production build ships beside its server code: the files Next's
// trace (the .nft.json beside each route) says a route needs. A dynamic
// filesystem access in a module every route loads (lib/env.ts) makes Next
// trace the whole project; the tests, docs and benchmarks must never be in it.
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { ensureTestBuild } from "../../scripts/test-build";

function tracedFiles(dir: string, found = new Set<string>()): Set<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) tracedFiles(file, found);
    else if (entry.name.endsWith(".nft.json")) {
      for (const traced of (JSON.parse(fs.readFileSync(file, "utf8")) as { files: string[] }).files) found.add(path.relative(process.cwd(), path.resolve(dir, traced)));
    }
  }
  return found;
}

test("the server's trace holds no test, doc, benchmark or script of the project", async () => {
  const distDir = await ensureTestBuild(process.env.DATABASE_URL!);
  const traced = [...tracedFiles(path.join(distDir, "server"))];
  expect(traced.length).toBeGreaterThan(0);
  expect(traced.filter((file) => /^(tests|docs|bench|scripts|simulator)\//.test(file) || file === "README.md")).toEqual([]);
}, 600_000);
