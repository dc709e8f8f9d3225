// The part of Stripe's API the kit uses: Checkout Sessions (create, retrieve,
// list), refunds, PaymentIntents and Charges (retrieve), form-encoded like Stripe, with Bearer
// (or Basic, as curl -u sends it) auth by any test-mode secret key.
import type http from "node:http";
import { list, object, parseStripeForm, text, type FormObject } from "./form";
import { readText, RequestError, stripeError, type Reply } from "./http";
import { PaymentError, type LineItem, type PaymentStore } from "./store";

const TEST_KEY = /^(sk|rk)_test_[A-Za-z0-9_]+$/;

export class IdempotencyCache {
  private replies = new Map<string, { reply: Reply; at: number }>();
  get(key: string) {
    return this.replies.get(key)?.reply;
  }
  set(key: string, reply: Reply) {
    this.replies.set(key, { reply, at: Date.now() });
    if (this.replies.size > 5_000) this.replies.delete(this.replies.keys().next().value!);
  }
  clear() {
    this.replies.clear();
  }
}

export async function handleApi(store: PaymentStore, idempotency: IdempotencyCache, req: http.IncomingMessage, pathname: string): Promise<Reply> {
  const key = apiKeyOf(req.headers.authorization);
  if (!key) {
    return stripeError(401, "api_key_invalid", "Invalid API Key provided. The payments simulator takes any test-mode secret key (sk_test_…).");
  }
  const replayKey = req.method === "POST" ? req.headers["idempotency-key"] : undefined;
  const cacheKey = typeof replayKey === "string" && replayKey ? `${key}:${pathname}:${replayKey}` : undefined;
  const cached = cacheKey ? idempotency.get(cacheKey) : undefined;
  if (cached) return { ...cached, headers: { ...cached.headers, "Idempotent-Replayed": "true" } };
  let reply: Reply;
  try {
    reply = await route(store, req, pathname);
  } catch (error) {
    if (error instanceof RequestError) reply = stripeError(error.status, error.code, error.message, error.param);
    else throw error;
  }
  if (cacheKey && reply.status < 500) idempotency.set(cacheKey, reply);
  return reply;
}

async function route(store: PaymentStore, req: http.IncomingMessage, pathname: string): Promise<Reply> {
  const method = req.method ?? "GET";
  const session = pathname.match(/^\/v1\/checkout\/sessions\/([^/]+)$/);
  const intent = pathname.match(/^\/v1\/payment_intents\/([^/]+)$/);
  const charge = pathname.match(/^\/v1\/charges\/([^/]+)$/);
  if (pathname === "/v1/checkout/sessions" && method === "POST") return { status: 200, body: store.view(createSession(store, parseStripeForm(await readText(req)))) };
  if (pathname === "/v1/checkout/sessions" && method === "GET") return { status: 200, body: listSessions(store, new URL(req.url ?? "/", "http://x").searchParams) };
  if (session && method === "GET") {
    const found = store.view(store.session(decodeURIComponent(session[1]!)));
    // ?expand[]=payment_intent (or payment_intent.latest_charge), as Stripe's expand: the object in place of its id.
    const expand = list(parseStripeForm(new URL(req.url ?? "/", "http://x").search.slice(1)).expand);
    const withCharge = expand.includes("payment_intent.latest_charge");
    const intent = (withCharge || expand.includes("payment_intent")) && found.payment_intent ? store.intents.get(found.payment_intent) : undefined;
    if (!intent) return { status: 200, body: found };
    const latestCharge = withCharge && intent.latest_charge ? (store.charges.get(intent.latest_charge) ?? intent.latest_charge) : intent.latest_charge;
    return { status: 200, body: { ...found, payment_intent: { ...intent, latest_charge: latestCharge } } };
  }
  if (charge && method === "GET") {
    const found = store.charges.get(decodeURIComponent(charge[1]!));
    if (!found) throw new PaymentError(404, "resource_missing", `No such charge: '${charge[1]}'`, "id");
    return { status: 200, body: found };
  }
  if (intent && method === "GET") {
    const found = store.intents.get(decodeURIComponent(intent[1]!));
    if (!found) throw new PaymentError(404, "resource_missing", `No such payment_intent: '${intent[1]}'`, "id");
    return { status: 200, body: found };
  }
  if (pathname === "/v1/refunds" && method === "POST") {
    const form = parseStripeForm(await readText(req));
    const amount = text(form.amount);
    const paymentIntent = text(form.payment_intent) ?? chargeIntent(store, text(form.charge));
    if (!paymentIntent) throw new RequestError(400, "parameter_missing", "Missing required param: payment_intent.", "payment_intent");
    return { status: 200, body: store.refund({ paymentIntent, amount: amount === undefined ? undefined : integer(amount, "amount") }) };
  }
  return stripeError(404, "resource_missing", `Unrecognized request URL (${method}: ${pathname}). The payments simulator serves Checkout Sessions, refunds, PaymentIntents and Charges.`);
}

