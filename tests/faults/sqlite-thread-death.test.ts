// The SQLite thread (lib/database/sqlite-thread.ts) owns the process's
// connection: if it stops, the next statement starts another thread and
// connection instead of failing until the process restarts. The submits run
// in this process, whose Prisma client is the one whose thread is stopped.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { uniqueMarker } from "../support/simulator-control";
import { testEngine } from "../support/test-database";

type App = Awaited<ReturnType<typeof startApp>>;

describe.skipIf(testEngine() === "postgres")("the SQLite thread stops", () => {
  // Started here, not at the top level: Vitest runs no afterAll of a file whose tests are all
  // skipped (PostgreSQL), so an app started at the top level there was never closed.
  let app: App | undefined;
  let prisma: typeof import("@/lib/db").prisma;
  let submitGeneration: typeof import("@/lib/generations/submit").submitGeneration;
  let stopSqliteThread: typeof import("@/lib/database/sqlite-thread").stopSqliteThread;

  beforeAll(async () => {
    app = await startApp();
    // Imported once the app's environment is set on this process (startApp).
    ({ prisma } = await import("@/lib/db"));
    ({ submitGeneration } = await import("@/lib/generations/submit"));
    ({ stopSqliteThread } = await import("@/lib/database/sqlite-thread"));
  });
  afterAll(() => app?.close());

  const submit = (prompt: string, viewer: { id: string; signedIn: boolean }) =>
    submitGeneration({ body: { model: "alpha-2.5-text-to-video-480p", input: { prompt } }, visitor: "sqlite-thread-death", viewer });

  test("the next submit opens another connection and is stored and sent as usual", async () => {
    const marker = uniqueMarker("thread-death");
    const viewer = { id: `owner-${marker}`, signedIn: false };
    const first = await submit(`before ${marker}`, viewer);
    expect(first.generation.state).toBe("PENDING");

    await stopSqliteThread();

    const second = await submit(`after ${marker}`, viewer);
    expect(second.error).toBeUndefined();
    expect(second.generation).toMatchObject({ state: "PENDING", taskId: expect.stringMatching(/^task_/) });
    const rows = await prisma.generation.findMany({ where: { ownerId: viewer.id }, orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => [r.prompt, r.state === "SUBMITTING" || r.state === "SUBMIT_FAILED" ? r.state : "sent"])).toEqual([
      [`before ${marker}`, "sent"],
      [`after ${marker}`, "sent"],
    ]);
    // A transaction works on the new connection too (the spend caps' check runs in one at every insert).
    await expect(prisma.$transaction([prisma.generation.count(), prisma.generation.count({ where: { ownerId: viewer.id } })])).resolves.toEqual([expect.any(Number), 2]);

    // And once more, while the thread is idle between statements.
    await stopSqliteThread();
    expect(await prisma.generation.count({ where: { ownerId: viewer.id } })).toBe(2);
  });
});
