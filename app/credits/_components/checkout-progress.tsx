"use client";
// What the success page says about a checkout. While the payment waits for
// Stripe's webhook the page listens on the tab's live stream: the moment the
// webhook credits the purchase, the stream says "your credits changed" and the
// page re-reads itself (the server asks the ledger), the header's balance too.
// Without a live stream (refused, blocked) it re-reads on a short beat for a
// couple of minutes, then on a slow one; with one, only on the slow beat, as a
// safety net.
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { mutate } from "swr";
import type { CheckoutStatus } from "@/lib/payments/checkout-status";
import { waitWords } from "@/lib/payments/wait-words";
import { CREDITS_KEY } from "@/app/_components/client-data";
import { useGenerationEvents } from "@/app/_components/use-generation-events";
import { formatCreditCount, Notice } from "./credits-ui";
import { ReceiptLink } from "./receipt-link";

/** A card payment's webhook usually lands within seconds. */
const FAST_MS = 2_000;
const FAST_FOR_MS = 2 * 60_000;
/** A bank debit clears in days, and a live stream may miss a beat: a slow re-read while the tab stays open. */
const SLOW_MS = 30_000;

export function CheckoutProgress({ status, sessionId }: { status: CheckoutStatus; sessionId: string }) {
  const router = useRouter();
  // Limited (too many reads from this network): it reads again, on the slow beat, once the window allows.
  const waiting = status.state === "processing" || status.state === "awaiting_payment" || status.state === "rate_limited";
  // The stream's first open (the page was rendered before it) and any gap may have missed the credit: read again.
  const live = useGenerationEvents({
    onCredits: () => waiting && router.refresh(),
    onResync: () => waiting && router.refresh(),
  });
  // The header's balance is the same figure: it moves with this page.
  useEffect(() => {
    if (status.state === "credited") void mutate(CREDITS_KEY);
  }, [status.state]);
  useEffect(() => {
    if (!waiting) return;
    const started = Date.now();
    let timer: ReturnType<typeof setTimeout>;
    const tick = () => {
      const fast = live !== "live" && status.state === "processing" && Date.now() - started < FAST_FOR_MS;
      timer = setTimeout(() => {
        if (document.visibilityState === "visible") router.refresh();
        tick();
      }, fast ? FAST_MS : SLOW_MS);
    };
    tick();
    return () => clearTimeout(timer);
  }, [waiting, status.state, router, live]);

  switch (status.state) {
    case "credited":
      return (
        <Notice tone="success">
          <strong className="font-semibold">Payment received.</strong> {formatCreditCount(status.credits)} ({status.packName}) added to your balance.{" "}
          <ReceiptLink sessionId={sessionId} className="font-medium underline" />
        </Notice>
      );
    case "processing":
      return (
        <Notice tone="info">
          <p className="flex items-center gap-2">
            <span aria-hidden className="size-3 animate-spin rounded-full border-2 border-current border-t-transparent motion-reduce:animate-none" />
            <strong className="font-semibold">Processing your payment…</strong>
          </p>
          <p className="mt-1">
            Your payment went through. {formatCreditCount(status.credits)} will be added as soon as Stripe confirms it, usually within seconds.
          </p>
        </Notice>
      );
    case "awaiting_payment":
      return (
        <Notice tone="info">
          <strong className="font-semibold">Processing your payment…</strong> Your bank payment is still clearing, which can take a few days.{" "}
          {formatCreditCount(status.credits)} will be added when it clears; you can leave this page.
        </Notice>
      );
    case "failed":
      return (
        <Notice tone="error" role="alert">
          <strong className="font-semibold">The payment failed.</strong> Nothing was charged and no credits were added. You can try again with
          another payment method.
        </Notice>
      );
    case "open":
      return (
        <Notice tone="warn">
          <strong className="font-semibold">This checkout has not been paid.</strong>{" "}
          {status.checkoutUrl ? (
            <a href={status.checkoutUrl} className="font-medium underline">
              Continue to payment
            </a>
          ) : null}
        </Notice>
      );
    case "expired":
      return (
        <Notice tone="warn">
          <strong className="font-semibold">This checkout expired</strong> before it was paid. Nothing was charged.
        </Notice>
      );
    case "unavailable":
      return (
        <Notice tone="warn">
          <strong className="font-semibold">We can’t check this payment right now.</strong> If you paid, your credits are added as soon as the
          payment is confirmed.
        </Notice>
      );
    case "rate_limited":
      return (
        <Notice tone="warn" role="status">
          <strong className="font-semibold">Too many payment checks from your network.</strong> This page checks again in{" "}
          {waitWords(status.retryAfterSeconds)}. If you paid, your credits are added as soon as the payment is confirmed, whether or not this
          page is open.
        </Notice>
      );
    case "not_found":
      return (
        <Notice tone="warn">
          <strong className="font-semibold">We couldn’t find this checkout.</strong> It may belong to another browser or account.
        </Notice>
      );
  }
}
