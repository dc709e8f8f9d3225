// Pages and server actions on the real server: they call getViewer() with no
// request (it reads next/headers), so the visitor cookie proxy.ts issues must
// reach them too. Another owner's generation is a 404 page and an action
// refused with nothing created; /admin opens only for a valid session cookie.
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { callAction } from "../support/server-actions";

const app = await startApp();
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { ADMIN_COOKIE, signAdminSession } = await import("@/lib/viewer/admin");

afterAll(() => app.close());

/** A failed generation of `visitor`'s, as the gallery would show it with a Retry button. */
async function failedGeneration(visitor: typeof app.fetch, prompt: string) {
  return prisma.generation.create({
    data: { ownerId: await visitor.ownerId(), model: "alpha-2.5-text-to-video-480p", prompt, input: JSON.stringify({ duration: 2 }), state: "FAILURE", taskId: `task_${Math.random().toString(36).slice(2)}`, creditsConsumed: 0, errorCode: "generation_failed", completedAt: new Date() },
  });
}

describe("pages read the viewer from the cookie proxy.ts issued", () => {
  test("the owner sees their generation's page; another visitor gets a 404 that names nothing", async () => {
    const prompt = `a heron in the reeds ${Math.random().toString(36).slice(2)}`;
    const row = await failedGeneration(app.fetch, prompt);
    const mine = await app.fetch(`/generations/${row.id}`);
    expect(mine.status).toBe(200);
    expect(await mine.text()).toContain(prompt);
    const theirs = await app.visitor()(`/generations/${row.id}`);
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).not.toContain(prompt);
  });
});

describe("server actions act only on the viewer's own generations", () => {
  test("retrying another owner's failed generation is refused and creates nothing; the owner's retry creates one", async () => {
    const row = await failedGeneration(app.fetch, `retry me ${Math.random().toString(36).slice(2)}`);
    const count = () => prisma.generation.count({ where: { prompt: row.prompt } });

    const stranger = app.visitor();
    const refused = await callAction(stranger, "retryGenerationAction", [row.id]);
    expect(refused.status).toBe(200);
    expect(refused.text).toContain("No such generation.");
    expect(await count()).toBe(1);

    const retried = await callAction(app.fetch, "retryGenerationAction", [row.id]);
    expect(retried.text).toContain("Retrying: a new generation was submitted.");
    expect(await count()).toBe(2);
    const copy = await prisma.generation.findFirstOrThrow({ where: { prompt: row.prompt, id: { not: row.id } } });
    expect(copy.ownerId).toBe(row.ownerId);
  });

  test("deleting another owner's generation is refused and hides nothing", async () => {
    const row = await failedGeneration(app.fetch, `keep me ${Math.random().toString(36).slice(2)}`);
    const refused = await callAction(app.visitor(), "deleteGenerationAction", [row.id]);
    expect(refused.text).toContain("Only your own videos can be deleted.");
    expect(await prisma.generation.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ deletedAt: null });
  });
});

describe("/admin opens for a valid session cookie only", () => {
  const admin = (cookie?: string) => app.visitor()("/admin", { headers: cookie ? { Cookie: `${ADMIN_COOKIE}=${cookie}` } : {} });
  /** The admin page's sign-in form, rather than its data. */
  const signInShown = (html: string) => /type="password"/.test(html);

  test("a valid session shows the data, not the sign-in form", async () => {
    const response = await admin(signAdminSession(env.ADMIN_PASSWORD!));
    expect(response.status).toBe(200);
    expect(signInShown(await response.text())).toBe(false);
  });

  test.each([
    ["no cookie", undefined],
    ["an expired session", () => signAdminSession(env.ADMIN_PASSWORD!, Date.now() - 9 * 3_600_000)],
    ["a session signed with another password", () => signAdminSession("not-the-admin-password")],
    ["a forged signature", () => `${Math.floor(Date.now() / 1000) + 3600}.${"A".repeat(43)}`],
    ["a far-future expiry with a valid session's signature", () => `99999999999.${signAdminSession(env.ADMIN_PASSWORD!).split(".")[1]}`],
  ])("%s → the sign-in form", async (_name, cookie) => {
    const response = await admin(typeof cookie === "function" ? cookie() : cookie);
    expect(response.status).toBe(200);
    expect(signInShown(await response.text())).toBe(true);
  });
});
