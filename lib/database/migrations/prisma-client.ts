// The generated Prisma client serves one engine, fixed by `prisma generate`
// from DATABASE_URL. Development commands regenerate it when DATABASE_URL
// names the other engine; a production build does it in `npm run build`.
import fs from "node:fs";
import path from "node:path";
import { databaseEngine, type DatabaseEngine } from "../engine";
import { runPrisma } from "./prisma-cli";

const GENERATED = "lib/generated/prisma/internal/class.ts";

export function generatedClientEngine(root = process.cwd()): DatabaseEngine | undefined {
  const file = path.join(root, GENERATED);
  if (!fs.existsSync(file)) return undefined;
  const provider = fs.readFileSync(file, "utf8").match(/"activeProvider": "(\w+)"/)?.[1];
  return provider === "postgresql" ? "postgres" : provider === "sqlite" ? "sqlite" : undefined;
}

/** Regenerates the client for databaseUrl's engine unless it already serves it. */
export function ensurePrismaClientFor(databaseUrl: string): void {
  const engine = databaseEngine(databaseUrl);
  if (generatedClientEngine() === engine) return;
  console.log(`[framehook] generating the Prisma client for ${engine}`);
  const result = runPrisma(["generate"], { databaseUrl, stdio: ["ignore", "pipe", "inherit"] });
  if (result.status !== 0) throw new Error(`prisma generate failed for ${engine}`);
}
