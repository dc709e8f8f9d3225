// Accounts through the real server: an email link (sent over SMTP to a real
// mail server on loopback) signs a browser in; the guest's videos, uploads and
// idempotency keys move to the account on "Keep them", once, whatever runs at
// the same time; another account can never take them; the account sees them
// on another device; signing out everywhere ends every session; deleting the
// account leaves no row and no file behind.
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { browserFor, signInByEmail, type Browser } from "../support/accounts";
import { startMailSink } from "../support/mail-sink";
import { callAction } from "../support/server-actions";
import { uniqueMarker } from "../support/simulator-control";

const sink = await startMailSink();
const app = await startApp({ env: { SMTP_URL: sink.url, SUBMIT_RATE_LIMIT: "0", UPLOAD_RATE_LIMIT: "0" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { claimGuest } = await import("@/lib/viewer/claim-guest");
const { creditBalance, showCreditBalance } = await import("@/lib/credits/balance");
const { creditPaidCheckout } = await import("@/lib/credits/purchases");
const { CREDIT_PACKS } = await import("@/lib/credits/prices");
const { welcomeGrantCredits } = await import("@/lib/credits/pricing");
const { deleteAccount } = await import("@/lib/viewer/delete-account");

afterAll(async () => {
  await app.close();
  await sink.close();
});

const browser = () => browserFor(app.baseUrl);
const signIn = (b: Browser, address: string) => signInByEmail({ app, sink, browser: b, email: address });

async function submit(b: Browser, prompt: string, key?: string) {
  const response = await b("/api/generations", {
    method: "POST",
    json: { model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } },
    headers: key ? { "Idempotency-Key": key } : {},
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}
const listIds = async (b: Browser) => ((await (await b("/api/generations?limit=100")).json()) as { items: { id: string }[] }).items.map((g) => g.id).sort();
const png = () => sharp({ create: { width: 640, height: 480, channels: 3, background: "#3366aa" } }).png().toBuffer();
async function uploadFrame(b: Browser) {
  const response = await b("/api/uploads?model=alpha-2.5-first-last-frame-480p&field=first_frame_url", {
    method: "POST",
    headers: { "Content-Type": "image/png" },
    body: new Uint8Array(await png()),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}
const email = (name: string) => `${name}-${uniqueMarker("m").replace(/\W/g, "").toLowerCase()}@example.com`;

describe("a guest who signs in", () => {
  test("is asked to keep what they made, and keeping it moves videos, uploads and keys to the account, once", async () => {
    const b = browser();
    await b("/");
    const guestId = b.guestId()!;
    const ids = [await submit(b, "first as guest", "guest-key-one"), await submit(b, "second as guest")];
    const uploadIdValue = await uploadFrame(b);

    const userId = await signIn(b, email("keeper"));
    const welcome = await b("/welcome");
    expect(welcome.status).toBe(200);
    expect((await welcome.text()).replaceAll("<!-- -->", "")).toContain("Keep the 2 videos and 1 upload made in this browser?");

    await callAction(b, "keepGuestWork", [], "/welcome");
    expect(await listIds(b)).toEqual([...ids].sort());
    expect(await prisma.generation.count({ where: { ownerId: `user:${userId}` } })).toBe(2);
    expect(await prisma.generation.count({ where: { ownerId: guestId } })).toBe(0);
    expect((await prisma.upload.findUniqueOrThrow({ where: { id: uploadIdValue } })).ownerId).toBe(`user:${userId}`);
    expect(await prisma.guestClaim.findUnique({ where: { guestId } })).toMatchObject({ userId, generations: 2, uploads: 1 });

    // The guest's idempotency key is the account's now: the same key answers the same generation.
    const again = await b("/api/generations", {
      method: "POST",
      json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: "first as guest", duration: 2 } },
      headers: { "Idempotency-Key": "guest-key-one" },
    });
    expect(((await again.json()) as { id: string }).id).toBe(ids[0]);

    // A second run changes nothing, and the prompt is gone.
    await callAction(b, "keepGuestWork", [], "/welcome");
    expect(await prisma.guestClaim.findUnique({ where: { guestId } })).toMatchObject({ userId, generations: 2, uploads: 1 });
    expect((await b("/welcome")).status).toBe(307);
  });

  test("after Keep them, the browser is a fresh guest: without its session it still reads its credits and submits; the claimed guest's cookie gets 0 credits, never a 500", async () => {
    const b = browser();
    await b("/");
    const claimed = b.guestId()!;
    await submit(b, "kept, then signed out elsewhere");
    const userId = await signIn(b, email("kept-then-out"));
    // A copy of the browser's cookies from before the claim (another tab's, a backup): the claimed guest.
    const stale = browser();
    stale.jar.set("framehook_viewer", b.jar.get("framehook_viewer")!);
    await callAction(b, "keepGuestWork", [], "/welcome");
    expect(b.guestId()).toBeTruthy();
    expect(b.guestId()).not.toBe(claimed);

    // Signed out everywhere from another device (or the session expired): the browser is its fresh guest.
    await prisma.session.deleteMany({ where: { userId } });
    const credits = await b("/api/credits");
    expect(credits.status, await credits.clone().text()).toBe(200);
    const fresh = await b("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: "as the fresh guest", duration: 2 } } });
    expect(fresh.status, await fresh.clone().text()).toBe(201);
    expect(await listIds(b)).toEqual([((await fresh.json()) as { id: string }).id]);

    // The claimed guest's welcome grant is the account's now (found by its key): the old cookie gets none again.
    const staleCredits = await stale("/api/credits");
    expect(staleCredits.status, await staleCredits.clone().text()).toBe(200);
    expect(((await staleCredits.json()) as { credits: number }).credits).toBe(0);
    const refused = await stale("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: "as the claimed guest", duration: 2 } } });
    expect(refused.status, await refused.clone().text()).toBe(402);
    expect(await prisma.creditEntry.count({ where: { idempotencyKey: `grant:welcome:${claimed}` } })).toBe(1);
  });

  test("another device signed in to the account sees the kept videos; a guest does not", async () => {
    const phone = browser();
    const laptop = browser();
    await phone("/");
    const id = await submit(phone, "made on the phone");
    const address = email("two-devices");
    await signIn(phone, address);
    await callAction(phone, "keepGuestWork", [], "/welcome");
    await laptop("/");
    expect(await listIds(laptop)).toEqual([]);
    await signIn(laptop, address);
    expect(await listIds(laptop)).toEqual([id]);
    expect((await laptop(`/api/generations/${id}`)).status).toBe(200);
    expect((await browser()(`/api/generations/${id}`)).status).toBe(404);
  });

  test("a guest kept by one account cannot be taken by another, from its cookie or in a race", async () => {
    const b = browser();
    await b("/");
    const guestId = b.guestId()!;
    const id = await submit(b, "contested");
    const alice = await signIn(b, email("alice"));
    const guestCookie = b.jar.get("framehook_viewer")!;
    await callAction(b, "keepGuestWork", [], "/welcome");

    // Mallory copies the claimed guest's cookie into her browser and signs in: no prompt, and the action refuses.
    const mallory = browser();
    mallory.jar.set("framehook_viewer", guestCookie);
    const malloryId = await signIn(mallory, email("mallory"));
    expect((await mallory("/welcome")).status).toBe(307);
    const refused = await callAction(mallory, "keepGuestWork", [], "/welcome");
    expect(refused.text).toContain("already belongs to another account");
    expect((await prisma.generation.findUniqueOrThrow({ where: { id } })).ownerId).toBe(`user:${alice}`);
    await expect(claimGuest({ guestId, userId: malloryId, visitor: "test-address" })).rejects.toThrow(/another account/);

    // Two accounts claiming one fresh guest at once: exactly one wins, and owns everything.
    const fresh = browser();
    await fresh("/");
    const freshGuest = fresh.guestId()!;
    const made = [await submit(fresh, "race one"), await submit(fresh, "race two")];
    const users = await Promise.all(
      ["r1", "r2", "r3"].map((n) => prisma.user.create({ data: { id: `${n}-${freshGuest}`, email: email(n), name: "", updatedAt: new Date() } })),
    );
    const outcomes = await Promise.allSettled([...users, ...users].map((u) => claimGuest({ guestId: freshGuest, userId: u.id, visitor: "test-address" })));
    const claim = await prisma.guestClaim.findUniqueOrThrow({ where: { guestId: freshGuest } });
    const winners = outcomes.filter((o, i) => o.status === "fulfilled" && [...users, ...users][i]!.id === claim.userId);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(winners.length);
    expect(claim.generations).toBe(2);
    const owners = await prisma.generation.findMany({ where: { id: { in: made } }, select: { ownerId: true } });
    expect(owners.map((o) => o.ownerId)).toEqual([`user:${claim.userId}`, `user:${claim.userId}`]);
  });
});

describe("credits", () => {
  test("move with the guest (purchases too), once; an account already welcomed takes no second welcome grant", async () => {
    const address = email("buyer");
    // The account exists and was welcomed on another device before this browser's guest bought anything.
    const laptop = browser();
    await laptop("/");
    const userId = await signIn(laptop, address);
    const owner = `user:${userId}`;
    await showCreditBalance({ ownerId: owner, visitor: "test-address" });
    const accountBefore = await creditBalance(owner);

    const phone = browser();
    await phone("/");
    const guestId = phone.guestId()!;
    await showCreditBalance({ ownerId: guestId, visitor: "test-address" });
    const pack = CREDIT_PACKS[0]!;
    const sessionId = `cs_test_claim_${guestId}`;
    await creditPaidCheckout({ checkoutSessionId: sessionId, ownerId: guestId, packId: pack.id, credits: pack.credits, amountTotal: pack.unitAmount, currency: pack.currency, paymentIntentId: null });
    const guestBefore = await creditBalance(guestId);
    expect(guestBefore).toBe(welcomeGrantCredits() + pack.credits);
    await submit(phone, "made before signing in");

    await signIn(phone, address);
    const runs = await Promise.allSettled([1, 2, 3].map(() => claimGuest({ guestId, userId, visitor: "test-address" })));
    expect(runs.every((r) => r.status === "fulfilled")).toBe(true);
    // The guest's balance moved but for what it had not spent of its welcome grant (free credits count as spent
    // first): the pack moved whole.
    expect(await creditBalance(owner)).toBe(accountBefore + pack.credits);
    expect(await creditBalance(guestId)).toBe(0);
    expect((await prisma.purchase.findFirstOrThrow({ where: { checkoutSessionId: sessionId } })).ownerId).toBe(owner);
    expect(await prisma.creditEntry.count({ where: { ownerId: owner, idempotencyKey: `claim:welcome:${guestId}` } })).toBe(1);
  });

  test("a guest who only bought is asked too; a purchase whose webhook lands after the claim goes to the account", async () => {
    const b = browser();
    await b("/");
    const guestId = b.guestId()!;
    const pack = CREDIT_PACKS[0]!;
    const paid = (id: string) => ({ checkoutSessionId: id, ownerId: guestId, packId: pack.id, credits: pack.credits, amountTotal: pack.unitAmount, currency: pack.currency, paymentIntentId: null });
    await creditPaidCheckout(paid(`cs_test_only_${guestId}`));
    const userId = await signIn(b, email("only-bought"));
    expect((await (await b("/welcome")).text()).replaceAll("<!-- -->", "")).toContain("Keep the credits you bought in this browser?");
    await callAction(b, "keepGuestWork", [], "/welcome");
    const owner = `user:${userId}`;
    const before = await creditBalance(owner);

    // The buyer paid as the guest; Stripe's webhook arrives after the claim: the account is credited, not the claimed guest.
    const late = `cs_test_late_${guestId}`;
    expect((await creditPaidCheckout(paid(late))).credited).toBe(true);
    expect((await prisma.purchase.findUniqueOrThrow({ where: { checkoutSessionId: late } })).ownerId).toBe(owner);
    expect(await creditBalance(owner)).toBe(before + pack.credits);
    expect(await creditBalance(guestId)).toBe(0);
  });
});

describe("sessions and deletion", () => {
  test("signing out everywhere ends every session; signing out starts a fresh guest", async () => {
    const address = email("everywhere");
    const [one, two] = [browser(), browser()];
    await one("/");
    await two("/");
    const userId = await signIn(one, address);
    await signIn(two, address);
    const id = await submit(one, "mine");
    expect(await listIds(two)).toEqual([id]);
    expect(await prisma.session.count({ where: { userId } })).toBe(2);
    const guestBefore = one.guestId();

    await callAction(one, "signOutEverywhere", [], "/account");
    expect(await prisma.session.count({ where: { userId } })).toBe(0);
    expect(await listIds(two)).toEqual([]);
    await one("/");
    expect(one.guestId()).toBeTruthy();
    expect(one.guestId()).not.toBe(guestBefore);
  });

  test("deleting an account deletes its generations, uploads, stored copies and sessions", async () => {
    const b = browser();
    await b("/");
    const userId = await signIn(b, email("leaver"));
    const id = await submit(b, "to be deleted");
    const upload = await uploadFrame(b);
    const copy = await waitFor(
      () => prisma.mediaCopy.findFirst({ where: { generationId: id, state: "DONE" }, select: { storageKey: true, stillKey: true } }),
      60_000,
    );
    const uploadKey = (await prisma.upload.findUniqueOrThrow({ where: { id: upload } })).storageKey;
    const files = [copy.storageKey, uploadKey].map((key) => path.join(env.MEDIA_LOCAL_DIR, key));
    expect(files.every((f) => fs.existsSync(f))).toBe(true);

    await showCreditBalance({ ownerId: `user:${userId}`, visitor: "test-address" });
    expect(await prisma.creditEntry.count({ where: { ownerId: `user:${userId}` } })).toBeGreaterThan(0);
    const sessionId = (await prisma.session.findFirstOrThrow({ where: { userId } })).id;
    const deleted = await deleteAccount({ userId, sessionId });
    expect(deleted).toMatchObject({ generations: 1, uploads: 1 });
    expect(await prisma.generation.count({ where: { id } })).toBe(0);
    expect(await prisma.upload.count({ where: { id: upload } })).toBe(0);
    expect(await prisma.user.count({ where: { id: userId } })).toBe(0);
    expect(await prisma.session.count({ where: { userId } })).toBe(0);
    expect(await prisma.creditEntry.count({ where: { ownerId: `user:${userId}` } })).toBe(0);
    expect(files.filter((f) => fs.existsSync(f))).toEqual([]);
    // The browser's session is gone with it: it is a guest again, with nothing.
    expect(await listIds(b)).toEqual([]);
  });
});
