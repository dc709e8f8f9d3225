// Deleting an account is a fresh decision, and leaves nothing: only a session
// signed in within the last day deletes (the account page asks for a new
// sign-in first), and a claim, a submission, a purchase or an operator's grant
// that lands while or after the account is deleted is refused or recorded for
// the operator, never written to the deleted owner. Through the real server
// and the real domain functions, each race in both orders and at once.
import { afterAll, describe, expect, test, vi } from "vitest";
import { startApp } from "../support/app";
import { browserFor, signInByEmail, type Browser } from "../support/accounts";
import { startMailSink } from "../support/mail-sink";
import { uniqueMarker } from "../support/simulator-control";

const sink = await startMailSink();
const app = await startApp({ env: { SMTP_URL: sink.url, SUBMIT_RATE_LIMIT: "0" } });
const { prisma } = await import("@/lib/db");
const { deleteAccount, FRESH_SIGN_IN_MS } = await import("@/lib/viewer/delete-account");
const { claimGuest } = await import("@/lib/viewer/claim-guest");
const { submitGeneration } = await import("@/lib/generations/submit");
const { creditPaidCheckout } = await import("@/lib/credits/purchases");
const { adjustCredits } = await import("@/lib/credits/adjust");
const { showCreditBalance } = await import("@/lib/credits/balance");
const { CREDIT_PACKS } = await import("@/lib/credits/prices");

afterAll(async () => {
  await app.close();
  await sink.close();
});

const marker = uniqueMarker("deletion");
await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
const browser = () => browserFor(app.baseUrl);
const email = (name: string) => `${name}-${uniqueMarker("d").replace(/\W/g, "").toLowerCase()}@example.com`;
const page = async (b: Browser, path: string) => (await (await b(path)).text()).replaceAll("<!-- -->", "");
const body = (prompt: string) => ({ model: "alpha-2.5-text-to-video-480p", input: { prompt: `${marker} ${prompt}`, duration: 2 } });

/** A signed-in account with a balance, and its browser's session. */
async function account(name: string) {
  const b = browser();
  await b("/");
  const userId = await signInByEmail({ app, sink, browser: b, email: email(name) });
  const owner = `user:${userId}`;
  await showCreditBalance({ ownerId: owner, visitor: "test-address" });
  const sessionId = (await prisma.session.findFirstOrThrow({ where: { userId }, orderBy: { createdAt: "desc" } })).id;
  return { b, userId, owner, sessionId };
}

/**
 * Every row still written for the owner, by table: what a deleted account must not have. (The claims of
 * guests it kept stay, ids and counts only: a late purchase of such a guest finds the deleted account by them.)
 */
async function rowsOf(owner: string, userId: string) {
  const [generations, credits, uploads, users] = await Promise.all([
    prisma.generation.count({ where: { ownerId: owner } }),
    prisma.creditEntry.count({ where: { ownerId: owner } }),
    prisma.upload.count({ where: { ownerId: owner } }),
    prisma.user.count({ where: { id: userId } }),
  ]);
  return { generations, credits, uploads, users };
}
const NOTHING = { generations: 0, credits: 0, uploads: 0, users: 0 };

/** A guest of its own browser with one video (its hold in flight). */
async function guestWithVideo(name: string) {
  const g = browser();
  await g("/");
  const response = await g("/api/generations", { method: "POST", json: body(name) });
  expect(response.status).toBe(201);
  return g.guestId()!;
}

const accountViewer = (userId: string, owner: string, sessionId: string) => ({
  id: owner,
  signedIn: true,
  account: { userId, email: "", emailVerified: true, name: "", sessionId },
});

