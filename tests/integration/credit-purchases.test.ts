// Credits bought with a payment (lib/credits/purchases.ts) on the engine under
// test: a paid Checkout Session credits its owner once whatever the webhook's
// retries, order or concurrency; a refund claws back its share once per
// cumulative figure, at most what is left, and records the rest as owed.
import { randomUUID } from "node:crypto";
import { createClient } from "@libsql/client";
import { describe, expect, test } from "vitest";
import { testEngine } from "../support/test-database";

const { prisma } = await import("@/lib/db");
const { creditPaidCheckout, refundCheckoutPayment, PaymentRefusedError, refundedCredits } = await import("@/lib/credits/purchases");
const { creditBalance } = await import("@/lib/credits/balance");

/** A paid session for a fresh owner: the 500-credit pack at its price. */
function paidCreator(overrides: Partial<Omit<Parameters<typeof creditPaidCheckout>[0], "paymentIntentId">> = {}) {
  const id = randomUUID();
  return {
    checkoutSessionId: `cs_test_${id}`,
    ownerId: `buyer-${id}`,
    packId: "creator",
    credits: 500,
    amountTotal: 4_500,
    currency: "usd",
    paymentIntentId: `pi_${id}`,
    ...overrides,
  };
}

const ledgerOf = async (ownerId: string) =>
  (await prisma.creditEntry.findMany({ where: { ownerId }, orderBy: { id: "asc" } })).map((e) => [e.kind, e.amount, e.idempotencyKey]);

/** Credits spent elsewhere, as a captured generation leaves them: a hold and its capture. */
async function spend(ownerId: string, credits: number) {
  const generationId = `spent-${randomUUID()}`;
  await prisma.creditEntry.create({ data: { ownerId, kind: "HOLD", amount: -credits, idempotencyKey: `hold:${generationId}`, generationId } });
  await prisma.creditEntry.create({ data: { ownerId, kind: "CAPTURE", amount: 0, idempotencyKey: `capture:${generationId}`, generationId, settles: generationId } });
}

describe(`buying credits (${testEngine()})`, () => {
  test("a paid session credits once; five more deliveries of it change nothing", async () => {
    const paid = paidCreator();
    expect(await creditPaidCheckout(paid)).toEqual({ credited: true, balance: 500 });
    for (let i = 0; i < 5; i++) expect(await creditPaidCheckout(paid)).toEqual({ credited: false, balance: 500 });

    expect(await ledgerOf(paid.ownerId)).toEqual([["PURCHASE", 500, `purchase:${paid.checkoutSessionId}`]]);
    expect(await prisma.purchase.findUniqueOrThrow({ where: { checkoutSessionId: paid.checkoutSessionId } })).toMatchObject({
      ownerId: paid.ownerId,
      packId: "creator",
      credits: 500,
      amountTotal: 4_500,
      currency: "usd",
      paymentIntentId: paid.paymentIntentId,
      status: "PAID",
      amountRefunded: 0,
      creditsClawedBack: 0,
      creditsOwed: 0,
    });
  });

  test("ten concurrent deliveries of one session: one purchase, one ledger row, one credit", async () => {
    const paid = paidCreator();
    const results = await Promise.all(Array.from({ length: 10 }, () => creditPaidCheckout(paid)));
    expect(results.filter((r) => r.credited)).toHaveLength(1);
    expect(results.map((r) => r.balance)).toEqual(Array(10).fill(500));
    expect(await prisma.purchase.count({ where: { ownerId: paid.ownerId } })).toBe(1);
    expect(await ledgerOf(paid.ownerId)).toEqual([["PURCHASE", 500, `purchase:${paid.checkoutSessionId}`]]);
    expect(await creditBalance(paid.ownerId)).toBe(500);
  });

  test("two sessions of one owner add up; the larger pack's credits", async () => {
    const first = paidCreator();
    const second = paidCreator({ ownerId: first.ownerId, packId: "studio", credits: 1_200, amountTotal: 9_900 });
    await creditPaidCheckout(first);
    expect(await creditPaidCheckout(second)).toEqual({ credited: true, balance: 1_700 });
  });

  test("taxes on top of the price are accepted; the credits are the pack's", async () => {
    const paid = paidCreator({ amountTotal: 4_950, currency: "USD" });
    expect(await creditPaidCheckout(paid)).toEqual({ credited: true, balance: 500 });
  });

  test.each([
    ["unknown_pack", { packId: "mega" }],
    ["pack_mismatch", { credits: 5_000 }],
    ["amount_mismatch", { amountTotal: 450 }],
    ["currency_mismatch", { currency: "eur" }],
    ["invalid_figure", { credits: Number.NaN }],
    ["invalid_figure", { credits: -500 }],
    ["invalid_figure", { credits: 0 }],
    ["invalid_figure", { amountTotal: -4_500 }],
    ["invalid_figure", { amountTotal: 45.5 }],
  ] as const)("refused (%s): %o, and nothing is written", async (reason, overrides) => {
    const paid = paidCreator(overrides);
    const refused = await creditPaidCheckout(paid).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PaymentRefusedError);
    expect((refused as InstanceType<typeof PaymentRefusedError>).reason).toBe(reason);
    expect(await prisma.purchase.count({ where: { checkoutSessionId: paid.checkoutSessionId } })).toBe(0);
    expect(await ledgerOf(paid.ownerId)).toEqual([]);
  });
});

