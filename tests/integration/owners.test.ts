// Owners through the real routes, database and simulator: each visitor reads
// only their own generations, another's id is a 404 like a missing one,
// idempotency keys are per owner, a forged or tampered cookie is a stranger,
// and callbacks and the cron work for nobody in particular.
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { uniqueMarker } from "../support/simulator-control";

const app = await startApp({ env: { SUBMIT_RATE_LIMIT: "0" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { listGenerations, getGeneration } = await import("@/lib/generations/queries");
const { signViewerCookie, VIEWER_COOKIE, newViewerId } = await import("@/lib/viewer/viewer-cookie");
const { hideGeneration } = await import("@/lib/generations/store");

afterAll(() => app.close());

type Visitor = ReturnType<typeof app.visitor>;
async function submitAs(visitor: Visitor, prompt: string, headers: Record<string, string> = {}) {
  const response = await visitor("/api/generations", {
    method: "POST",
    json: { model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } },
    headers,
  });
  return { status: response.status, body: (await response.json()) as { id: string; state: string } };
}
const listIds = async (visitor: Visitor) =>
  ((await (await visitor("/api/generations?limit=100")).json()) as { items: { id: string }[] }).items.map((g) => g.id);

describe("two visitors", () => {
  test("each lists only their own; the other's id answers 404 exactly like a missing one", async () => {
    const marker = uniqueMarker("owners");
    const alice = app.visitor();
    const bob = app.visitor();
    const a = await submitAs(alice, `alice ${marker}`);
    const b = await submitAs(bob, `bob ${marker}`);
    expect([a.status, b.status]).toEqual([201, 201]);

    expect(await listIds(alice)).toContain(a.body.id);
    expect(await listIds(alice)).not.toContain(b.body.id);
    expect(await listIds(bob)).toEqual([b.body.id]);

    const foreign = await bob(`/api/generations/${a.body.id}`);
    const missing = await bob("/api/generations/does-not-exist");
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await missing.json());
    expect((await alice(`/api/generations/${a.body.id}`)).status).toBe(200);
    // A cursor taken from Alice's list shows Bob nothing of hers.
    expect((await (await bob(`/api/generations?cursor=${a.body.id}`)).json()).items).toEqual([]);
  });

  test("idempotency keys are per owner: the same key makes one generation each, and repeats within an owner", async () => {
    const marker = uniqueMarker("idem");
    const [alice, bob] = [app.visitor(), app.visitor()];
    const key = { "Idempotency-Key": `form-${marker.slice(1, -1)}` };
    const first = await submitAs(alice, `same key ${marker}`, key);
    const again = await submitAs(alice, `same key ${marker}`, key);
    const other = await submitAs(bob, `same key ${marker}`, key);
    expect(again.body.id).toBe(first.body.id);
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(first.body.id);
    const rows = await prisma.generation.findMany({ where: { id: { in: [first.body.id, other.body.id] } } });
    expect(new Set(rows.map((r) => r.ownerId)).size).toBe(2);
  });
});

describe("deleting from the gallery", () => {
  test("only the owner hides a generation; another owner's attempt is refused and changes nothing", async () => {
    const alice = app.visitor();
    const bob = app.visitor();
    const a = await submitAs(alice, `alice keeps ${uniqueMarker("hide")}`);
    expect(await hideGeneration({ id: a.body.id, ownerId: await bob.ownerId() })).toBe("not_found");
    expect((await prisma.generation.findUniqueOrThrow({ where: { id: a.body.id } })).deletedAt).toBeNull();
    expect(await hideGeneration({ id: a.body.id, ownerId: await alice.ownerId() })).toBe("hidden");
    expect(await hideGeneration({ id: a.body.id, ownerId: await alice.ownerId() })).toBe("already_hidden");
    expect(await listIds(alice)).not.toContain(a.body.id);
    // Kept for accounting.
    expect(await prisma.generation.count({ where: { id: a.body.id } })).toBe(1);
  });
});

describe("forged, tampered and expired cookies", () => {
  test("never read or write another owner's data (property over cookie bytes)", async () => {
    const alice = app.visitor();
    const { body: mine } = await submitAs(alice, `private ${uniqueMarker("forge")}`);
    const aliceId = await alice.ownerId();
    const valid = signViewerCookie(aliceId, env.WEBHOOK_SECRET);
    const expired = signViewerCookie(aliceId, env.WEBHOOK_SECRET, Date.now() - 401 * 86_400_000);
    const otherKey = signViewerCookie(aliceId, "not-the-server-secret-at-all-0123456789");

    const cookieValue = fc.oneof(
      // One byte of a valid cookie changed, cut short or lengthened.
      fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([i, delta]) =>
        valid.slice(0, i) + String.fromCharCode((valid.charCodeAt(i) + delta) % 256) + valid.slice(i + 1),
      ),
      fc.nat({ max: valid.length - 1 }).map((n) => valid.slice(0, n)),
      fc.string({ maxLength: 8 }).map((tail) => `${valid}${tail || "x"}`),
      fc.constantFrom(expired, otherKey, `${aliceId}..`, `${aliceId}.${Math.floor(Date.now() / 1000)}.`, aliceId),
      fc.string({ maxLength: 120 }),
    );
    await fc.assert(
      fc.asyncProperty(cookieValue, async (value) => {
        // Only bytes a Cookie header can carry; anything else never reaches the app.
        const sent = value.replace(/[^\x21-\x7e]|;|,/g, "");
        // What is left may be the valid cookie again (a space appended, then stripped).
        fc.pre(sent !== valid);
        const headers = { Cookie: `${VIEWER_COOKIE}=${sent}` };
        const read = await app.fetch(`/api/generations/${mine.id}`, { headers });
        expect(read.status).toBe(404);
        const list = (await (await app.fetch("/api/generations?limit=100", { headers })).json()) as { items: { id: string }[] };
        expect(list.items.map((g) => g.id)).not.toContain(mine.id);
      }),
      { numRuns: 60 },
    );

    // Writes: a submission with a forged cookie is a new owner's, never Alice's.
    for (const value of [valid.slice(0, -1) + (valid.endsWith("A") ? "B" : "A"), expired, otherKey]) {
      const stranger = app.visitor();
      const { body } = await submitAs(stranger, `forged ${uniqueMarker("w")}`, { Cookie: `${VIEWER_COOKIE}=${value}` });
      const row = await prisma.generation.findUniqueOrThrow({ where: { id: body.id } });
      expect(row.ownerId).not.toBe(aliceId);
    }
    expect(await prisma.generation.count({ where: { ownerId: aliceId } })).toBe(1);
  });
});

