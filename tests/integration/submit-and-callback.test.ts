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
    // The balance is the account's: a task still running (a retried test's first try left one), or one
    // sent here by another file's app that was handed this simulator's port after its own simulator's,
    // may be charged inside this window. So the account is compared with what its tasks say they cost:
    // the SUCCESS tasks settled since `before`, read with a balance no task changed meanwhile.
    const successes = async () => new Map((await app.simulator.tasks("")).filter((t) => t.state === "SUCCESS").map((t) => [t.taskId, t.creditsConsumed]));
    const settled = async () =>
      waitFor(async () => {
        const [tasks, credits, again] = [await successes(), await app.simulator.credits(), await successes()];
        return tasks.size === again.size ? { tasks, credits } : null;
      });
    const before = await settled();
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
    // The gateway charged each task once: the account fell by what the tasks settled since then cost, this one's 0.2816 among them.
    const after = await settled();
    const since = [...after.tasks].filter(([taskId]) => !before.tasks.has(taskId));
    expect(since).toContainEqual([row.taskId, 0.2816]);
    expect(before.credits - after.credits).toBeCloseTo(since.reduce((sum, [, cost]) => sum + cost, 0), 4);
  });
});
