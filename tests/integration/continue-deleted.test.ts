// Continuing from a result the owner deleted from the gallery: the stored copy
// is still on disk until retention removes it, but a hidden generation is not
// there to continue from, whichever take the card or the picker asks for.
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { submitAndCopy } from "../support/media-copies";
import { callAction } from "../support/server-actions";

const app = await startApp();
const { prisma } = await import("@/lib/db");
const { uploadFromResult } = await import("@/lib/uploads/frame-upload");

afterAll(async () => {
  await app.close();
});

describe("continue from a deleted result", () => {
  test("use a frame and use as reference both answer not found, and nothing is stored", async () => {
    const { id, row } = await submitAndCopy(app, { label: "continue-deleted", prompt: "a paper boat on a puddle" });
    expect(row.state).toBe("DONE");
    const ownerId = await app.fetch.ownerId();

    const deleted = await callAction(app.fetch, "deleteGenerationAction", [id]);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toContain("Deleted from the gallery.");
    expect((await prisma.generation.findUniqueOrThrow({ where: { id } })).deletedAt).not.toBeNull();
    // The copy is still stored: only the generation's deletion stands between it and a new upload.
    expect(await prisma.mediaCopy.count({ where: { generationId: id, state: "DONE" } })).toBe(1);

    for (const take of ["first-frame", "last-frame", "video"] as const) {
      await expect(uploadFromResult({ generationId: id, take, ownerId })).rejects.toMatchObject({ code: "not_found" });
      const answer = await callAction(app.fetch, "continueFromResultAction", [id, take]);
      expect(answer.status).toBe(200);
      expect(answer.text).toContain("This video is not kept here yet");
    }
    // The picker's path names its target field; it is refused the same way.
    const target = { model: "alpha-2.5-first-last-frame-480p", field: "last_frame_url" };
    await expect(uploadFromResult({ generationId: id, take: "last-frame", ownerId, target })).rejects.toMatchObject({ code: "not_found" });
    expect((await callAction(app.fetch, "continueFromResultAction", [id, "last-frame", target])).text).toContain("This video is not kept here yet");

    expect(await prisma.upload.count({ where: { ownerId } })).toBe(0);
    // The gallery picker does not offer it either.
    const picker = (await (await app.fetch("/api/uploads/gallery")).json()) as { items: { id: string }[] };
    expect(picker.items.map((item) => item.id)).not.toContain(id);
  });
});