describe(`refunds (${testEngine()})`, () => {
  test("partial, then full, then a stale smaller figure and a duplicate: the share is clawed back once", async () => {
    const paid = paidCreator();
    await creditPaidCheckout(paid);
    const pi = paid.paymentIntentId;

    // A third of 4,500 cents: 166.67 credits, rounded up.
    expect(await refundCheckoutPayment({ paymentIntentId: pi, amountRefunded: 1_500 })).toEqual({ known: true, clawedBack: 167, owed: 0 });
    expect(await creditBalance(paid.ownerId)).toBe(333);
    expect(await prisma.purchase.findUniqueOrThrow({ where: { checkoutSessionId: paid.checkoutSessionId } })).toMatchObject({
      status: "PARTIALLY_REFUNDED",
      amountRefunded: 1_500,
      creditsClawedBack: 167,
    });

    expect(await refundCheckoutPayment({ paymentIntentId: pi, amountRefunded: 4_500 })).toEqual({ known: true, clawedBack: 333, owed: 0 });
    // Out of order (the partial refund's event after the full one's) and a duplicate: nothing.
    expect(await refundCheckoutPayment({ paymentIntentId: pi, amountRefunded: 1_500 })).toEqual({ known: true, clawedBack: 0, owed: 0 });
    expect(await refundCheckoutPayment({ paymentIntentId: pi, amountRefunded: 4_500 })).toEqual({ known: true, clawedBack: 0, owed: 0 });

    expect(await creditBalance(paid.ownerId)).toBe(0);
    expect(await ledgerOf(paid.ownerId)).toEqual([
      ["PURCHASE", 500, `purchase:${paid.checkoutSessionId}`],
      ["REFUND", -167, `refund:${pi}:1500`],
      ["REFUND", -333, `refund:${pi}:4500`],
    ]);
    expect(await prisma.purchase.findUniqueOrThrow({ where: { checkoutSessionId: paid.checkoutSessionId } })).toMatchObject({
      status: "REFUNDED",
      amountRefunded: 4_500,
      creditsClawedBack: 500,
      creditsOwed: 0,
    });
  });

  test("a refund after the credits were spent takes what is left and records the rest as owed", async () => {
    const paid = paidCreator();
    await creditPaidCheckout(paid);
    await spend(paid.ownerId, 420);

    expect(await refundCheckoutPayment({ paymentIntentId: paid.paymentIntentId, amountRefunded: 4_500 })).toEqual({ known: true, clawedBack: 80, owed: 420 });
    expect(await creditBalance(paid.ownerId)).toBe(0);
    expect(await prisma.purchase.findUniqueOrThrow({ where: { checkoutSessionId: paid.checkoutSessionId } })).toMatchObject({
      status: "REFUNDED",
      creditsClawedBack: 80,
      creditsOwed: 420,
    });
    expect((await ledgerOf(paid.ownerId)).at(-1)).toEqual(["REFUND", -80, `refund:${paid.paymentIntentId}:4500`]);
  });

  test("a refund before its payment was credited: remembered, then applied by the crediting", async () => {
    const paid = paidCreator();
    expect(await refundCheckoutPayment({ paymentIntentId: paid.paymentIntentId, amountRefunded: 2_250 })).toEqual({ known: false, clawedBack: 0, owed: 0 });
    expect(await prisma.pendingRefund.findUnique({ where: { paymentIntentId: paid.paymentIntentId } })).toMatchObject({ amountRefunded: 2_250 });
    expect(await ledgerOf(paid.ownerId)).toEqual([]);

    expect(await creditPaidCheckout(paid)).toEqual({ credited: true, balance: 250 });
    // Its deliveries again: still once.
    expect(await creditPaidCheckout(paid)).toEqual({ credited: false, balance: 250 });
    expect(await ledgerOf(paid.ownerId)).toEqual([
      ["PURCHASE", 500, `purchase:${paid.checkoutSessionId}`],
      ["REFUND", -250, `refund:${paid.paymentIntentId}:2250`],
    ]);
  });

  test("concurrent refund events of one payment, in any order: the largest figure's share, taken once", async () => {
    const paid = paidCreator();
    await creditPaidCheckout(paid);
    const figures = [900, 4_500, 1_800, 4_500, 2_700, 900, 3_600];
    await Promise.all(figures.map((amountRefunded) => refundCheckoutPayment({ paymentIntentId: paid.paymentIntentId, amountRefunded })));
    expect(await creditBalance(paid.ownerId)).toBe(0);
    const purchase = await prisma.purchase.findUniqueOrThrow({ where: { checkoutSessionId: paid.checkoutSessionId } });
    expect(purchase).toMatchObject({ status: "REFUNDED", amountRefunded: 4_500, creditsClawedBack: 500, creditsOwed: 0 });
    const refunds = await prisma.creditEntry.findMany({ where: { ownerId: paid.ownerId, kind: "REFUND" } });
    expect(refunds.reduce((sum, r) => sum + r.amount, 0)).toBe(-500);
    expect(new Set(refunds.map((r) => r.idempotencyKey)).size).toBe(refunds.length);
  });

  // SQLite's write lock makes the interleaving certain: the refund has read the purchase and waits to write while the claim moves it.
  test.skipIf(testEngine() !== "sqlite")("a refund whose purchase a guest → account claim moves while it waits: claws back from the account, under the account's lock", async () => {
    const paid = paidCreator();
    await creditPaidCheckout(paid);
    const account = `user:${randomUUID()}`;
    const claim = createClient({ url: process.env.DATABASE_URL! });
    await claim.execute("BEGIN IMMEDIATE");
    const refund = refundCheckoutPayment({ paymentIntentId: paid.paymentIntentId, amountRefunded: 4_500 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      // What the claim moves (lib/viewer/claim-guest.ts), committed while the refund waits.
      await claim.execute({ sql: `UPDATE "Purchase" SET "ownerId" = ? WHERE "ownerId" = ?`, args: [account, paid.ownerId] });
      await claim.execute({ sql: `UPDATE "CreditEntry" SET "ownerId" = ? WHERE "ownerId" = ?`, args: [account, paid.ownerId] });
      await claim.execute("COMMIT");
    } finally {
      claim.close();
    }
    expect(await refund).toEqual({ known: true, clawedBack: 500, owed: 0 });
    expect((await ledgerOf(account)).map(([kind, amount]) => [kind, amount])).toEqual([
      ["PURCHASE", 500],
      ["REFUND", -500],
    ]);
    expect(await ledgerOf(paid.ownerId)).toEqual([]);
    // The account's credit lock row was written by the refund's transaction: its clawback was sized under it.
    expect(await prisma.creditLock.findUnique({ where: { ownerId: account } })).not.toBeNull();
  });

  test("a refund of a payment that is not a credit purchase changes no ledger", async () => {
    expect(await refundCheckoutPayment({ paymentIntentId: `pi_${randomUUID()}`, amountRefunded: 100 })).toEqual({ known: false, clawedBack: 0, owed: 0 });
  });

  test.each([Number.NaN, -1, 1.5])("a refunded figure of %s is refused", async (amountRefunded) => {
    await expect(refundCheckoutPayment({ paymentIntentId: "pi_x", amountRefunded })).rejects.toBeInstanceOf(PaymentRefusedError);
  });

  test.each([
    [500, 1_500, 4_500, 167],
    [500, 4_500, 4_500, 500],
    [100, 1, 1_000, 1],
    [1_200, 0, 9_900, 0],
  ])("refundedCredits(%s credits, %s of %s) = %s", (credits, refunded, total, expected) => {
    expect(refundedCredits(credits, refunded, total)).toBe(expected);
  });
});
