import { describe, expect, test } from "vitest";
import { chargeCredits, CREDIT_PACKS, creditsForUsd, findCreditPack, formatPackPrice, gatewayChargeCredits, holdCredits, MAX_CHARGE_CREDITS } from "@/lib/credits/prices";
import { findModel, MODELS } from "@/lib/models/catalog";

describe("creditsForUsd (markup 1.5, a credit worth $0.10: rounded up to a whole credit)", () => {
  test.each([
    [0, 0],
    [-1, 0],
    // Exact in decimal, not in floating point: 1.0 × 1.5 ÷ 0.1 = 15.000000000000002.
    [1, 15],
    [0.2, 3],
    [0.704, 11], // 10.56
    [0.2816, 5], // 4.224
    [1.408, 22], // 21.12
    [0.0001, 1],
    [0.06666, 1], // 0.9999
    [0.066667, 2], // 1.000005
  ])("$%s → %s credits", (usd, credits) => {
    expect(creditsForUsd(usd)).toBe(credits);
    expect(Number.isInteger(creditsForUsd(usd))).toBe(true);
  });

  test("other pricing: the operator's markup and credit value", () => {
    expect(creditsForUsd(0.704, { markup: 1, creditValueUsd: 0.01 })).toBe(71); // 70.4
    expect(creditsForUsd(0.704, { markup: 2, creditValueUsd: 1 })).toBe(2); // 1.408
    expect(creditsForUsd(3, { markup: 1.1, creditValueUsd: 0.33 })).toBe(10); // exactly 10
  });

  test.each([NaN, Infinity, -Infinity])("refuses %s", (usd) => {
    expect(() => creditsForUsd(usd)).toThrow(RangeError);
  });

  test("refuses a markup or credit value that is not positive", () => {
    expect(() => creditsForUsd(1, { markup: 0, creditValueUsd: 0.1 })).toThrow(RangeError);
    expect(() => creditsForUsd(1, { markup: 1.5, creditValueUsd: 0 })).toThrow(RangeError);
  });
});

describe("holdCredits: what a submission holds and the form shows", () => {
  test.each([
    ["alpha-2.5-text-to-video-480p", undefined, 11],
    ["alpha-2.5-text-to-video-480p", 2, 5],
    ["alpha-2.5-text-to-video", 10, 22],
    ["delta-h3/reference-to-video", 10, 18], // 1.181 × 15 = 17.715
    // Pay-per-use: the assumed $0.15 per second.
    ["gamma/reference-to-video", 8, 18],
    ["beta-1-1/reference-to-video", undefined, 12], // 0.75 × 15 = 11.25
  ])("%s for %s s → %s", (id, seconds, credits) => {
    expect(holdCredits(findModel(id)!, seconds)).toBe(credits);
  });

  test("every model at every duration holds a positive whole number", () => {
    for (const model of MODELS) {
      for (let seconds = 2; seconds <= 15; seconds++) {
        const hold = holdCredits(model, seconds);
        expect(Number.isInteger(hold) && hold > 0, `${model.id} ${seconds}s`).toBe(true);
      }
    }
  });
});

describe("chargeCredits: a SUCCESS never costs more than its hold", () => {
  test.each([
    [0.704, 11, 11, false],
    [0.5, 11, 8, false], // 7.5
    [0, 11, 0, false],
    [2, 11, 11, true], // 30 credits of cost, captured at the hold
    [null, 11, 11, false], // the gateway did not say: the estimate
    [NaN, 11, 11, false],
  ])("gateway %s with a hold of %s → %s (over: %s)", (consumed, hold, charge, overHold) => {
    expect(chargeCredits(consumed, hold)).toEqual({ charge, overHold });
  });
});

describe("gatewayChargeCredits: the charge the outcome write takes fits a 32-bit column", () => {
  test.each([
    [0.704, 11],
    [0, 0],
    [null, null],
    [NaN, null],
    // Priced at 1.5e13 and 1.5e301 credits: past PostgreSQL's integer, whose write would fail on every retry.
    [1e12, MAX_CHARGE_CREDITS],
    [1e300, MAX_CHARGE_CREDITS],
  ])("gateway %s → %s", (consumed, charge) => {
    expect(gatewayChargeCredits(consumed)).toBe(charge);
  });

  test("the bound is PostgreSQL's largest integer", () => {
    expect(MAX_CHARGE_CREDITS).toBe(2 ** 31 - 1);
  });
});

describe("credit packs", () => {
  test("three packs, whole credits, prices in cents, each found by id", () => {
    expect(CREDIT_PACKS).toHaveLength(3);
    for (const pack of CREDIT_PACKS) {
      expect(Number.isInteger(pack.credits) && pack.credits > 0).toBe(true);
      expect(Number.isInteger(pack.unitAmount) && pack.unitAmount > 0).toBe(true);
      expect(findCreditPack(pack.id)).toBe(pack);
    }
    expect(findCreditPack("nope")).toBeUndefined();
  });

  test("larger packs never cost more per credit", () => {
    const perCredit = CREDIT_PACKS.map((p) => p.unitAmount / p.credits);
    expect([...perCredit].sort((a, b) => b - a)).toEqual(perCredit);
  });

  test("with the default markup every pack sells a credit above its gateway cost", () => {
    for (const pack of CREDIT_PACKS) {
      const usdPerCredit = pack.unitAmount / 100 / pack.credits;
      expect(usdPerCredit * holdCredits(findModel("alpha-2.5-text-to-video-480p")!, 5)).toBeGreaterThan(0.704);
    }
  });

  test.each([
    [{ unitAmount: 4_500, currency: "usd" }, "$45.00"],
    [{ unitAmount: 1_000, currency: "eur" }, "€10.00"],
    [{ unitAmount: 1_000, currency: "jpy" }, "¥1,000"],
  ])("formatPackPrice %o", (pack, label) => {
    expect(formatPackPrice(pack)).toBe(label);
  });
});
