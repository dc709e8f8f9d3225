// The claim's rule for credits (docs/credits.md), through the real server and
// ledger: an account is welcomed once, and keeping a guest's work never costs
// the account credits of its own. The guest's credits move, less what it had
// not spent of its welcome grant; bought credits always move; the prompt says
// so before the click and the history names it. Duplicated and concurrent
// claims, a claim racing a submission, and an operator's grant to a guest
// already kept.
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { browserFor, signInByEmail, type Browser } from "../support/accounts";
import { startMailSink } from "../support/mail-sink";
import { uniqueMarker } from "../support/simulator-control";

const sink = await startMailSink();
// The default welcome grant (25), so that a few videos hold most of it.
const app = await startApp({ env: { SMTP_URL: sink.url, SUBMIT_RATE_LIMIT: "0", CREDITS_WELCOME_GRANTS_PER_ADDRESS: "0", CREDITS_WELCOME_GRANT: "25" } });
const { prisma } = await import("@/lib/db");
const { claimGuest } = await import("@/lib/viewer/claim-guest");
const { creditBalance, showCreditBalance } = await import("@/lib/credits/balance");
const { creditPaidCheckout } = await import("@/lib/credits/purchases");
const { adjustCredits } = await import("@/lib/credits/adjust");
const { listCreditHistory } = await import("@/lib/credits/history");
const { CREDIT_PACKS } = await import("@/lib/credits/prices");
const { welcomeGrantCredits } = await import("@/lib/credits/pricing");
const { releaseHoldOf } = await import("@/lib/generations/store");
const { refundCheckoutPayment } = await import("@/lib/credits/purchases");
const { readCreditsOwed } = await import("@/lib/credits/owed");

afterAll(async () => {
  await app.close();
  await sink.close();
});

