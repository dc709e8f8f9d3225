// Property-based attacks on POST /api/generations and on the input parsing the
// server action shares; hostile result URLs kept out of every answer; URLs a
// user typed never fetched by the server; secrets out of logs, answers and
// the database.
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startApp } from "../support/app";
import { TEST_SECRETS } from "../support/global-setup";
import { readGeneration, submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";
import { fileDatabase, storedText } from "./support/database";

const random = () => Math.random().toString(36).slice(2);
const SECRETS = { apiKey: `fh-faults-key-${random()}`, webhookSecret: `fh-faults-webhook-${random()}${random()}` };
const db = fileDatabase();
const app = await startApp({
  env: { GATEWAY_API_KEY: SECRETS.apiKey, WEBHOOK_SECRET: SECRETS.webhookSecret },
  simulatorEnv: { SIMULATOR_API_KEY: SECRETS.apiKey, SIMULATOR_START_CREDITS: "100000" },
});
const { prisma } = await import("@/lib/db");
const { MODEL_IDS, findModel } = await import("@/lib/models/catalog");
const { parseGenerationRequest } = await import("@/lib/models/input-schema");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");

/** A server no one should call: it stands for a URL a user typed. */
const trapHits: string[] = [];
const trap = http.createServer((req, res) => {
  trapHits.push(`${req.method} ${req.url} ${req.headers["user-agent"] ?? ""}`);
  res.writeHead(200, { "Content-Type": "image/png" }).end();
});
await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
const answers: string[] = [];
beforeAll(() => app.simulator.setCredits(100_000));
afterAll(async () => {
  await app.close();
  await new Promise((resolve) => trap.close(resolve));
});

const hostileText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: "grapheme", maxLength: 100 }),
  fc.constantFrom("<script>alert(1)</script>", `<img src=x onerror=alert(1)>`, "'; DROP TABLE \"Generation\"; --", "\u0000\u202e", "{{7*7}}", "${process.env.GATEWAY_API_KEY}"),
  fc.integer({ min: 1_990, max: 2_010 }).map((n) => "p".repeat(n)),
);
const inputValue = fc.oneof(hostileText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(hostileText, { maxLength: 4 }), fc.webUrl(), fc.constantFrom("javascript:alert(1)", "file:///etc/passwd", `${trapUrl}/typed.png`));
const input = fc.oneof(
  fc.record({ prompt: hostileText, duration: fc.option(inputValue), aspect_ratio: fc.option(inputValue), seed: fc.option(inputValue) }, { requiredKeys: ["prompt"] }),
  fc.dictionary(fc.oneof(fc.constantFrom("prompt", "duration", "first_frame_url", "reference_video_urls", "__proto__", "constructor", "webhook_url"), fc.string()), inputValue),
  inputValue,
);
// Mostly well-formed, so that accepted submissions are tried too: hostile prompts, extra keys.
const plausible = fc.record({
  model: fc.constant("alpha-2.5-text-to-video-480p"),
  input: fc.record(
    { prompt: hostileText, duration: fc.oneof(fc.integer({ min: 2, max: 10 }), fc.integer({ min: 2, max: 10 }).map(String), inputValue) },
    { requiredKeys: ["prompt"] },
  ),
});
/** Bodies the API must accept: a known model, a non-blank prompt within limits, a valid duration. */
const valid = fc.record({
  model: fc.constant("alpha-2.5-text-to-video-480p"),
  input: fc.record({ prompt: fc.string({ minLength: 1, maxLength: 200 }).filter((p) => p.trim().length > 0), duration: fc.integer({ min: 2, max: 10 }) }),
});
const generationBody = fc.oneof(
  { weight: 3, arbitrary: plausible },
  { weight: 4, arbitrary: fc.record({ model: fc.oneof(fc.constantFrom(...MODEL_IDS), fc.string()), input }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.anything() },
);
const raw = fc.oneof(
  { weight: 1, arbitrary: valid.map((b) => ({ text: JSON.stringify(b), valid: true })) },
  { weight: 4, arbitrary: generationBody.map((b) => ({ text: JSON.stringify(b) ?? "null", valid: false })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 500 }).map((text) => ({ text, valid: false })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 60_000, max: 100_000 }).map((n) => ({ text: JSON.stringify({ model: MODEL_IDS[0], input: { prompt: "x".repeat(n) } }), valid: false })),
  },
);

