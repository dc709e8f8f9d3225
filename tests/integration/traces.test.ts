// A trace per video (OpenTelemetry), through the real app under `next start`,
// the real simulator and a real OTLP/HTTP receiver on loopback: one video's
// spans (submit, gateway call, callback, outcome write, copy, still, publish)
// are one trace, the callback linked to the submit; ids, never a prompt or an
// email. With no endpoint, nothing is exported and the SDK is never loaded.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { browserFor, signInByEmail, type Browser } from "../support/accounts";
import { startApp, waitFor } from "../support/app";
import { startMailSink } from "../support/mail-sink";
import { startOtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";
import { actionId, callAction } from "../support/server-actions";
import { uniqueMarker } from "../support/simulator-control";

type App = Awaited<ReturnType<typeof startApp>>;

const receiver = await startOtlpReceiver();
const sink = await startMailSink();
const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-traces-"));
const PROBE = path.join(import.meta.dirname, "..", "support", "module-probe.mjs");
const BASE_NODE_OPTIONS = process.env.NODE_OPTIONS ?? "";
/** The server's environment that lists, in `file`, each of OpenTelemetry's modules it loads. */
const probed = (file: string) => ({ MODULE_PROBE_FILE: file, NODE_OPTIONS: `${BASE_NODE_OPTIONS} --import ${PROBE}`.trim() });
const loadedModules = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
/** Next itself loads @opentelemetry/api when it is installed (a no-op without an SDK): anything else is the SDK. */
const sdkModules = (file: string) => [...new Set(loadedModules(file).filter((url) => !url.includes("/node_modules/@opentelemetry/api/")))];

afterAll(async () => {
  await receiver.close();
  await sink.close();
  fs.rmSync(probeDir, { recursive: true, force: true });
});

const MODEL = "alpha-2.5-text-to-video-480p";
const STRIPE_WEBHOOK_SECRET = "whsec_fh_traces_Qm3Vt8Lp2Xc7";

async function submitByApi(b: Browser, prompt: string): Promise<string> {
  const response = await b("/api/generations", { method: "POST", json: { model: MODEL, input: { prompt, duration: 2 } } });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** The form's server action, as the page posts it. */
async function submitByAction(b: Browser, prompt: string): Promise<void> {
  const body = new FormData();
  body.set("_1_model", MODEL);
  body.set("_1_input.prompt", prompt);
  body.set("_1_input.duration", "2");
  body.set("0", JSON.stringify([{ status: "idle" }, "$K1"]));
  const response = await b("/", { method: "POST", headers: { "Next-Action": actionId("submitGenerationAction"), Accept: "text/x-component" }, body });
  const answer = await response.text();
  expect(response.status, answer).toBe(200);
  expect(answer).toContain('"status":"success"');
}

/** Waits until generation `id` succeeded and its copy is stored: every step of its trace has run. */
async function settled(id: string) {
  const { prisma } = await import("@/lib/db");
  return waitFor(
    async () => {
      const row = await prisma.generation.findUniqueOrThrow({ where: { id }, include: { mediaCopies: true } });
      return row.state === "SUCCESS" && row.mediaCopies.length > 0 && row.mediaCopies.every((copy) => copy.state === "DONE") && row;
    },
    90_000,
    `generation ${id} to succeed and its copy to be stored`,
  );
}

async function uploadFrame(b: Browser): Promise<string> {
  const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#3366aa" } }).png().toBuffer();
  const response = await b("/api/uploads?model=alpha-2.5-first-last-frame-480p&field=first_frame_url", {
    method: "POST",
    headers: { "Content-Type": "image/png" },
    body: new Uint8Array(png),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

// Started here, not in a hook: the first file to start an app may have to build it, which takes minutes on a loaded machine.
const offProbe = path.join(probeDir, "off.txt");
const offApp = await startApp({ env: { ...probed(offProbe), SMTP_URL: sink.url } });

describe("with OTEL_EXPORTER_OTLP_ENDPOINT unset", () => {
  const probeFile = offProbe;
  const app = offApp;
  // Closed before the next describe starts its app on the same database.
  afterAll(() => app.close());

  test("a video is made and copied as always, nothing is exported, and none of OpenTelemetry's SDK is loaded", async () => {
    const b = browserFor(app.baseUrl);
    const id = await submitByApi(b, `a quiet harbour ${uniqueMarker("off")}`);
    const row = await settled(id);
    expect(row.traceContext).toBeNull();
    expect(receiver.payloads).toEqual([]);
    // The probe sees the server's loads (Next's own import of the API), so an empty list below means something.
    expect(loadedModules(probeFile).some((url) => url.includes("/node_modules/@opentelemetry/api/")), "the probe saw Next load @opentelemetry/api").toBe(true);
    expect(sdkModules(probeFile)).toEqual([]);
  });
});

describe("with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  const probeFile = path.join(probeDir, "on.txt");
  let app: App;
  let b: Browser;
  const marker = uniqueMarker("traced");
  const prompt = `a lighthouse at dawn ${marker}`;
  const email = `tracer-${marker.replace(/\W/g, "").toLowerCase()}@example.com`;
  let id: string;
  beforeAll(async () => {
    // Payments in demo mode, so that a signed Stripe event is verified (nothing here calls the simulator).
    app = await startApp({
      env: { ...probed(probeFile), SMTP_URL: sink.url, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, PAYMENTS_SIMULATOR_URL: "http://127.0.0.1:9", STRIPE_WEBHOOK_SECRET },
    });
    b = browserFor(app.baseUrl);
    await b("/");
  });
  afterAll(() => app.close());

  const ours = (generationId: string) => receiver.spans.filter((span) => span.attributes["framehook.generation.id"] === generationId);
  const one = (spans: ReceivedSpan[], what: string, match: (span: ReceivedSpan) => boolean) => {
    const found = spans.filter(match);
    expect(found, what).toHaveLength(1);
    return found[0]!;
  };

  test("one video is one trace: the submit, the gateway call (with traceparent), the callback linked to the submit, the outcome write, the copy, its still, the publish", async () => {
    id = await submitByApi(b, prompt);
    await settled(id);
    // The batch arrives within the exporter's schedule: wait for the last steps' spans to land.
    const copy = await waitFor(() => ours(id).find((span) => span.name === "media.copy"), 60_000, "the copy's span at the receiver");
    await waitFor(() => receiver.spans.some((span) => span.name === "media.still" && span.parentSpanId === copy.spanId), 60_000, "the still's span");
    await waitFor(() => ours(id).some((span) => span.name === "generation.publish" && span.parentSpanId === copy.spanId), 60_000, "the copy's publish");

    const submit = one(ours(id), "one submit span", (span) => span.name === "generation.submit");
    const trace = submit.traceId;
    expect(submit.attributes).toMatchObject({ "framehook.owner.id": b.guestId(), "framehook.model": MODEL, "framehook.generation.state": "PENDING" });
    expect(submit.service).toBe("framehook");
    // The submit runs inside Next's span of its request: one trace from the request on.
    expect(receiver.spans.some((span) => span.spanId === submit.parentSpanId && span.traceId === trace), "the request's span is the submit's parent").toBe(true);

    const gateway = one(receiver.spans, "one gateway submit in the trace", (span) => span.traceId === trace && span.name === "gateway POST /api/generate");
    expect(gateway.parentSpanId).toBe(submit.spanId);
    expect(gateway.attributes["http.response.status_code"]).toBe(200);
    const sent = (await app.simulator.requests(marker)).filter((request) => request.method === "POST" && request.path === "/api/generate");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.traceparent?.split("-")[1], "the gateway was sent the video's trace").toBe(trace);

    const callback = one(ours(id), "one callback span", (span) => span.name === "generation.callback");
    expect(callback.traceId).toBe(trace);
    expect(callback.parentSpanId).toBe(submit.spanId);
    expect(callback.attributes["framehook.delivery.outcome"]).toBe("APPLIED");
    expect(callback.links).toContainEqual({ traceId: trace, spanId: submit.spanId, attributes: { "framehook.link": "submit" } });
    // And to the webhook request it arrived in, whose own trace it left.
    const request = callback.links.find((link) => link.attributes["framehook.link"] === "request");
    expect(request?.traceId).toBeDefined();
    expect(request?.traceId).not.toBe(trace);

    const write = one(ours(id), "one outcome write", (span) => span.name === "generation.outcome_write");
    expect(write).toMatchObject({ traceId: trace, parentSpanId: callback.spanId });
    expect(write.attributes).toMatchObject({ "framehook.delivery.source": "CALLBACK", "framehook.task.state": "SUCCESS", "framehook.delivery.outcome": "APPLIED" });
    expect(ours(id).filter((span) => span.name === "generation.publish" && span.parentSpanId === write.spanId).map((span) => span.attributes["framehook.generation.state"])).toEqual(["SUCCESS"]);

    expect(copy).toMatchObject({ traceId: trace, parentSpanId: submit.spanId });
    expect(copy.attributes["framehook.owner.id"]).toBe(b.guestId());
    const still = one(receiver.spans, "one still of the copy", (span) => span.name === "media.still" && span.parentSpanId === copy.spanId);
    expect(still.traceId).toBe(trace);
    expect(still.attributes["framehook.still.outcome"]).toBeDefined();

    // Every span of ours that names this generation is in its trace.
    expect(new Set(ours(id).map((span) => span.traceId))).toEqual(new Set([trace]));
    // The row keeps the submit's context: what the later steps continued.
    const { prisma } = await import("@/lib/db");
    const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
    expect(row.traceContext).toBe(`00-${trace}-${submit.spanId}-01`);
    expect(sdkModules(probeFile).some((url) => url.includes("/@opentelemetry/sdk-trace/")), "the SDK is loaded when on").toBe(true);
  });

  test("a video whose callback never comes is settled by a poll a reader asked for, in the video's trace and linked to its submit", async () => {
    const pollMarker = uniqueMarker("polled");
    await app.simulator.scenario({ match: pollMarker, callback: { mode: "drop" } });
    const polledId = await submitByApi(b, `a slow tide ${pollMarker}`);
    // The gallery's reads are what ask the gateway about a task not heard from lately.
    await waitFor(
      async () => ((await (await b(`/api/generations/${polledId}`)).json()) as { state: string }).state === "SUCCESS",
      90_000,
      "the reader's poll to settle the task",
    );
    const poll = await waitFor(() => ours(polledId).find((span) => span.name === "generation.poll"), 60_000, "the poll's span");
    const submit = one(ours(polledId), "one submit span", (span) => span.name === "generation.submit");
    expect(poll).toMatchObject({ traceId: submit.traceId, parentSpanId: submit.spanId });
    expect(poll.links).toContainEqual({ traceId: submit.traceId, spanId: submit.spanId, attributes: { "framehook.link": "submit" } });
    const write = await waitFor(() => ours(polledId).find((span) => span.name === "generation.outcome_write" && span.parentSpanId === poll.spanId), 60_000, "the poll's outcome write");
    expect(write.attributes).toMatchObject({ "framehook.delivery.source": "POLL", "framehook.delivery.outcome": "APPLIED" });
    expect(receiver.spans.some((span) => span.traceId === submit.traceId && span.name === "gateway GET /api/generate/{taskId}" && span.parentSpanId === poll.spanId)).toBe(true);
  });

  test("a Stripe webhook is a span with the event's id, type and outcome, and nothing of its payload", async () => {
    const eventId = `evt_traces_${marker.replace(/\W/g, "")}`;
    const payload = JSON.stringify({ id: eventId, object: "event", type: "customer.created", data: { object: { id: "cus_traces", object: "customer", email } } });
    const signature = new Stripe("sk_test_unused").webhooks.generateTestHeaderString({ payload, secret: STRIPE_WEBHOOK_SECRET });
    const response = await fetch(`${app.baseUrl}/api/webhooks/stripe`, { method: "POST", headers: { "Content-Type": "application/json", "Stripe-Signature": signature }, body: payload });
    expect(response.status, await response.clone().text()).toBe(200);
    const span = await waitFor(() => receiver.spans.find((s) => s.name === "stripe.webhook" && s.attributes["framehook.stripe.event.id"] === eventId), 60_000, "the webhook's span");
    expect(span.attributes).toMatchObject({ "framehook.stripe.event.type": "customer.created", "framehook.stripe.outcome": "ignored" });
  });

  test("the form's server action starts a trace of its own, which its row keeps", async () => {
    const actionPrompt = `a kite over dunes ${marker}`;
    await submitByAction(b, actionPrompt);
    const { prisma } = await import("@/lib/db");
    const row = await waitFor(() => prisma.generation.findFirst({ where: { prompt: actionPrompt } }), 30_000, "the action's generation");
    const submit = await waitFor(() => ours(row.id).find((span) => span.name === "generation.submit"), 60_000, "the action's submit span");
    expect(submit.traceId).not.toBe(ours(id)[0]!.traceId);
    expect(row.traceContext).toBe(`00-${submit.traceId}-${submit.spanId}-01`);
  });

  test("an upload's check and the guest claim are spans with ids; nothing exported holds a prompt, an email, a callback token or a share link's token", async () => {
    const guestId = b.guestId()!;
    const uploadId = await uploadFrame(b);
    const userId = await signInByEmail({ app, sink, browser: b, email });
    const kept = await callAction(b, "keepGuestWork", [], "/welcome");
    expect(kept.status).toBe(200);

    const check = await waitFor(() => receiver.spans.find((span) => span.name === "upload.check" && span.attributes["framehook.upload.id"] === uploadId), 60_000, "the upload's span");
    expect(check.attributes).toMatchObject({ "framehook.owner.id": guestId, "framehook.upload.format": "png" });
    const claim = await waitFor(() => receiver.spans.find((span) => span.name === "viewer.claim_guest" && span.attributes["framehook.guest.id"] === guestId), 60_000, "the claim's span");
    expect(claim.attributes["framehook.user.id"]).toBe(userId);

    // A public link carries its token in the path, not the query.
    const shared = await b(`/api/generations/${id}/share`, { method: "POST", json: { showPrompt: false } });
    expect(shared.status, await shared.clone().text()).toBe(200);
    const sharePath = new URL(((await shared.json()) as { url: string }).url).pathname;
    expect((await b(sharePath)).status).toBe(200);
    const shareToken = sharePath.split("/")[2]!;
    await waitFor(() => receiver.spans.some((span) => String(span.attributes["http.target"] ?? "").startsWith("/v/")), 60_000, "the public page's request span");
    // A comparison's link too (/c/<token>): its path is cut the same way, whether the token opens anything or not.
    const comparisonToken = "Cz".repeat(21) + "x";
    expect((await b(`/c/${comparisonToken}`)).status).toBe(404);
    await waitFor(() => receiver.spans.some((span) => String(span.attributes["http.target"] ?? "").startsWith("/c/")), 60_000, "the comparison page's request span");

    const { callbackUrlFor } = await import("@/lib/generations/callback-url");
    const token = new URL(callbackUrlFor(id)!).searchParams.get("token")!;
    const exported = receiver.payloads.join("\n");
    expect(exported.length).toBeGreaterThan(0);
    for (const secret of ["lighthouse", "kite over dunes", marker, email, "@example.com", token, shareToken, comparisonToken]) {
      expect(exported.includes(secret), `the exported spans hold "${secret}"`).toBe(false);
    }
  });
});
