// The payments simulator's HTTP server: Stripe's API under /v1, the hosted
// checkout page under /c/pay, receipts under /receipts, the /__control API, one log line per request.
import { randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { handleApi, IdempotencyCache } from "./api";
import { handleCheckoutPage, handleReceiptPage, renderIndex } from "./checkout-page";
import type { PaymentsConfig, RuntimeSettings } from "./config";
import { handleControl, sessionOf } from "./control";
import { RequestError, stripeError, type Reply } from "./http";
import { PaymentStore } from "./store";
import { WebhookSender } from "./webhooks";

export function createPaymentsSimulator(config: PaymentsConfig) {
  let publicUrl = `http://${config.PAYMENTS_SIMULATOR_HOST}:${config.PAYMENTS_SIMULATOR_PORT}`;
  const log = (line: string) => config.PAYMENTS_SIMULATOR_LOG === "requests" && console.log(`[payments-simulator] ${line}`);
  const settings: RuntimeSettings = { ...config };
  // The sender reads the store (an event's session); the store hands every event it emits to the sender.
  const store = new PaymentStore(() => publicUrl, (event) => sender.dispatch(event));
  const sender = new WebhookSender(settings, (event) => sessionOf(store, event), log);
  const idempotency = new IdempotencyCache();
  const reset = () => {
    store.reset();
    sender.reset();
    idempotency.clear();
    Object.assign(settings, config);
  };

  const controlToken = config.PAYMENTS_SIMULATOR_CONTROL_TOKEN ?? (isLoopbackHost(config.PAYMENTS_SIMULATOR_HOST) ? undefined : randomBytes(24).toString("base64url"));

  async function handle(req: http.IncomingMessage, url: URL): Promise<Reply> {
    if (url.pathname.startsWith("/__control/")) {
      if (controlToken !== undefined && !bearerMatches(req.headers.authorization, controlToken)) {
        return stripeError(401, "control_token_required", "The control API asks for its token (Authorization: Bearer PAYMENTS_SIMULATOR_CONTROL_TOKEN).");
      }
      return handleControl({ store, sender, settings, log, reset }, req, url);
    }
    if (url.pathname.startsWith("/v1/")) return handleApi(store, idempotency, req, url.pathname);
    if (url.pathname === "/" && req.method === "GET") return renderIndex(store);
    return (
      handleReceiptPage(store, config.PAYMENTS_SIMULATOR_MERCHANT, req, url) ??
      (await handleCheckoutPage(store, config.PAYMENTS_SIMULATOR_MERCHANT, req, url)) ?? { status: 404, html: "Not found." }
    );
  }

  const server = http.createServer(async (req, res) => {
    const started = Date.now();
    const url = new URL(req.url ?? "/", publicUrl);
    let reply: Reply;
    try {
      reply = await handle(req, url);
    } catch (error) {
      if (!(error instanceof RequestError)) console.error("[payments-simulator]", error);
      reply = error instanceof RequestError ? stripeError(error.status, error.code, error.message) : stripeError(500, "api_error", "Payments simulator error.");
    }
    if (!res.headersSent && !res.destroyed) {
      const type = reply.html === undefined ? "application/json" : "text/html; charset=utf-8";
      res.writeHead(reply.status, { "Content-Type": type, "Request-Id": `req_${started.toString(36)}`, ...reply.headers });
      res.end(reply.html ?? (reply.status === 303 ? "" : JSON.stringify(reply.body ?? {})));
    }
    if (!url.pathname.startsWith("/__control/")) log(`${req.method} ${url.pathname} ${res.statusCode} ${Date.now() - started}ms`);
  });

  return {
    server,
    store,
    sender,
    /** The token /__control asks for: PAYMENTS_SIMULATOR_CONTROL_TOKEN, one made up when listening beyond loopback, or none. */
    controlToken,
    async listen(): Promise<string> {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(config.PAYMENTS_SIMULATOR_PORT, config.PAYMENTS_SIMULATOR_HOST, () => {
          server.off("error", reject);
          resolve();
        });
      });
      publicUrl = `http://${config.PAYMENTS_SIMULATOR_HOST}:${(server.address() as AddressInfo).port}`;
      return publicUrl;
    },
    async close(): Promise<void> {
      sender.reset();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Loopback only: "localhost", 127.0.0.0/8, ::1. Anything else ("0.0.0.0", "::", a LAN address) answers other machines. */
export const isLoopbackHost = (host: string) => host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host);

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
