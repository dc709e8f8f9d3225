// Stripe's webhook: POST only; every other method is 405 with `Allow: POST`.
// The raw body is read once (the signature covers its exact bytes), verified,
// mapped and handed to the ledger (lib/payments/receive-stripe-event.ts).
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { BODY_MAX_BYTES } from "@/lib/http/body-guard";
import { methodNotAllowed, readBody, route } from "@/lib/http";
import { receiveStripeEvent } from "@/lib/payments/receive-stripe-event";
import { DEV_WEBHOOK_SECRET } from "@/lib/payments/settings";
import { socketPeerIsLoopback } from "@/lib/viewer/peer-address";

export const POST = route(async (request) => {
  // The development secret is public: what it signs is taken only from this computer (the local payments simulator).
  if (env.payments.mode !== "off" && env.payments.webhookSecret === DEV_WEBHOOK_SECRET && !socketPeerIsLoopback(request.headers)) {
    throw new AppError("unauthorized", "Events signed with the development secret are taken only from this computer.");
  }
  const body = await readBody(request, BODY_MAX_BYTES);
  const { outcome } = await receiveStripeEvent({ body, signature: request.headers.get("stripe-signature") });
  // Duplicates, refusals and ignored events are 2xx too: a retry would not change them.
  return Response.json({ received: true, outcome });
});

export const GET = methodNotAllowed("POST");
export const PUT = methodNotAllowed("POST");
export const PATCH = methodNotAllowed("POST");
export const DELETE = methodNotAllowed("POST");
export const OPTIONS = methodNotAllowed("POST");
