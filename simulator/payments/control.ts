// The /__control API tests and demos drive: act as the buyer (pay, decline,
// pay later, settle), refund, dispute (open, then won or lost), shape deliveries (rules: duplicates, delay,
// drop, hold; hold everything and release it in another order; resend a
// storm of copies), change settings, and read back events and attempts.
import type http from "node:http";
import { z } from "zod";
import { parseRuntimePatch, runtimeKeys, type RuntimeSettings } from "./config";
import { readJson, RequestError, type Reply } from "./http";
import type { PaymentStore } from "./store";
import type { WebhookSender } from "./webhooks";

const ruleSchema = z.strictObject({
  session: z.string().min(1).optional(),
  type: z.string().min(1).optional(),
  times: z.number().int().min(1).optional(),
  duplicates: z.number().int().min(0).max(50).optional(),
  delayMs: z.number().int().min(0).max(600_000).optional(),
  drop: z.boolean().optional(),
  hold: z.boolean().optional(),
});
const holdSchema = z.strictObject({ hold: z.boolean().default(true) });
const releaseSchema = z.strictObject({ order: z.enum(["emitted", "reverse"]).default("emitted"), session: z.string().optional() });
const resendSchema = z.strictObject({ copies: z.number().int().min(1).max(100).default(1) });
const refundSchema = z.strictObject({ amount: z.number().int().min(1).optional() });
const disputeSchema = z.strictObject({ reason: z.string().min(1).max(50).optional() });

export type ControlContext = { store: PaymentStore; sender: WebhookSender; settings: RuntimeSettings; log: (line: string) => void; reset: () => void };

export async function handleControl({ store, sender, settings, log, reset }: ControlContext, req: http.IncomingMessage, url: URL): Promise<Reply> {
  const route = `${req.method} ${url.pathname}`;
  const sessionAction = url.pathname.match(/^\/__control\/sessions\/([^/]+)\/(pay|decline|pay-later|succeed|fail|refund|dispute|dispute-won|dispute-lost)$/);
  const resend = url.pathname.match(/^\/__control\/events\/([^/]+)\/resend$/);
  const oneSession = url.pathname.match(/^\/__control\/sessions\/([^/]+)$/);
  try {
    if (sessionAction && req.method === "POST") {
      const id = decodeURIComponent(sessionAction[1]!);
      const body = await readJson(req);
      switch (sessionAction[2]) {
        case "pay":
          return ok(store.view(store.pay(id)));
        case "decline":
          return ok(store.view(store.decline(id)));
        case "pay-later":
          return ok(store.view(store.payLater(id)));
        case "succeed":
        case "fail":
          return ok(store.view(store.settle(id, sessionAction[2])));
        case "refund": {
          const { amount } = parse(refundSchema, body ?? {});
          return ok(store.refund({ paymentIntent: store.paymentIntentOf(id), amount }));
        }
        case "dispute": {
          const { reason } = parse(disputeSchema, body ?? {});
          return ok(store.openDispute({ paymentIntent: store.paymentIntentOf(id), reason }));
        }
        case "dispute-won":
        case "dispute-lost":
          return ok(store.closeDispute({ paymentIntent: store.paymentIntentOf(id), outcome: sessionAction[2] === "dispute-won" ? "won" : "lost" }));
      }
    }
    if (oneSession && req.method === "GET") {
      const session = store.session(decodeURIComponent(oneSession[1]!));
      return ok({ ...store.view(session), line_items: session.line_items, state: store.paymentState(session) });
    }
    if (resend && req.method === "POST") {
      const event = store.events.find((e) => e.id === decodeURIComponent(resend[1]!));
      if (!event) throw new RequestError(404, "not_found", `No event ${resend[1]}.`);
      const { copies } = parse(resendSchema, (await readJson(req)) ?? {});
      await sender.resend(event, copies);
      return ok({ ok: true, copies });
    }
    switch (route) {
      case "POST /__control/reset":
        reset();
        return ok({ ok: true });
      case "GET /__control/config":
        return ok(Object.fromEntries(runtimeKeys.map((key) => [key, settings[key]])));
      case "PATCH /__control/config": {
        const result = parseRuntimePatch(await readJson(req));
        if (!result.ok) throw new RequestError(422, "invalid_config", result.message);
        Object.assign(settings, result.patch);
        log(`config changed: ${Object.keys(result.patch).join(", ")}`);
        return ok(Object.fromEntries(runtimeKeys.map((key) => [key, settings[key]])));
      }
      case "POST /__control/rules":
        return { status: 201, body: sender.addRule(parse(ruleSchema, await readJson(req))) };
      case "POST /__control/hold": {
        const { hold } = parse(holdSchema, (await readJson(req)) ?? {});
        sender.setHoldAll(hold);
        return ok({ ok: true, hold, held: sender.held.length });
      }
      case "POST /__control/release": {
        const options = parse(releaseSchema, (await readJson(req)) ?? {});
        return ok({ released: sender.release(options) });
      }
      case "GET /__control/sessions":
        return ok([...store.sessions.values()].map((s) => ({ ...store.view(s), state: store.paymentState(s) })));
      case "GET /__control/events": {
        const session = url.searchParams.get("session");
        const type = url.searchParams.get("type");
        const events = store.events.filter((e) => (!type || e.type === type) && (!session || sessionOf(store, e) === session));
        return ok(events.map((event) => ({ ...event, attempts: sender.attempts.filter((a) => a.eventId === event.id) })));
      }
      case "GET /__control/attempts": {
        const session = url.searchParams.get("session");
        return ok(sender.attempts.filter((a) => !session || a.session === session));
      }
    }
    throw new RequestError(404, "not_found", `No control route ${route}.`);
  } catch (error) {
    if (error instanceof RequestError) return { status: error.status, body: { error: { code: error.code, message: error.message } } };
    throw error;
  }
}

/** The Checkout Session an event is about: its own object, or the session whose PaymentIntent it names. */
export function sessionOf(store: PaymentStore, event: { data: { object: unknown } }): string | null {
  const object = event.data.object as { object?: string; id?: string; payment_intent?: string | null; latest_charge?: string | null };
  if (object.object === "checkout.session") return object.id ?? null;
  const intent = object.object === "payment_intent" ? object.id : object.payment_intent;
  return intent ? (store.intentSessions.get(intent) ?? null) : null;
}

const ok = (body: unknown): Reply => ({ status: 200, body });

function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (!result.success) throw new RequestError(422, "invalid_request", result.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "));
  return result.data;
}
