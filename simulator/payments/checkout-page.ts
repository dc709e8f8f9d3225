// The hosted checkout page at a session's `url`: what the buyer sees instead
// of Stripe's. Pay completes the session paid; Decline shows the card error
// and keeps it open (Back returns to cancel_url, as Stripe's back link does);
// Pay later completes it unpaid, as a bank debit does, and the same page then
// settles it: Succeed or Fail. Each action redirects like Stripe (303).
import type http from "node:http";
import { escapeHtml, readText, redirect, type Reply } from "./http";
import { PaymentError, type PaymentStore, type Session } from "./store";

export async function handleCheckoutPage(store: PaymentStore, merchant: string, req: http.IncomingMessage, url: URL): Promise<Reply | null> {
  const match = url.pathname.match(/^\/c\/pay\/([^/]+)(?:\/(pay|decline|pay-later|succeed|fail))?$/);
  if (!match) return null;
  const id = decodeURIComponent(match[1]!);
  const action = match[2];
  const session = store.sessions.get(id);
  if (!session) return page(404, "Checkout not found", `<p>No checkout session <code>${escapeHtml(id)}</code> on this simulator (it keeps sessions in memory: a restart forgets them).</p>`);
  if (!action) {
    if (req.method !== "GET") return { status: 405, headers: { Allow: "GET" }, html: "Use GET." };
    return page(200, `Pay ${merchant}`, renderSession(store, session, merchant, url.searchParams.has("declined")));
  }
  if (req.method !== "POST") return { status: 405, headers: { Allow: "POST" }, html: "Use POST." };
  await readText(req);
  try {
    switch (action) {
      case "pay":
        return redirect(successUrl(store.pay(id)));
      case "pay-later":
        return redirect(successUrl(store.payLater(id)));
      case "decline":
        store.decline(id);
        return redirect(`/c/pay/${encodeURIComponent(id)}?declined=1`);
      case "succeed":
      case "fail":
        store.settle(id, action);
        return redirect(`/c/pay/${encodeURIComponent(id)}`);
    }
  } catch (error) {
    if (!(error instanceof PaymentError)) throw error;
    return page(409, "Checkout", `<p role="alert">${escapeHtml(error.message)}</p><p><a href="/c/pay/${encodeURIComponent(id)}">Back to this checkout</a></p>`);
  }
  return null;
}

/** A charge's receipt at its `receipt_url`, as Stripe hosts one: merchant, what was bought, paid and refunded. */
export function handleReceiptPage(store: PaymentStore, merchant: string, req: http.IncomingMessage, url: URL): Reply | null {
  const match = url.pathname.match(/^\/receipts\/([^/]+)$/);
  if (!match) return null;
  if (req.method !== "GET") return { status: 405, headers: { Allow: "GET" }, html: "Use GET." };
  const charge = store.charges.get(decodeURIComponent(match[1]!));
  if (!charge?.receipt_url) return page(404, "Receipt not found", "<p>No receipt for this charge on this simulator (it keeps charges in memory: a restart forgets them).</p>");
  const session = store.sessions.get(store.intentSessions.get(charge.payment_intent) ?? "");
  const items = (session?.line_items ?? [])
    .map((item) => `<li><span>${escapeHtml(item.name)}${item.quantity > 1 ? ` × ${item.quantity}` : ""}</span><span>${formatAmount(item.unit_amount * item.quantity, item.currency)}</span></li>`)
    .join("");
  const refunded = charge.amount_refunded > 0 ? `<p role="status">Refunded ${formatAmount(charge.amount_refunded, charge.currency)}.</p>` : "";
  const date = new Date(charge.created * 1000).toISOString().slice(0, 10);
  return page(
    200,
    `Receipt from ${merchant}`,
    `<p class="merchant">Amount paid</p><p class="total" aria-label="Amount paid">${formatAmount(charge.amount, charge.currency)}</p><ul class="items">${items}</ul>${refunded}<p class="note">Date paid ${date} · Receipt ${escapeHtml(charge.id)}</p>`,
  );
}

/** The simulator's front page: the sessions it holds, newest first, for a developer who wants to settle a "pay later". */
export function renderIndex(store: PaymentStore): Reply {
  const rows = [...store.sessions.values()]
    .reverse()
    .slice(0, 50)
    .map((s) => `<li><a href="/c/pay/${encodeURIComponent(s.id)}">${escapeHtml(s.line_items[0]?.name ?? s.id)}</a> · ${formatAmount(s.amount_total, s.currency)} · ${store.paymentState(s)}</li>`)
    .join("");
  return page(200, "Payments simulator", `<p>A local stand-in for Stripe: Checkout Sessions, a hosted checkout page and signed webhooks.</p>${rows ? `<ul>${rows}</ul>` : "<p>No checkout sessions yet.</p>"}`);
}