test("POST /api/generations with random bodies, types and keys: never a 500; every valid JSON body accepted; rows and gateway calls only for 201s (200 runs)", async () => {
  const marker = uniqueMarker("fuzz");
  const before = await prisma.generation.count();
  const created = new Set<string>();
  let validSent = 0;
  await fc.assert(
    fc.asyncProperty(
      raw,
      fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", ""),
      fc.option(fc.oneof({ weight: 3, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.stringMatching(/^[\x21-\x7e]{0,120}$/) }), { freq: 2 }),
      async ({ text, valid: isValid }, contentType, idempotencyKey) => {
        // A fresh key per valid body: a repeated key would (rightly) answer the first generation again.
        const validJson = isValid && contentType.startsWith("application/json");
        if (validJson) idempotencyKey = null;
        const response = await app.fetch("/api/generations", {
          method: "POST",
          headers: { ...(contentType ? { "Content-Type": contentType } : {}), ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}) },
          // Tag every prompt that could reach the gateway, to count what did.
          body: text.replace(/"prompt":"/g, `"prompt":"${marker} `),
        });
        const answer = await response.text();
        answers.push(answer);
        expect(response.status).toBeLessThan(500);
        if (validJson) {
          validSent++;
          expect(response.status, answer).toBe(201);
        }
        if (response.status === 201) {
          const { id } = JSON.parse(answer) as { id: string };
          created.add(id);
          const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
          // Only the model's own fields are stored and sent: never a smuggled key.
          const allowed = findModel(row.model)!.fields.map((f) => f.name);
          expect(Object.keys(JSON.parse(row.input) as object).every((k) => allowed.includes(k))).toBe(true);
        } else {
          expect([400, 413, 415, 422]).toContain(response.status);
        }
      },
    ),
    { numRuns: 200 },
  );
  expect(await prisma.generation.count()).toBe(before + created.size);
  const sent = (await app.simulator.requests(marker)).filter((r) => r.method === "POST");
  expect(sent).toHaveLength(created.size);
  // The property did try accepted submissions, not only refusals.
  expect(validSent).toBeGreaterThan(0);
  console.info(`[faults] hostile submissions: ${created.size} of 200 accepted (${validSent} known valid)`);
  // Frame and reference URLs get their host looked up (public addresses only) before a submission is accepted.
}, 90_000);

test("the action's input parsing never throws, accepts every valid body and only clean input (1000 runs)", () => {
  let accepted = 0;
  fc.assert(
    fc.property(valid, (body) => {
      expect(parseGenerationRequest(body)).toMatchObject({ ok: true });
    }),
    { numRuns: 200 },
  );
  fc.assert(
    fc.property(fc.oneof(generationBody, fc.record({ model: fc.constantFrom(...MODEL_IDS), input: fc.dictionary(fc.string(), fc.string()) })), (body) => {
      const parsed = parseGenerationRequest(body);
      if (!parsed.ok) return;
      accepted++;
      const names = parsed.model.fields.map((f) => f.name);
      expect(Object.keys(parsed.input).every((k) => names.includes(k))).toBe(true);
      expect(parsed.input.prompt.trim().length).toBeGreaterThan(0);
      expect(parsed.input.prompt.length).toBeLessThanOrEqual(2_000);
      for (const field of parsed.model.fields) {
        const value = parsed.input[field.name];
        const urls = field.type === "url" || field.type === "image" ? [value] : field.type === "url-list" || field.type === "video-list" ? (value as string[] | undefined) ?? [] : [];
        for (const url of urls) if (url !== undefined) expect(String(url)).toMatch(/^(https?:\/\/|upl_[a-z0-9]{24}$)/i);
      }
    }),
    { numRuns: 1_000 },
  );
  // Mostly-plausible bodies: some of them pass, so the checks above ran on accepted input.
  expect(accepted).toBeGreaterThan(0);
});

// Found by the property above (docs/RELIABILITY.md, gap 4, fixed): an unknown
// input named like an Object.prototype member ("toString", "constructor")
// once made field-error collection throw, and the route answered 500.
test("an unknown input named toString is refused with 422, not a crash", async () => {
  expect(parseGenerationRequest({ model: MODEL_IDS[0], input: { prompt: "x", toString: "" } })).toMatchObject({ ok: false });
  const response = await app.fetch("/api/generations", { method: "POST", json: { model: MODEL_IDS[0], input: { prompt: "x", constructor: "" } } });
  expect(response.status).toBe(422);
});

test("the server never fetches a URL a user typed: one on a private address is refused from the address alone", async () => {
  const marker = uniqueMarker("typed-urls");
  const submissions = [
    { model: "alpha-2.5-first-last-frame-480p", input: { prompt: `frames ${marker}`, first_frame_url: `${trapUrl}/first.png`, last_frame_url: `${trapUrl}/last.png` } },
    { model: "delta-h3/reference-to-video", input: { prompt: `refs ${marker}`, reference_video_urls: [`${trapUrl}/a.mp4`, `${trapUrl}/b.mp4`] } },
  ];
  for (const json of submissions) {
    const response = await app.fetch("/api/generations", { method: "POST", json });
    expect(response.status).toBe(422);
    const { error } = (await response.json()) as { error: { fields: Record<string, string[]> } };
    expect(Object.values(error.fields).flat().every((m) => m.startsWith("127.0.0.1 is not a public address"))).toBe(true);
  }
  expect(await app.simulator.tasks(marker)).toHaveLength(0);
  expect(trapHits).toEqual([]);
});

test("result URLs of other schemes never leave the API, even when the database holds them", async () => {
  const hostile = ["javascript:alert(1)", " JAVASCRIPT:alert(1)", "data:video/mp4;base64,AAAA", "vbscript:x", "file:///etc/passwd", "//evil.example/x.mp4", "https://cdn.example/ok.mp4"];
  const row = await prisma.generation.create({
    data: { ownerId: await app.fetch.ownerId(), model: "alpha-2.5-text-to-video-480p", prompt: "hostile urls", state: "SUCCESS", taskId: `task_${uniqueMarker("h")}`, resultUrls: JSON.stringify(hostile), creditsConsumed: 1, completedAt: new Date() },
  });
  expect((await readGeneration(app, row.id)).resultUrls).toEqual(["https://cdn.example/ok.mp4"]);
  const list = (await (await app.fetch("/api/generations?limit=100")).json()) as { items: { id: string; resultUrls: string[] }[] };
  expect(list.items.find((g) => g.id === row.id)?.resultUrls).toEqual(["https://cdn.example/ok.mp4"]);
  expect(list.items.flatMap((g) => g.resultUrls).every((u) => /^https?:\/\//.test(u))).toBe(true);
});

test("secrets: never in the app's output, an answer or the database file", async () => {
  // Exercise the paths that log: a refused key, a gateway error, a timeout, a forged callback.
  const marker = uniqueMarker("secrets");
  await app.simulator.scenario({ match: `${marker}-401`, submitStatus: 401 });
  await app.simulator.scenario({ match: `${marker}-500`, submitStatus: 500 });
  await app.simulator.scenario({ match: `${marker}-slow`, latencyMs: 2_500 });
  for (const suffix of ["401", "500", "slow"]) answers.push(JSON.stringify((await submitPrompt(app, `x ${marker}-${suffix}`)).body));
  answers.push(await (await app.fetch("/api/webhooks/gateway?token=a.b", { method: "POST", json: {} })).text());
  answers.push(await (await app.fetch("/api/credits")).text());
  // The app logged those failures (its `next start` output), which is where a leaked key would show.
  const logged = app.output();
  expect(logged).toMatch(/gateway/i);
  const everything = [logged, ...answers];
  // Its secrets, and every generation's callback token (a capability: whoever holds one can report that task's outcome).
  const tokens = (await prisma.generation.findMany({ select: { id: true } })).map((g) => callbackTokenFor(g.id, SECRETS.webhookSecret));
  expect(tokens.length).toBeGreaterThan(10);
  const secrets = [...Object.values(SECRETS), TEST_SECRETS.CRON_SECRET, TEST_SECRETS.ADMIN_PASSWORD, ...tokens];
  for (const secret of secrets) {
    expect(everything.filter((line) => line.includes(secret))).toEqual([]);
  }
  const stored = await storedText(db.url);
  expect(stored).toContain(marker);
  for (const secret of Object.values(SECRETS)) expect(stored.includes(secret)).toBe(false);
});
