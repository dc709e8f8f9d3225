// An upload deleted while a submission that uses it is in flight, against the
// real app and simulator: the owner's DELETE and the unused-upload sweep race
// a submission of the same upload, many times over. Each try ends one of two
// ways: the submission is refused (no generation row, nothing sent to the
// gateway) and the upload is gone, or the delete finds it in use and the video
// is made. Never a task the gateway fails because its input vanished.
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import * as fixtures from "../support/media-fixtures";
import { uniqueMarker } from "../support/simulator-control";
import { uploadId, type Visitor } from "../support/uploads";

const app = await startApp({ env: { UPLOAD_UNUSED_HOURS: "1", SUBMIT_RATE_LIMIT: "0", UPLOAD_RATE_LIMIT: "0" } });
const { prisma } = await import("@/lib/db");
const { sweepUploads } = await import("@/lib/uploads/upload-cleanup");

afterAll(async () => {
  await app.close();
});

const FRAMES = "alpha-2.5-first-last-frame-480p";
const TRIES = 20;
const frame = () => fixtures.image({ width: 640, height: 480 });

/**
 * "refused at check": the upload was gone when the submission checked it (422); "refused at insert": it went
 * between the check and the insert (410); "vanished": the submission was accepted and its upload deleted
 * anyway (the defect), the task ending as the gateway says.
 */
const OUTCOMES = ["refused at check", "refused at insert", "made", "vanished"] as const;
type Outcome = (typeof OUTCOMES)[number];

const tally = (outcomes: Outcome[]) => OUTCOMES.map((o) => `${outcomes.filter((x) => x === o).length} ${o}`).join(", ");

async function submit(visitor: Visitor, input: Record<string, unknown>) {
  const response = await visitor("/api/generations", { method: "POST", json: { model: FRAMES, input } });
  return { status: response.status, body: (await response.json()) as { id?: string; error?: { code: string; fields?: Record<string, string[]> } } };
}

/**
 * What one try left behind, checked: a refused submission stored and sent
 * nothing and its upload is gone; an accepted one kept its upload and ended in
 * SUCCESS (never FAILURE input_fetch_failed).
 */
async function settle({ submitted, removed, marker, upload }: { submitted: Awaited<ReturnType<typeof submit>>; removed: boolean; marker: string; upload: string }): Promise<Outcome> {
  const rows = await prisma.generation.findMany({ where: { prompt: { contains: marker } } });
  if (submitted.status !== 201) {
    // 422 when the delete came before the submission's check, 410 when it came between the check and the insert.
    expect([410, 422], JSON.stringify(submitted.body)).toContain(submitted.status);
    expect(submitted.body.error?.fields?.last_frame_url?.[0]).toMatch(/This upload (is gone|was deleted)/);
    expect(removed).toBe(true);
    expect(rows).toEqual([]);
    expect(await app.simulator.tasks(marker)).toEqual([]);
    return submitted.status === 422 ? "refused at check" : "refused at insert";
  }
  const done = await waitFor(async () => {
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: submitted.body.id! } });
    return row.state !== "SUBMITTING" && row.state !== "PENDING" && row;
  }, 30_000);
  if (removed) {
    console.log(`[upload-vanish] accepted, and its upload deleted: ${done.state} ${done.errorCode}`);
    return "vanished";
  }
  expect(await prisma.upload.findUnique({ where: { id: upload }, select: { generationId: true } })).toEqual({ generationId: submitted.body.id });
  expect([done.state, done.errorCode]).toEqual(["SUCCESS", null]);
  return "made";
}

describe("an upload deleted while a submission uses it", () => {
  test(`the owner's DELETE against a submit, ${TRIES} times: each try is refused whole or made whole`, async () => {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < TRIES; i++) {
      const visitor = app.visitor();
      const [first, last] = [await uploadId(visitor, frame()), await uploadId(visitor, frame(), { field: "last_frame_url" })];
      const marker = uniqueMarker(`vanish-delete-${i}`);
      const [submitted, deleted] = await Promise.all([
        submit(visitor, { prompt: `tide ${marker}`, first_frame_url: first, last_frame_url: last, duration: 2 }),
        visitor(`/api/uploads/${last}`, { method: "DELETE" }),
      ]);
      // 204: deleted; 409: a generation holds it.
      expect([204, 409]).toContain(deleted.status);
      outcomes.push(await settle({ submitted, removed: deleted.status === 204, marker, upload: last }));
    }
    console.log(`[upload-vanish] delete vs submit, ${TRIES} tries: ${tally(outcomes)}`);
    expect(outcomes).not.toContain("vanished");
  }, 240_000);

  test(`the unused-upload sweep against a submit, ${TRIES} times: the same`, async () => {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < TRIES; i++) {
      const visitor = app.visitor();
      const [first, last] = [await uploadId(visitor, frame()), await uploadId(visitor, frame(), { field: "last_frame_url" })];
      // Past UPLOAD_UNUSED_HOURS as far as the sweep can tell: it goes unless a submission holds it first.
      await prisma.upload.update({ where: { id: last }, data: { createdAt: new Date(Date.now() - 2 * 3_600_000) } });
      const marker = uniqueMarker(`vanish-sweep-${i}`);
      const [submitted, swept] = await Promise.all([submit(visitor, { prompt: `reef ${marker}`, first_frame_url: first, last_frame_url: last, duration: 2 }), sweepUploads()]);
      expect(swept).toBeLessThanOrEqual(1);
      outcomes.push(await settle({ submitted, removed: swept === 1, marker, upload: last }));
    }
    console.log(`[upload-vanish] sweep vs submit, ${TRIES} tries: ${tally(outcomes)}`);
    expect(outcomes).not.toContain("vanished");
  }, 240_000);
});