describe("the system acts for nobody", () => {
  test("callbacks complete an owner's generation, and the cron reconciles it, with no viewer cookie", async () => {
    const marker = uniqueMarker("sys");
    const alice = app.visitor();
    const { body: called } = await submitAs(alice, `callback ${marker}`);
    await app.simulator.scenario({ match: `${marker}-quiet`, callback: { mode: "drop" }, pendingMs: 50 });
    const { body: quiet } = await submitAs(alice, `polled ${marker}-quiet`);
    // The callback (from the simulator, which sends no cookie) lands as usual.
    await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id: called.id } })).state === "SUCCESS");
    // The cron, with its secret and no cookie, finishes the task whose callback was dropped.
    await prisma.generation.update({ where: { id: quiet.id }, data: { lastHeardAt: new Date(Date.now() - 60_000) } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const cron = await fetch(`${app.baseUrl}/api/cron/reconcile`, { headers: { Authorization: `Bearer ${env.CRON_SECRET}` } });
    expect(cron.status).toBe(200);
    expect(cron.headers.get("set-cookie")).toBeNull();
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: quiet.id } });
    expect(row).toMatchObject({ state: "SUCCESS", ownerId: await alice.ownerId() });
  });
});

describe("GALLERY_SCOPE=shared (the query's `shared` scope)", () => {
  test("shows everyone's finished videos, never their pending or failed ones, and never their inputs", async () => {
    const owner = `owner-${newViewerId()}`;
    const viewer = `viewer-${newViewerId()}`;
    const base = { ownerId: owner, model: "alpha-2.5-text-to-video-480p", input: JSON.stringify({ first_frame_url: "https://private.example/me.png" }) };
    const done = await prisma.generation.create({
      data: { ...base, prompt: "shared done", state: "SUCCESS", resultUrls: JSON.stringify(["https://cdn.example/v.mp4"]), completedAt: new Date() },
    });
    const failed = await prisma.generation.create({ data: { ...base, prompt: "shared failed", state: "FAILURE", completedAt: new Date() } });
    const pending = await prisma.generation.create({ data: { ...base, prompt: "shared pending", state: "PENDING" } });

    const shared = await listGenerations({ owner: { ownerId: viewer, shared: true }, limit: 100 });
    const seen = shared.items.filter((g) => [done.id, failed.id, pending.id].includes(g.id));
    expect(seen.map((g) => g.id)).toEqual([done.id]);
    expect(seen[0]).toMatchObject({ input: {}, taskId: null, gatewayMetadata: null, resultUrls: ["https://cdn.example/v.mp4"] });
    expect(JSON.stringify(shared)).not.toContain("private.example");
    expect(await getGeneration({ id: failed.id, owner: { ownerId: viewer, shared: true } })).toBeNull();
    // Owner scope (the default) shows none of them; their owner sees all three, inputs included.
    expect((await listGenerations({ owner: { ownerId: viewer }, limit: 100 })).items.map((g) => g.id)).not.toContain(done.id);
    const own = await listGenerations({ owner: { ownerId: owner }, limit: 100 });
    expect(own.items).toHaveLength(3);
    expect(own.items[0]!.input).toEqual({ first_frame_url: "https://private.example/me.png" });
  });
});
