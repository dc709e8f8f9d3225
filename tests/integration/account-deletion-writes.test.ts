// Writes that take no credits race an account's deletion and leave nothing:
// a submission with credits off (no hold, so no credit lock of its own) and an
// upload whose bytes finish arriving while the account is deleted, each after
// the deletion (refused, nothing stored, the upload's file deleted) and at the
// same time as it (4 rounds: whichever commits first, no row is left for the
// deleted owner); and a copy of a video's result that finishes after its
// account was deleted leaves no file in storage. Through the real server's
// sign-in, the real simulator and the real domain functions.
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { browserFor, signInByEmail } from "../support/accounts";
import { startMailSink } from "../support/mail-sink";
import { hasFfmpeg, image } from "../support/media-fixtures";
import { uniqueMarker } from "../support/simulator-control";

const sink = await startMailSink();
const app = await startApp({ env: { SMTP_URL: sink.url, SUBMIT_RATE_LIMIT: "0", CREDITS_ENABLED: "false" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { deleteAccount } = await import("@/lib/viewer/delete-account");
const { submitGeneration } = await import("@/lib/generations/submit");
const { receiveUpload } = await import("@/lib/uploads/receive-upload");
const { runDueMediaJobs, scheduleMediaCopies } = await import("@/lib/copies/copy-jobs");

afterAll(async () => {
  await app.close();
  await sink.close();
});

const marker = uniqueMarker("deletion-writes");
await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
const email = (name: string) => `${name}-${uniqueMarker("w").replace(/\W/g, "").toLowerCase()}@example.com`;
const body = (prompt: string) => ({ model: "alpha-2.5-text-to-video-480p", input: { prompt: `${marker} ${prompt}`, duration: 2 } });

/** A signed-in account, its session, and the viewer a request read before the deletion. */
async function account(name: string) {
  const b = browserFor(app.baseUrl);
  await b("/");
  const userId = await signInByEmail({ app, sink, browser: b, email: email(name) });
  const owner = `user:${userId}`;
  const sessionId = (await prisma.session.findFirstOrThrow({ where: { userId }, orderBy: { createdAt: "desc" } })).id;
  const viewer = { id: owner, signedIn: true, account: { userId, email: "", emailVerified: true, name: "", sessionId } };
  return { userId, owner, sessionId, viewer, remove: () => deleteAccount({ userId, sessionId }) };
}

/** Every row still written for the owner: what a deleted account must not have. */
async function rowsOf(owner: string) {
  const [generations, uploads, reservations, credits] = await Promise.all([
    prisma.generation.count({ where: { ownerId: owner } }),
    prisma.upload.count({ where: { ownerId: owner } }),
    prisma.uploadReservation.count({ where: { ownerId: owner } }),
    prisma.creditEntry.count({ where: { ownerId: owner } }),
  ]);
  return { generations, uploads, reservations, credits };
}
const NOTHING = { generations: 0, uploads: 0, reservations: 0, credits: 0 };

/** The files of the media folder under uploads/ (the local storage this file's app and this process share). */
const storedUploads = () => {
  const dir = path.join(env.MEDIA_LOCAL_DIR, "uploads");
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

describe("with credits off, a submission racing the deletion", () => {
  test("after the deletion it is refused and stores nothing; at the same time, nothing is left either way", async () => {
    expect(env.CREDITS_ENABLED).toBe(false);
    const { owner, viewer, remove } = await account("submit-after");
    await remove();
    await expect(submitGeneration({ body: body("submitted after deletion"), visitor: "test-address", viewer })).rejects.toMatchObject({ code: "unauthorized" });
    expect(await rowsOf(owner)).toEqual(NOTHING);

    for (let round = 0; round < 4; round++) {
      const racer = await account(`submit-race-${round}`);
      await Promise.allSettled([submitGeneration({ body: body(`submit race ${round}`), visitor: "test-address", viewer: racer.viewer }), racer.remove()]);
      expect(await rowsOf(racer.owner), `round ${round}`).toEqual(NOTHING);
    }
  });
});

describe.skipIf(!hasFfmpeg)("an upload finishing while the account is deleted", () => {
  const png = image();
  /** An upload whose bytes arrive in two parts: the last only when `finish` is called. */
  function slowUpload(owner: string) {
    const stream = new PassThrough();
    stream.write(png.subarray(0, png.length - 100));
    const received = receiveUpload({ ownerId: owner, modelId: "alpha-2.5-first-last-frame-480p", fieldName: "first_frame_url", body: stream, declaredBytes: png.length });
    return { received, finish: () => stream.end(png.subarray(png.length - 100)) };
  }

  test("its record is refused and its file deleted when the deletion came first; at the same time, nothing is left either way", async () => {
    const before = storedUploads().length;
    const { owner, remove } = await account("upload-during");
    const upload = slowUpload(owner);
    // Its room is reserved and its bytes are arriving when the account is deleted.
    await waitFor(async () => (await prisma.uploadReservation.count({ where: { ownerId: owner } })) === 1, 60_000, "the upload's reservation");
    await remove();
    upload.finish();
    await expect(upload.received).rejects.toMatchObject({ code: "unauthorized" });
    expect(await rowsOf(owner)).toEqual(NOTHING);
    expect(storedUploads()).toHaveLength(before);

    for (let round = 0; round < 4; round++) {
      const racer = await account(`upload-race-${round}`);
      const racing = slowUpload(racer.owner);
      racing.finish();
      await Promise.allSettled([racing.received, racer.remove()]);
      expect(await rowsOf(racer.owner), `round ${round}`).toEqual(NOTHING);
      // Recorded first, its file went with the account; refused, the upload deleted it.
      expect(storedUploads(), `round ${round}`).toHaveLength(before);
    }
  });
});

describe("a copy of a result finishing after its account was deleted", () => {
  /** The files stored for a generation (its copy and the copy's still), in this file's media folder. */
  const storedFiles = (id: string) => {
    const dir = path.join(env.MEDIA_LOCAL_DIR, "generations", id);
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };
  // The result host takes this long to answer: the account is deleted meanwhile (a bound the deletion stays far under).
  const DOWNLOAD_LATENCY_MS = 5_000;

  test("deletes the file and the still it stored: no row names them any more", async () => {
    const copyMarker = uniqueMarker("copy-during-deletion");
    await app.simulator.scenario({ match: copyMarker, pendingMs: 600_000, callback: { mode: "drop" }, media: { latencyMs: DOWNLOAD_LATENCY_MS } });
    const { owner, viewer, remove } = await account("copy-during");
    const { id } = (await submitGeneration({ body: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `a harbour ${copyMarker}`, duration: 2 } }, visitor: "test-address", viewer })).generation;
    await app.simulator.settle(copyMarker);
    const [task] = await app.simulator.tasks(copyMarker);
    // SUCCESS written without its hook, so that the copy runs here, where the test sees it end.
    await prisma.generation.update({ where: { id }, data: { state: "SUCCESS", resultUrls: JSON.stringify(task!.resultUrls), completedAt: new Date() } });
    await scheduleMediaCopies({ generationIds: [id] });

    const copying = runDueMediaJobs({ generationIds: [id] });
    await waitFor(async () => (await prisma.mediaCopy.count({ where: { generationId: id, state: "COPYING" } })) === 1, 60_000, "the copy's claim");
    const deletedAt = Date.now();
    await remove();
    const deletedIn = Date.now() - deletedAt;
    expect(await copying).toMatchObject({ ran: 1 });
    // The download was answered after the deletion, and the copy stored it then.
    expect(deletedIn).toBeLessThan(DOWNLOAD_LATENCY_MS);
    expect((await app.simulator.media(copyMarker)).filter((m) => m.method === "GET" && m.status === 200)).toHaveLength(1);

    expect(await prisma.generation.count({ where: { id } })).toBe(0);
    expect(await prisma.mediaCopy.count({ where: { generationId: id } })).toBe(0);
    expect(storedFiles(id)).toEqual([]);
    expect(await rowsOf(owner)).toEqual(NOTHING);
  });
});