function createSession(store: PaymentStore, form: FormObject) {
  const mode = text(form.mode);
  if (mode !== "payment") throw new RequestError(400, "parameter_invalid", "The payments simulator supports mode=payment only.", "mode");
  const successUrl = absoluteUrl(text(form.success_url), "success_url");
  const cancelUrl = form.cancel_url === undefined ? null : absoluteUrl(text(form.cancel_url), "cancel_url");
  const items = list(form.line_items).map((raw, i): LineItem => {
    const item = object(raw);
    if (item.price !== undefined) throw new RequestError(400, "parameter_unknown", "The payments simulator takes line_items[].price_data, not Price ids.", `line_items[${i}][price]`);
    const price = object(item.price_data);
    const currency = text(price.currency)?.toLowerCase();
    if (!currency || !/^[a-z]{3}$/.test(currency)) throw new RequestError(400, "parameter_missing", "Missing required param: currency.", `line_items[${i}][price_data][currency]`);
    const name = text(object(price.product_data).name);
    if (!name) throw new RequestError(400, "parameter_missing", "Missing required param: product_data[name].", `line_items[${i}][price_data][product_data][name]`);
    return {
      name,
      currency,
      unit_amount: integer(text(price.unit_amount), `line_items[${i}][price_data][unit_amount]`),
      quantity: integer(text(item.quantity), `line_items[${i}][quantity]`, 1),
    };
  });
  if (items.length === 0) throw new RequestError(400, "parameter_missing", "Missing required param: line_items.", "line_items");
  if (new Set(items.map((i) => i.currency)).size > 1) throw new RequestError(400, "parameter_invalid", "All line items must have the same currency.", "line_items");
  const metadata = object(form.metadata);
  const entries = Object.entries(metadata);
  if (entries.length > 50 || entries.some(([k, v]) => typeof v !== "string" || k.length > 40 || v.length > 500)) {
    throw new RequestError(400, "parameter_invalid", "Metadata takes up to 50 keys of up to 40 characters, with string values of up to 500.", "metadata");
  }
  const reference = text(form.client_reference_id) ?? null;
  if (reference !== null && reference.length > 200) throw new RequestError(400, "parameter_invalid", "client_reference_id is longer than 200 characters.", "client_reference_id");
  return store.createSession({
    cancel_url: cancelUrl,
    success_url: successUrl,
    client_reference_id: reference,
    currency: items[0]!.currency,
    metadata: metadata as Record<string, string>,
    mode: "payment",
    line_items: items,
  });
}

function listSessions(store: PaymentStore, params: URLSearchParams) {
  const limit = Math.min(100, Math.max(1, Number(params.get("limit")) || 10));
  const all = [...store.sessions.values()].reverse();
  return { object: "list", url: "/v1/checkout/sessions", has_more: all.length > limit, data: all.slice(0, limit).map((s) => store.view(s)) };
}

function chargeIntent(store: PaymentStore, chargeId: string | undefined): string | undefined {
  if (!chargeId) return undefined;
  const charge = store.charges.get(chargeId);
  if (!charge) throw new PaymentError(404, "resource_missing", `No such charge: '${chargeId}'`, "charge");
  return charge.payment_intent;
}

function integer(value: string | undefined, param: string, min = 0): number {
  const n = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new RequestError(400, "parameter_invalid_integer", `Invalid integer: ${value ?? "(missing)"}`, param);
  return n;
}

function absoluteUrl(value: string | undefined, param: string): string {
  if (!value) throw new RequestError(400, "parameter_missing", `Missing required param: ${param}.`, param);
  try {
    const url = new URL(value.replace("{CHECKOUT_SESSION_ID}", "x"));
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
  } catch {
    throw new RequestError(400, "url_invalid", `Not a valid URL: ${param}.`, param);
  }
  return value;
}

function apiKeyOf(header: string | undefined): string | null {
  if (!header) return null;
  let key: string | undefined;
  if (header.startsWith("Bearer ")) key = header.slice("Bearer ".length).trim();
  else if (header.startsWith("Basic ")) key = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8").split(":")[0];
  return key && TEST_KEY.test(key) ? key : null;
}
