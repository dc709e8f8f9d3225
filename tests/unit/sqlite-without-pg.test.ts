// An install on SQLite never loads the PostgreSQL driver: the database and
// the event bus import only the engine DATABASE_URL names.
import os from "node:os";
import path from "node:path";
import { expect, test, vi } from "vitest";

vi.mock("server-only", () => ({}));
vi.mock("pg", () => {
  throw new Error("pg was loaded");
});
vi.mock("@prisma/adapter-pg", () => {
  throw new Error("@prisma/adapter-pg was loaded");
});

test("on SQLite, the database and the event bus load without pg", async () => {
  vi.stubEnv("DATABASE_URL", `file:${path.join(os.tmpdir(), `framehook-no-pg-${process.pid}.db`)}`);
  const { prisma } = await import("@/lib/db");
  const { eventHub, publishGenerationChange } = await import("@/lib/events");
  await publishGenerationChange({ id: "g1", state: "PENDING", updatedAt: new Date().toISOString(), ownerId: null });
  expect((await eventHub()).nextMark()).toBeGreaterThan(0);
  expect(prisma).toBeDefined();
});