const WELCOME = welcomeGrantCredits();
const credits = (n: number) => `${n.toLocaleString("en-US")} credits`;
// Every video of this file stays in flight: its hold is what the guest spent, and no capture moves a balance meanwhile.
const marker = uniqueMarker("claim-credits");
await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
const browser = () => browserFor(app.baseUrl);
const email = (name: string) => `${name}-${uniqueMarker("c").replace(/\W/g, "").toLowerCase()}@example.com`;
const page = async (b: Browser, path: string) => (await (await b(path)).text()).replaceAll("<!-- -->", "");
const submitAs = (b: Browser, prompt: string) =>
  b("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `${marker} ${prompt}`, duration: 2 } } });

/**
 * A guest that was welcomed, bought `bought` packs and made `videos` videos (their holds in flight), then signed in
 * to an account, welcomed on its own device first unless `accountWelcomed` is false.
 */
async function guestAndAccount(name: string, { videos = 1, bought = 0, accountWelcomed = true }: { videos?: number; bought?: number; accountWelcomed?: boolean } = {}) {
  const b = browser();
  await b("/");
  const guestId = b.guestId()!;
  await showCreditBalance({ ownerId: guestId, visitor: "test-address" });
  const pack = CREDIT_PACKS[0]!;
  for (let i = 0; i < bought; i++) {
    await creditPaidCheckout({ checkoutSessionId: `cs_test_${guestId}_${i}`, ownerId: guestId, packId: pack.id, credits: pack.credits, amountTotal: pack.unitAmount, currency: pack.currency, paymentIntentId: null });
  }
  for (let i = 0; i < videos; i++) expect((await submitAs(b, `${name} ${i}`)).status).toBe(201);
  // Signing in lands on /welcome, which welcomes the account; one never shown a page (its claim is its first
  // request) is made directly.
  const userId = accountWelcomed
    ? await signInByEmail({ app, sink, browser: b, email: email(name) })
    : (await prisma.user.create({ data: { id: `u-${uniqueMarker("new").replace(/\W/g, "")}`, name: "", email: email(name) } })).id;
  const owner = `user:${userId}`;
  if (accountWelcomed) await showCreditBalance({ ownerId: owner, visitor: "test-address" });
  return { b, guestId, userId, owner, boughtCredits: bought * pack.credits, guestBefore: await creditBalance(guestId), accountBefore: await creditBalance(owner) };
}

const claim = (guestId: string, userId: string) => claimGuest({ guestId, userId, visitor: "test-address" });
const takeBacks = (guestId: string) => prisma.creditEntry.count({ where: { idempotencyKey: `claim:welcome:${guestId}` } });

describe("keeping a guest's work", () => {
  test("costs the account nothing of its own: the guest's unspent welcome is not added again; the prompt and the history say so", async () => {
    const { b, guestId, userId, owner, guestBefore, accountBefore } = await guestAndAccount("partly-spent", { videos: 2 });
    expect(accountBefore).toBe(WELCOME);
    expect(guestBefore).toBeGreaterThan(0);
    expect(guestBefore).toBeLessThan(WELCOME);

    const prompt = await page(b, "/welcome");
    expect(prompt).toContain(`No credits come with them: the ${credits(guestBefore)} left of the welcome it got as a guest are not added, as an account is welcomed once`);
    expect(prompt).toContain("own credits stay as they are");

    await claim(guestId, userId);
    // "Keep them" leaves the account what "Not now" would (its welcome), with the guest's videos.
    expect(await creditBalance(owner)).toBe(accountBefore);
    expect(await creditBalance(guestId)).toBe(0);
    const history = await listCreditHistory({ ownerId: owner });
    expect(history.filter((e) => e.kind === "ADJUSTMENT")).toEqual([expect.objectContaining({ amount: -guestBefore, keptGuestWelcome: true })]);
    const shown = await page(b, "/credits");
    expect(shown).toContain("its unspent welcome credits are not added again (an account is welcomed once)");
    expect(shown).not.toContain("Adjusted by the operator");

    // Claimed again (a retried click): nothing moves, nothing is taken a second time.
    await claim(guestId, userId);
    expect(await creditBalance(owner)).toBe(accountBefore);
    expect(await takeBacks(guestId)).toBe(1);
  });

  test("an account not yet welcomed is welcomed by the claim: keeping never pays less than \"Not now\"", async () => {
    const { guestId, userId, owner, guestBefore, accountBefore } = await guestAndAccount("not-yet-welcomed", { videos: 1, accountWelcomed: false });
    expect(accountBefore).toBe(0);
    expect(guestBefore).toBeLessThan(WELCOME);
    await claim(guestId, userId);
    expect(await creditBalance(owner)).toBe(WELCOME);
    expect(await prisma.creditEntry.count({ where: { ownerId: owner, kind: "GRANT", idempotencyKey: `grant:welcome:${owner}` } })).toBe(1);
  });

  test("a guest that spent its whole grant gives nothing back: the account keeps every credit of its own", async () => {
    const { guestId, userId, owner, guestBefore, accountBefore } = await guestAndAccount("all-spent");
    // The rest of its welcome spent (an operator's take stands in for more videos).
    await adjustCredits({ ownerId: guestId, amount: -guestBefore, reason: "spent" });
    await claim(guestId, userId);
    expect(await creditBalance(owner)).toBe(accountBefore);
    expect(await takeBacks(guestId)).toBe(0);
  });

  test("bought credits always move whole; free credits count as spent first", async () => {
    const { b, guestId, userId, owner, guestBefore, accountBefore, boughtCredits } = await guestAndAccount("bought", { videos: 1, bought: 1 });
    const unspentWelcome = guestBefore - boughtCredits;
    expect(unspentWelcome).toBeGreaterThan(0);
    expect(unspentWelcome).toBeLessThan(WELCOME);
    expect(await page(b, "/welcome")).toContain(`${credits(boughtCredits)} of this browser come too: the ${credits(unspentWelcome)} left of the welcome it got as a guest are not added`);
    await claim(guestId, userId);
    expect(await creditBalance(owner)).toBe(accountBefore + boughtCredits);
  });

  test("three claims at once take back once; a claim racing a submission never costs the account its own credits", async () => {
    const { guestId, userId, owner, guestBefore, accountBefore } = await guestAndAccount("three-at-once");
    expect(guestBefore).toBeGreaterThan(0);
    const runs = await Promise.allSettled([1, 2, 3].map(() => claim(guestId, userId)));
    expect(runs.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    expect(await takeBacks(guestId)).toBe(1);
    expect(await creditBalance(owner)).toBe(accountBefore);

    // A guest's submission and its claim at once, in whichever order the database serializes them.
    for (let round = 0; round < 3; round++) {
      const racer = browser();
      await racer("/");
      const racingGuest = racer.guestId()!;
      await showCreditBalance({ ownerId: racingGuest, visitor: "test-address" });
      const [submitted] = await Promise.all([submitAs(racer, `racing ${round}`), claim(racingGuest, userId)]);
      expect([201, 402]).toContain(submitted.status);
      // Every hold sits with its generation's owner, and neither balance is below zero.
      const made = await prisma.generation.findMany({ where: { prompt: { endsWith: `racing ${round}` } }, select: { id: true, ownerId: true } });
      for (const generation of made) {
        const hold = await prisma.creditEntry.findFirst({ where: { kind: "HOLD", generationId: generation.id }, select: { ownerId: true } });
        expect(hold?.ownerId).toBe(generation.ownerId);
      }
      expect(await creditBalance(racingGuest)).toBeGreaterThanOrEqual(0);
      expect(await takeBacks(racingGuest)).toBeLessThanOrEqual(1);
      // The racing guest had only its welcome: whatever it spent moved with its videos, the rest is not added.
      expect(await creditBalance(owner)).toBe(accountBefore);
    }
  });

  test("an operator's grant to a guest already kept lands on the account, before, after or at the same time as the claim", async () => {
    for (const order of ["grant first", "claim first", "at once"] as const) {
      const { guestId, userId, owner, accountBefore, guestBefore } = await guestAndAccount(`granted-${order.replace(/ /g, "-")}`, { videos: 0, bought: 1 });
      const grant = () => adjustCredits({ ownerId: guestId, amount: 40, reason: "sorry for the outage", idempotencyKey: `outage-${guestId}` });
      if (order === "grant first") {
        expect((await grant()).applied).toBe(true);
        await claim(guestId, userId);
      } else if (order === "claim first") {
        await claim(guestId, userId);
        expect((await grant()).applied).toBe(true);
      } else {
        const [granted] = await Promise.all([grant(), claim(guestId, userId)]);
        expect(granted.applied).toBe(true);
      }
      // The same form submitted again changes nothing.
      expect((await grant()).applied).toBe(false);
      // The guest never spent: its whole welcome is not added, its pack and the operator's 40 are.
      expect(await creditBalance(owner), order).toBe(accountBefore + guestBefore - WELCOME + 40);
      expect(await creditBalance(guestId), order).toBe(0);
      expect(await prisma.creditEntry.count({ where: { idempotencyKey: `adjustment:outage-${guestId}`, ownerId: owner } }), order).toBe(1);
    }
  });
});

describe("keeping a guest whose videos hold its welcome credits", () => {
  // 480p at 0.1408 USD/s, markup 1.5, a credit $0.10: 5 s holds 11 credits.
  const HOLD_5S = 11;

  /** Starts `count` 5-second videos as `b`, each failing when the test settles it (`fail(i)`). */
  async function startFailingVideos(b: Browser, count: number) {
    const base = uniqueMarker("held");
    await app.simulator.scenario({ match: base, pendingMs: 600_000, outcome: "failure" });
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const response = await b("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `${base} v${i}.`, duration: 5 } } });
      expect(response.status).toBe(201);
      ids.push(((await response.json()) as { id: string }).id);
    }
    const fail = async (...which: number[]) => {
      for (const i of which) expect((await app.simulator.settle(`${base} v${i}.`)).settled).toBe(1);
      const failed = which.map((i) => ids[i]!);
      // Each failure's callback writes the video's FAILURE and its release in one write.
      await waitFor(
        async () => (await prisma.creditEntry.count({ where: { kind: "RELEASE", generationId: { in: failed } } })) === failed.length,
        60_000,
        `the releases of videos ${which.join(", ")}`,
      );
    };
    return { ids, fail };
  }

  /** A guest welcomed with the grant, that bought `bought` packs, with `videos` videos in flight; an account welcomed on its own. */
  async function heldGuest(name: string, { videos, bought = 0 }: { videos: number; bought?: number }) {
    const b = browser();
    await b("/");
    const guestId = b.guestId()!;
    await showCreditBalance({ ownerId: guestId, visitor: "test-address" });
    // A 100-credit pack (this suite's packs are larger).
    const pack = { ...CREDIT_PACKS[0]!, credits: 100 };
    for (let i = 0; i < bought; i++) {
      await creditPaidCheckout({ checkoutSessionId: `cs_test_${guestId}_${i}`, ownerId: guestId, packId: pack.id, credits: pack.credits, amountTotal: pack.unitAmount, currency: pack.currency, paymentIntentId: null });
    }
    const started = await startFailingVideos(b, videos);
    const userId = await signInByEmail({ app, sink, browser: b, email: email(name) });
    const owner = `user:${userId}`;
    await showCreditBalance({ ownerId: owner, visitor: "test-address" });
    expect(await creditBalance(owner)).toBe(WELCOME);
    return { b, guestId, userId, owner, boughtCredits: bought * pack.credits, ...started };
  }

  test("every video fails after the claim: the releases pay the welcome it held, and the account ends at its own welcome, not above", async () => {
    const { b, guestId, userId, owner, fail } = await heldGuest("held-then-failed", { videos: 2 });
    expect(await creditBalance(guestId)).toBe(WELCOME - 2 * HOLD_5S);

    await claim(guestId, userId);
    // Claimed again, and twice at once: nothing more is taken or owed.
    await Promise.all([claim(guestId, userId), claim(guestId, userId)]);
    expect(await creditBalance(owner)).toBe(WELCOME);

    await fail(0, 1);
    // "Keep them" ends where "Not now" would have: the account's own welcome, with the guest's videos.
    expect(await creditBalance(owner)).toBe(WELCOME);
    expect(await prisma.guestClaim.findUniqueOrThrow({ where: { guestId } })).toMatchObject({ welcomeOwed: 2 * HOLD_5S, heldBought: 0, heldReturned: 2 * HOLD_5S });
    expect(await prisma.creditEntry.count({ where: { idempotencyKey: { startsWith: `claim:welcome:${guestId}:` }, amount: -HOLD_5S } })).toBe(2);
    const shown = await page(b, "/credits");
    expect(shown).toContain("work: welcome credits its video held are not added again (an account is welcomed once), taken from a released hold");

    // A claim run again after the releases still takes nothing more.
    await claim(guestId, userId);
    expect(await creditBalance(owner)).toBe(WELCOME);
    expect(await takeBacks(guestId)).toBe(1);
  });

  test("one video fails before the claim, one after: the same end, whichever order", async () => {
    const { guestId, userId, owner, fail } = await heldGuest("failed-around-claim", { videos: 2 });
    await fail(0);
    expect(await creditBalance(guestId)).toBe(WELCOME - HOLD_5S);
    await claim(guestId, userId);
    expect(await creditBalance(owner)).toBe(WELCOME);
    await fail(1);
    expect(await creditBalance(owner)).toBe(WELCOME);
  });

  test("videos failing while the claim runs: the same end, in whichever order the database puts them", async () => {
    for (let round = 0; round < 3; round++) {
      const { guestId, userId, owner, ids, fail } = await heldGuest(`failing-during-claim-${round}`, { videos: 2 });
      await Promise.all([fail(0, 1), claim(guestId, userId)]);
      // Each release lands on the owner its generation has when it is written: wait for both on the account's side.
      await waitFor(async () => (await prisma.creditEntry.count({ where: { kind: "RELEASE", generationId: { in: ids }, ownerId: owner } })) === 2, 60_000, "the releases on the account");
      expect(await creditBalance(owner), `round ${round}`).toBe(WELCOME);
      expect(await creditBalance(guestId), `round ${round}`).toBe(0);
    }
  });

  test("a hold given back by the app itself (a task the gateway lost) pays it the same way", async () => {
    const { guestId, userId, owner, ids } = await heldGuest("lost-task", { videos: 2 });
    await claim(guestId, userId);
    for (const id of ids) expect(await releaseHoldOf({ id, where: { state: "PENDING" }, note: "the gateway lost the task" })).toBe(HOLD_5S);
    expect(await creditBalance(owner)).toBe(WELCOME);
    // Asked again: nothing more comes back, nothing more is taken.
    expect(await releaseHoldOf({ id: ids[0]!, where: { state: "PENDING" }, note: "the gateway lost the task" })).toBe(0);
    expect(await creditBalance(owner)).toBe(WELCOME);
  });

  test("the account also owes for a refunded pack: the guest's welcome its videos give back pays the claim, never the account's own debt", async () => {
    const { guestId, userId, owner, fail } = await heldGuest("claim-and-refund", { videos: 2 });
    const pack = { ...CREDIT_PACKS[0]!, credits: 100 };
    const paymentIntentId = `pi_test_${guestId}`;
    await creditPaidCheckout({ checkoutSessionId: `cs_test_${guestId}_account`, ownerId: owner, packId: pack.id, credits: pack.credits, amountTotal: pack.unitAmount, currency: pack.currency, paymentIntentId });
    await claim(guestId, userId);
    expect(await creditBalance(owner)).toBe(WELCOME + pack.credits);
    // The account spends all but 15, then its pack is refunded in full: 15 taken back, 85 owed.
    await adjustCredits({ ownerId: owner, amount: -(WELCOME + pack.credits - 15), reason: "spent" });
    expect(await refundCheckoutPayment({ paymentIntentId, amountRefunded: pack.unitAmount })).toMatchObject({ clawedBack: 15, owed: 85 });
    expect(await creditBalance(owner)).toBe(0);

    // The guest's videos fail: the 22 their holds give back are the guest's welcome, which the claim takes back;
    // none of it pays the account's debt for its refunded pack.
    await fail(0, 1);
    expect(await creditBalance(owner)).toBe(0);
    expect(await readCreditsOwed(prisma, owner)).toBe(85);
    expect(await prisma.guestClaim.findUniqueOrThrow({ where: { guestId } })).toMatchObject({ welcomeOwed: 2 * HOLD_5S, heldReturned: 2 * HOLD_5S });
    expect(await prisma.creditEntry.aggregate({ where: { idempotencyKey: { startsWith: `claim:welcome:${guestId}:` } }, _sum: { amount: true } })).toMatchObject({ _sum: { amount: -2 * HOLD_5S } });
  });

  test("bought credits the videos held come back first: a partial failure keeps them, all failing ends at the account's welcome and the pack", async () => {
    const { guestId, userId, owner, boughtCredits, fail } = await heldGuest("held-bought", { videos: 11, bought: 1 });
    const left = WELCOME + boughtCredits - 11 * HOLD_5S;
    expect(left).toBeGreaterThanOrEqual(0);
    expect(left).toBeLessThan(boughtCredits);
    await claim(guestId, userId);
    // Nothing of the welcome is left unspent yet: the guest's credits move whole.
    expect(await creditBalance(owner)).toBe(WELCOME + left);
    // Two fail: what comes back is bought credits the videos held, the account keeps them.
    await fail(0, 1);
    expect(await creditBalance(owner)).toBe(WELCOME + left + 2 * HOLD_5S);
    // The rest fail: the guest spent nothing, so its pack comes, its welcome does not.
    await fail(...[2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await creditBalance(owner)).toBe(WELCOME + boughtCredits);
  });
});
