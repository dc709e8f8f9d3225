// PostgreSQL's text cannot hold U+0000 (SQLite's can), so a NUL in a prompt, a
// task id or a gateway message once crashed routes on PostgreSQL only. The
// same answers on both engines: a prompt with one is refused, a gateway's is dropped.
import { afterAll, beforeAll, expect, test } from "vitest";
import { startApp } from "../support/app";
import { submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";

const app = await startApp();
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");

afterAll(() => app.close());
beforeAll(() => app.simulator.reset(100));

test("a prompt with a NUL character → 422 naming the field; nothing stored, nothing sent", async () => {
  const marker = uniqueMarker("nul");
  const answer = await submitPrompt(app, `dusk\u0000 ${marker}`);
  expect(answer.status).toBe(422);
  expect(JSON.stringify(answer.body)).toContain("prompt");
  expect(await prisma.generation.count({ where: { prompt: { contains: marker } } })).toBe(0);
  expect(await app.simulator.requests(marker)).toEqual([]);
});

test("a callback whose failure message or task id holds NUL: applied once without it, or refused; never a 500", async () => {
  const marker = uniqueMarker("nulcb");
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
  const { body } = await submitPrompt(app, `quiet ${marker}`);
  const row = await prisma.generation.findUniqueOrThrow({ where: { id: body.id as string } });
  const url = `/api/webhooks/gateway?token=${encodeURIComponent(callbackTokenFor(row.id, env.WEBHOOK_SECRET))}`;
  const post = (task: unknown) => app.fetch(url, { method: "POST", json: task });

  const forged = await post({ taskId: `${row.taskId}\u0000x`, state: "FAILURE", failMsg: "x" });
  expect(forged.status).toBeLessThan(500);
  expect((await prisma.generation.findUniqueOrThrow({ where: { id: row.id } })).state).toBe("PENDING");

  const failed = await post({ taskId: row.taskId, state: "FAILURE", failCode: "E\u00001", failMsg: "bad\u0000 frame" });
  expect(failed.status).toBe(200);
  const after = await prisma.generation.findUniqueOrThrow({ where: { id: row.id } });
  expect(after).toMatchObject({ state: "FAILURE", errorMessage: "bad frame", errorCode: "E1", creditsConsumed: 0 });
});
