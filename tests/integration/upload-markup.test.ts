// Markup in an uploaded clip, against the real app (next start): looked for
// where a browser sniffs (the first and the last bytes), not everywhere, so a
// valid clip whose compressed frames happen to hold "<html>" or "<script" is
// kept, and one that opens with a page is refused.
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import * as fixtures from "../support/media-fixtures";
import { upload } from "../support/uploads";

const app = await startApp();
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
});

const reference = { model: "delta-h3/reference-to-video", field: "reference_video_urls" };
const planted = (bytes: Buffer, text: string, at: number) => {
  const copy = Buffer.from(bytes);
  copy.write(text, at, "latin1");
  return copy;
};

describe("a clip with markup bytes", () => {
  const clip = fixtures.clip({ seconds: 2 });

  test("in the middle (inside its frames): accepted and kept", async () => {
    const visitor = app.visitor();
    const { status, body } = await upload(visitor, planted(clip, "<html><script>alert(1)</script>", Math.floor(clip.length / 2)), reference);
    expect({ status, error: body.error }).toEqual({ status: 201, error: undefined });
    expect(await prisma.upload.count({ where: { ownerId: await visitor.ownerId() } })).toBe(1);
  });

  test("in its first bytes: refused, nothing kept", async () => {
    const visitor = app.visitor();
    const { status, body } = await upload(visitor, planted(clip, "<script>alert(1)</script>", 600), reference);
    expect(status).toBe(415);
    expect(body.error?.message).toMatch(/also holds HTML or script/);
    expect(await prisma.upload.count({ where: { ownerId: await visitor.ownerId() } })).toBe(0);
  });
});
