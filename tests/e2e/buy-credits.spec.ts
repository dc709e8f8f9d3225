// Buying credits as a guest, in a real browser: the credits page, the payments
// simulator's hosted checkout (in place of Stripe's), the success page saying
// "Processing…" while the webhook has not landed, then the new balance
// without a reload; and a declined card that returns with nothing charged.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { PaymentsControl } from "../support/payments-simulator";
import { PAYMENTS_SIMULATOR_URL } from "../../playwright.config";

const payments = new PaymentsControl(PAYMENTS_SIMULATOR_URL);

async function openCredits(page: Page) {
  await page.goto("/credits");
  await expect(page.getByRole("heading", { name: "Credits", level: 1 })).toBeVisible();
  return Number((await page.getByTestId("credit-balance").textContent())!.replace(/[^\d]/g, ""));
}

/** Clicks a pack's Buy button and waits for the simulator's hosted page; returns the session id. */
async function buy(page: Page, pack: string) {
  await page.getByRole("button", { name: `Buy ${pack}` }).click();
  await page.waitForURL(`${PAYMENTS_SIMULATOR_URL}/c/pay/**`);
  await expect(page.getByRole("button", { name: "Pay", exact: true })).toBeVisible();
  return new URL(page.url()).pathname.split("/").pop()!;
}

test("a guest buys a pack: Processing… until the webhook lands, then the new balance", async ({ page }, testInfo) => {
  const before = await openCredits(page);
  await page.screenshot({ path: testInfo.outputPath("credits.png"), fullPage: true });
  const sessionId = await buy(page, "Starter");
  // The webhook waits until the success page has said it is processing.
  await payments.rule({ session: sessionId, hold: true });
  await page.screenshot({ path: testInfo.outputPath("hosted-checkout.png"), fullPage: true });
  await page.getByRole("button", { name: "Pay", exact: true }).click();

  await page.waitForURL(/\/credits\/success\?session_id=cs_test_/);
  await expect(page.getByText("Processing your payment…")).toBeVisible();
  await expect(page.getByTestId("credit-balance")).toHaveText(`${before.toLocaleString("en-US")} credits`);
  await page.screenshot({ path: testInfo.outputPath("success-processing.png"), fullPage: true });

  await payments.release("emitted", sessionId);
  await expect(page.getByText("Payment received.")).toBeVisible();
  await expect(page.getByTestId("credit-balance")).toHaveText(`${(before + 100).toLocaleString("en-US")} credits`);
  await expect(page.getByText("Processing your payment…")).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("success-credited.png"), fullPage: true });

  // The success page links the receipt, the one the payments simulator (Stripe) hosts for the charge, in a new tab.
  const fromSuccess = page.context().waitForEvent("page");
  await page.getByRole("link", { name: /^Receipt/ }).click();
  const receiptTab = await fromSuccess;
  await receiptTab.waitForURL(`${PAYMENTS_SIMULATOR_URL}/receipts/**`);
  await expect(receiptTab.getByLabel("Amount paid")).toHaveText("$10.00");
  await receiptTab.screenshot({ path: testInfo.outputPath("receipt.png"), fullPage: true });
  await receiptTab.close();
  await expect(page).toHaveURL(/\/credits\/success\?session_id=/);

  // The history lists the purchase, with the same receipt, in a new tab too.
  await page.goto("/credits");
  const purchase = page.getByTestId("credit-history-row").filter({ hasText: "Bought:" }).first();
  await expect(purchase).toContainText("+100");
  const fromHistory = page.context().waitForEvent("page");
  await purchase.getByRole("link", { name: /^Receipt/ }).click();
  const historyTab = await fromHistory;
  await historyTab.waitForURL(`${PAYMENTS_SIMULATOR_URL}/receipts/**`);
  await expect(historyTab.getByLabel("Amount paid")).toHaveText("$10.00");
  await historyTab.close();
});

test("a declined card: the hosted page says so, Back returns to /credits, nothing charged", async ({ page }, testInfo) => {
  const before = await openCredits(page);
  await buy(page, "Creator");
  await page.getByRole("button", { name: "Decline" }).click();
  await expect(page.getByRole("alert")).toContainText("Your card was declined");
  await page.getByRole("link", { name: /Back to/ }).click();

  await page.waitForURL(/\/credits\?checkout=cancelled$/);
  await expect(page.getByRole("status").filter({ hasText: "Checkout cancelled." })).toContainText("Nothing was charged");
  await expect(page.getByTestId("credit-balance")).toHaveText(`${before.toLocaleString("en-US")} credits`);
  await page.screenshot({ path: testInfo.outputPath("credits-cancelled.png"), fullPage: true });
});