function renderSession(store: PaymentStore, session: Session, merchant: string, declined: boolean): string {
  const items = session.line_items
    .map((item) => `<li><span>${escapeHtml(item.name)}${item.quantity > 1 ? ` × ${item.quantity}` : ""}</span><span>${formatAmount(item.unit_amount * item.quantity, item.currency)}</span></li>`)
    .join("");
  const total = formatAmount(session.amount_total, session.currency);
  const back = session.cancel_url ? `<a class="back" href="${escapeHtml(session.cancel_url)}">← Back to ${escapeHtml(merchant)}</a>` : "";
  const action = (name: string, label: string, style = "") => `<form method="post" action="/c/pay/${encodeURIComponent(session.id)}/${name}"><button type="submit" class="${style}">${label}</button></form>`;
  const summary = `<p class="merchant">${escapeHtml(merchant)}</p><p class="total" aria-label="Total">${total}</p><ul class="items">${items}</ul>`;
  const state = store.paymentState(session);
  if (state === "open") {
    const alert = declined ? `<p role="alert" class="error">Your card was declined. Try again, or go back: nothing was charged.</p>` : "";
    return `${back}${summary}${alert}<div class="actions">${action("pay", "Pay", "primary")}${action("decline", "Decline")}${action("pay-later", "Pay later")}</div><p class="note">Test mode: no money moves. Pay later completes the checkout unpaid, like a bank debit; settle it from this page.</p>`;
  }
  if (state === "processing") {
    return `${summary}<p role="status">Payment processing. Settle it as the bank would:</p><div class="actions">${action("succeed", "Succeed", "primary")}${action("fail", "Fail")}</div><p><a href="${escapeHtml(successUrl(session))}">Return to ${escapeHtml(merchant)}</a></p>`;
  }
  const words = { paid: "Paid.", failed: "The payment failed.", expired: "This checkout expired." }[state];
  return `${summary}<p role="status">${words}</p><p><a href="${escapeHtml(state === "paid" ? successUrl(session) : (session.cancel_url ?? successUrl(session)))}">Return to ${escapeHtml(merchant)}</a></p>`;
}

const successUrl = (session: Session) => session.success_url.replace("{CHECKOUT_SESSION_ID}", encodeURIComponent(session.id));

function formatAmount(amount: number, currency: string): string {
  const format = new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return escapeHtml(format.format(amount / 10 ** digits));
}

function page(status: number, title: string, body: string): Reply {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${escapeHtml(title)}</title><style>
:root{color-scheme:light dark;font-family:ui-sans-serif,system-ui,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:start center;background:#f4f4f5;color:#18181b}
main{margin:3rem 1rem;width:min(26rem,100%);background:#fff;border-radius:1rem;padding:1.5rem;box-shadow:0 1px 3px #0002}
.badge{display:inline-block;font-size:.75rem;font-weight:600;background:#fef3c7;color:#78350f;border-radius:999px;padding:.1rem .6rem}
.merchant{color:#52525b;margin:.75rem 0 0}.total{font-size:2rem;font-weight:700;margin:.25rem 0 1rem}
.items{list-style:none;padding:0;margin:0 0 1rem;border-top:1px solid #e4e4e7}.items li{display:flex;justify-content:space-between;padding:.5rem 0;border-bottom:1px solid #e4e4e7}
.actions{display:grid;gap:.5rem}button{width:100%;font:inherit;font-weight:600;padding:.7rem;border-radius:.5rem;border:1px solid #d4d4d8;background:#fff;color:#18181b;cursor:pointer}
button.primary{background:#4f46e5;border-color:#4f46e5;color:#fff}button:focus-visible,a:focus-visible{outline:2px solid #4f46e5;outline-offset:2px}
.error{background:#fef2f2;color:#991b1b;border-radius:.5rem;padding:.6rem .8rem}.note{font-size:.8rem;color:#52525b}.back{font-size:.9rem;color:#4338ca}
@media (prefers-color-scheme:dark){body{background:#09090b;color:#f4f4f5}main{background:#18181b}.merchant,.note{color:#a1a1aa}button{background:#27272a;color:#f4f4f5;border-color:#3f3f46}.items,.items li{border-color:#3f3f46}.error{background:#450a0a;color:#fecaca}.back{color:#a5b4fc}}
</style></head><body><main><span class="badge">Payments simulator · test mode</span><h1 style="font-size:1.1rem;margin:.75rem 0 0">${escapeHtml(title)}</h1>${body}</main></body></html>`;
  return { status, html, headers: { "Cache-Control": "no-store" } };
}
