// The walking skeleton through real parts: submit → simulator → callback over
// HTTP → the single writer → the row a user's gallery reads.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { deliveryOutcomes, openChanges, publishedStates, spentCredits } from "../support/app-records";
import { uniqueMarker } from "../support/simulator-control";

// A spend cap far above anything here, so that /api/spend shows the app's ledger.
const app = await startApp({ env: { SPEND_LIMIT_CREDITS: "1000" } });
const { prisma } = await import("@/lib/db");

async function submit(body: unknown) {
  const response = await app.fetch("/api/generations", { method: "POST", json: body });
  return { status: response.status, body: (await response.json()) as { id: string; state: string; taskId: string | null } };
}

afterAll(() => app.close());
beforeAll(() => app.simulator.reset(100));

const terminal = (id: string) =>
  waitFor(async () => {
    const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
    return row.state === "PENDING" ? null : row;
  });

describe("submit → callback → stored outcome", () => {
  test("a text-to-video task succeeds by callback and is charged what it cost", async () => {
    const prompt = `a lighthouse at dawn ${uniqueMarker("ok")}`;
    const { status, body: generation } = await submit({ model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 5 } });
    expect(status).toBe(201);
    expect(generation.state).toBe("PENDING");
    expect(generation.taskId).toMatch(/^task_/);

    const row = await terminal(generation.id);
    expect(row.state).toBe("SUCCESS");
    expect(row.creditsConsumed).toBeCloseTo(0.704, 4);
    expect(JSON.parse(row.resultUrls)).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/media\/task_/)]);
    // The delivery is logged just after the transition it records.
    const outcomes = async () => (await prisma.delivery.findMany({ where: { generationId: generation.id } })).map((d) => [d.source, d.outcome]);
    await waitFor(async () => (await outcomes()).length > 0);
    expect(await outcomes()).toContainEqual(["CALLBACK", "APPLIED"]);
  });

  test("a failed task is stored as FAILURE with its reason and 0 credits", async () => {
    const marker = uniqueMarker("fail");
    await app.simulator.scenario({ match: marker, outcome: "failure", failCode: "content_policy", failMsg: "Prompt refused" });
    const { body: generation } = await submit({ model: "alpha-2.5-text-to-video-480p", input: { prompt: `x ${marker}` } });
    const row = await terminal(generation.id);
    expect(row).toMatchObject({ state: "FAILURE", creditsConsumed: 0, errorCode: "content_policy", errorMessage: "Prompt refused" });
  });

  test("five copies of the same callback make one transition, one published SUCCESS and one charge in the app's ledger", async () => {
    const marker = uniqueMarker("dup");
    await app.simulator.scenario({ match: marker, callback: { duplicates: 4 } });
    // A visitor of its own, so that its spend is this one generation.
    const visitor = app.visitor();
    const stream = await openChanges(app, visitor);
    // The balance is the account's: a task still running (a retried test's first try left one)
    // would be charged inside this window. Measure from an account with nothing in flight.
    const before = await waitFor(async () => {
      const account = (await (await fetch(new URL("/api/credits", app.simulator.baseUrl), { headers: { Authorization: "Bearer sim-dev-key" } })).json()) as { credits: number; held: number };
      return account.held === 0 && account.credits;
    });
    const response = await visitor("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `y ${marker}`, duration: 2 } } });
    const generation = (await response.json()) as { id: string };
    await terminal(generation.id);
    await waitFor(async () => (await prisma.delivery.count({ where: { generationId: generation.id, source: "CALLBACK" } })) === 5);
    expect(await deliveryOutcomes(prisma, generation.id)).toEqual({ APPLIED: 1, DUPLICATE: 4 });
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: generation.id } });
    expect(row.creditsConsumed).toBeCloseTo(0.2816, 4);
    expect(await spentCredits(visitor)).toBeCloseTo(0.2816, 4);
    expect(await publishedStates(app, stream, generation.id, visitor)).toEqual(["SUBMITTING", "PENDING", "SUCCESS"]);
    stream.close();
    // One submission, one gateway task, charged once.
    expect((await app.simulator.tasks(marker)).map((t) => [t.taskId, t.state, t.creditsConsumed])).toEqual([[row.taskId, "SUCCESS", 0.2816]]);
    expect(before - (await app.simulator.credits())).toBeCloseTo(0.2816, 4);
  });
});