describe("deleting is a fresh decision", () => {
  test("a session signed in more than a day ago cannot delete: the page asks for a new sign-in, the delete is refused; after one, it deletes", async () => {
    const { b, userId, owner, sessionId } = await account("stale");
    await prisma.session.update({ where: { id: sessionId }, data: { createdAt: new Date(Date.now() - FRESH_SIGN_IN_MS - 60_000) } });

    const stale = await page(b, "/account");
    expect(stale).toContain("it needs a sign-in from the last day, and this browser signed in earlier");
    expect(stale).toContain('href="/sign-in?again"');
    expect(stale).not.toContain("Delete my account");
    await expect(deleteAccount({ userId, sessionId })).rejects.toMatchObject({ code: "fresh_sign_in_required", status: 401 });
    expect((await rowsOf(owner, userId)).users).toBe(1);

    // Another account's fresh session is no key to this one.
    const other = await account("other");
    await expect(deleteAccount({ userId, sessionId: other.sessionId })).rejects.toMatchObject({ code: "unauthorized" });

    // Signed in again from the same browser (the sign-in page lets it): the page offers the delete, which deletes.
    expect(await page(b, "/sign-in?again")).toContain("Email me a sign-in link");
    await signInByEmail({ app, sink, browser: b, email: (await prisma.user.findUniqueOrThrow({ where: { id: userId } })).email });
    const fresh = (await prisma.session.findFirstOrThrow({ where: { userId }, orderBy: { createdAt: "desc" } })).id;
    expect(fresh).not.toBe(sessionId);
    expect(await page(b, "/account")).toContain("Delete my account");
    await deleteAccount({ userId, sessionId: fresh });
    expect(await rowsOf(owner, userId)).toEqual(NOTHING);
  });
});

describe("races with deletion leave nothing", () => {
  test("a claim after the account was deleted is refused and moves nothing; at the same time, either order leaves the account with nothing", async () => {
    const { userId, owner, sessionId } = await account("claim-after");
    const guestId = await guestWithVideo("claim after deletion");
    await deleteAccount({ userId, sessionId });
    await expect(claimGuest({ guestId, userId, visitor: "test-address" })).rejects.toMatchObject({ code: "gone" });
    expect(await rowsOf(owner, userId)).toEqual(NOTHING);
    expect(await prisma.generation.count({ where: { ownerId: guestId } })).toBe(1);

    for (let round = 0; round < 4; round++) {
      const racer = await account(`claim-race-${round}`);
      const racingGuest = await guestWithVideo(`claim race ${round}`);
      const [claimed] = await Promise.allSettled([
        claimGuest({ guestId: racingGuest, userId: racer.userId, visitor: "test-address" }),
        deleteAccount({ userId: racer.userId, sessionId: racer.sessionId }),
      ]);
      expect(await rowsOf(racer.owner, racer.userId), `round ${round}`).toEqual(NOTHING);
      // Claimed first, the video went with the account; refused, it stayed the guest's.
      expect(await prisma.generation.count({ where: { ownerId: racingGuest } })).toBe(claimed.status === "fulfilled" ? 0 : 1);
    }
  });

  test("a submission that lands after the account was deleted stores nothing; at the same time, nothing is left either way", async () => {
    const { userId, owner, sessionId } = await account("submit-after");
    const viewer = accountViewer(userId, owner, sessionId);
    await deleteAccount({ userId, sessionId });
    await expect(submitGeneration({ body: body("submitted after deletion"), visitor: "test-address", viewer })).rejects.toMatchObject({ code: "unauthorized" });
    expect(await rowsOf(owner, userId)).toEqual(NOTHING);

    for (let round = 0; round < 4; round++) {
      const racer = await account(`submit-race-${round}`);
      await Promise.allSettled([
        submitGeneration({ body: body(`submit race ${round}`), visitor: "test-address", viewer: accountViewer(racer.userId, racer.owner, racer.sessionId) }),
        deleteAccount({ userId: racer.userId, sessionId: racer.sessionId }),
      ]);
      expect(await rowsOf(racer.owner, racer.userId), `round ${round}`).toEqual(NOTHING);
    }
  });

  test("a purchase whose webhook lands after the account was deleted is recorded for the operator and credits nobody; duplicated, once", async () => {
    const warnings = vi.spyOn(console, "warn");
    const pack = CREDIT_PACKS[0]!;
    const paid = (owner: string, session: string) => ({ checkoutSessionId: session, ownerId: owner, packId: pack.id, credits: pack.credits, amountTotal: pack.unitAmount, currency: pack.currency, paymentIntentId: `pi_${session}` });
    const { userId, owner, sessionId } = await account("buy-after");
    await deleteAccount({ userId, sessionId });
    const session = `cs_test_deleted_${userId}`;
    const outcomes = await Promise.all([creditPaidCheckout(paid(owner, session)), creditPaidCheckout(paid(owner, session))]);
    expect(outcomes.map((o) => o.credited)).toEqual([false, false]);
    expect(await rowsOf(owner, userId)).toEqual(NOTHING);
    expect(await prisma.purchase.count({ where: { checkoutSessionId: session, ownerId: owner } })).toBe(1);
    expect(warnings.mock.calls.map((c) => c.join(" ")).filter((line) => line.includes(`checkout ${session} was paid for ${owner}, an account deleted`))).toHaveLength(1);
    warnings.mockRestore();

    for (let round = 0; round < 4; round++) {
      const racer = await account(`buy-race-${round}`);
      const racing = `cs_test_race_${racer.userId}`;
      await Promise.allSettled([creditPaidCheckout(paid(racer.owner, racing)), deleteAccount({ userId: racer.userId, sessionId: racer.sessionId })]);
      expect(await rowsOf(racer.owner, racer.userId), `round ${round}`).toEqual(NOTHING);
      expect(await prisma.purchase.count({ where: { checkoutSessionId: racing } })).toBe(1);
    }
  });

  test("a purchase a kept guest started, landing after the account was deleted, is recorded for the operator and credits nobody; the guest's old cookie is not welcomed again", async () => {
    const warnings = vi.spyOn(console, "warn");
    const pack = CREDIT_PACKS[0]!;
    const { userId, owner, sessionId } = await account("kept-then-deleted");
    const guestId = await guestWithVideo("kept, then the account deleted");
    await claimGuest({ guestId, userId, visitor: "test-address" });
    await deleteAccount({ userId, sessionId });
    // A bank debit the guest started before signing in clears days later.
    const session = `cs_test_kept_${userId}`;
    const outcome = await creditPaidCheckout({ checkoutSessionId: session, ownerId: guestId, packId: pack.id, credits: pack.credits, amountTotal: pack.unitAmount, currency: pack.currency, paymentIntentId: `pi_${session}` });
    expect(outcome.credited).toBe(false);
    expect(await prisma.purchase.findUniqueOrThrow({ where: { checkoutSessionId: session } })).toMatchObject({ ownerId: owner });
    expect(await prisma.creditEntry.count({ where: { ownerId: { in: [guestId, owner] } } })).toBe(0);
    expect(warnings.mock.calls.map((c) => c.join(" ")).filter((line) => line.includes(`checkout ${session} was paid for ${owner}, an account deleted`))).toHaveLength(1);
    warnings.mockRestore();
    // A copy of the kept guest's cookie: welcomed once already, as that guest.
    expect(await showCreditBalance({ ownerId: guestId, visitor: "test-address" })).toMatchObject({ credits: 0 });
    expect(await rowsOf(owner, userId)).toEqual(NOTHING);
  });

  test("an operator's grant to a deleted account is refused, and a balance read that lands after makes no welcome grant for it", async () => {
    const { userId, owner, sessionId } = await account("grant-after");
    await deleteAccount({ userId, sessionId });
    await expect(adjustCredits({ ownerId: owner, amount: 40, reason: "sorry" })).rejects.toMatchObject({ code: "gone" });
    expect(await rowsOf(owner, userId)).toEqual(NOTHING);
    // A balance read that was on its way when the account was deleted (a header's, a submission's form).
    expect(await showCreditBalance({ ownerId: owner, visitor: "test-address" })).toMatchObject({ credits: 0 });
    expect(await rowsOf(owner, userId)).toEqual(NOTHING);
  });
});
