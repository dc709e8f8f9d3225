// Models, prices and the credits ledger: cost = price × output seconds, charged
// on SUCCESS only, nothing on FAILURE, never negative, exact under concurrency.
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { inputs, launchSimulator, marker, waitFor } from "./harness";

const sim = await launchSimulator({ SIMULATOR_START_CREDITS: "50", SIMULATOR_PENDING_MS: "60000", SIMULATOR_PENDING_JITTER_MS: "0" });
afterAll(() => sim.stop());
beforeEach(() => sim.control.reset());

/** Submits, settles at once through the control API, and returns the terminal task. */
async function run(model: string, input: Record<string, unknown>, m: string) {
  const submitted = await sim.submit(input, { model });
  expect(submitted.status).toBe(200);
  await sim.control.settle(m);
  return sim.task(submitted.taskId);
}

describe("models and prices", () => {
  test.each([
    ["alpha-2.5-first-last-frame-480p", 0.1408, inputs.frames],
    ["alpha-2.5-text-to-video-480p", 0.1408, inputs.text],
    ["alpha-2.5-text-to-video", 0.1408, inputs.text],
    ["beta-1-1/reference-to-video", 0.1, inputs.reference], // simulated rate: the spec says "pay-per-use"
    ["gamma/reference-to-video", 0.12, inputs.reference], // simulated rate
    ["delta-h3/reference-to-video", 0.1181, inputs.reference],
  ])("%s costs %f USD per output second", async (model, perSecond, input) => {
    for (const seconds of [3, 7]) {
      const m = marker("price");
      const before = await sim.credits();
      const task = await run(model, input(`clip ${m}`, seconds), m);
      const cost = Math.round(perSecond * seconds * 10_000) / 10_000;
      expect(task).toMatchObject({ state: "SUCCESS", creditsConsumed: cost });
      const after = await sim.credits();
      expect(before.credits - after.credits).toBeCloseTo(cost, 4);
      expect(after.held).toBe(0);
    }
  });

  test("without a duration a task lasts 5 s", async () => {
    const m = marker("default-duration");
    const task = await run("delta-h3/reference-to-video", inputs.reference(`clip ${m}`), m);
    expect(task.creditsConsumed).toBeCloseTo(0.5905, 4);
  });
});

describe("credits ledger", () => {
  test("starts at SIMULATOR_START_CREDITS", async () => {
    expect(await sim.credits()).toEqual({ credits: 50, held: 0 });
  });

  test("a PENDING task holds its cost without charging it", async () => {
    await sim.submit(inputs.text(`held ${marker("held")}`, 10));
    expect(await sim.credits()).toEqual({ credits: 50, held: 1.408 });
  });

  test("a FAILURE costs 0 and releases what it held", async () => {
    const m = marker("fail");
    await sim.control.scenario({ match: m, outcome: "failure" });
    const task = await run("alpha-2.5-text-to-video", inputs.text(`fails ${m}`, 10), m);
    expect(task).toMatchObject({ state: "FAILURE", creditsConsumed: 0, resultUrls: [] });
    expect(await sim.credits()).toEqual({ credits: 50, held: 0 });
  });

  test("a task that costs more than the balance → 402 {code, message}, no task, no charge", async () => {
    await sim.control.setCredits(0.5);
    const m = marker("poor");
    const { status, body } = await sim.submit(inputs.text(`too dear ${m}`, 5));
    expect(status).toBe(402);
    expect(body).toEqual({ code: "insufficient_credits", message: expect.stringContaining("0.704") });
    expect(await sim.control.tasks(m)).toEqual([]);
    expect(await sim.credits()).toEqual({ credits: 0.5, held: 0 });
  });

  test("credits held by pending tasks are not available to new ones", async () => {
    await sim.control.setCredits(1);
    expect((await sim.submit(inputs.text(`first ${marker("hold")}`, 5))).status).toBe(200);
    const second = await sim.submit(inputs.text(`second ${marker("hold")}`, 5));
    expect(second.status).toBe(402);
  });

  test("concurrent submits: exactly as many as the balance covers, and never negative", async () => {
    await sim.control.reset(3);
    const m = marker("rush");
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => sim.submit(inputs.text(`rush ${i} ${m}`, 5))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(4); // 4 × 0.704 = 2.816 ≤ 3 < 5 × 0.704
    expect(statuses.filter((s) => s === 402)).toHaveLength(8);
    expect(await sim.credits()).toEqual({ credits: 3, held: 2.816 });
    await sim.control.settle(m);
    const after = await sim.credits();
    expect(after.credits).toBeCloseTo(0.184, 4);
    expect(after.held).toBe(0);
  });

  test("mixed outcomes under concurrency: only the successes are charged", async () => {
    const m = marker("mixed");
    const failing = marker("mixed-fail");
    await sim.control.scenario({ match: failing, outcome: "failure" });
    await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => sim.submit(inputs.text(`ok ${i} ${m}`, 2))),
      ...Array.from({ length: 5 }, (_, i) => sim.submit(inputs.text(`ko ${i} ${m} ${failing}`, 2))),
    ]);
    await sim.control.settle(m);
    const tasks = await sim.control.tasks(m);
    expect(tasks.filter((t) => t.state === "SUCCESS")).toHaveLength(5);
    expect(tasks.filter((t) => t.state === "FAILURE").every((t) => t.creditsConsumed === 0)).toBe(true);
    const { credits } = await sim.credits();
    expect(50 - credits).toBeCloseTo(5 * 0.2816, 4);
  });

  test("the balance only changes when a task reaches SUCCESS", async () => {
    const m = marker("timing");
    await sim.control.scenario({ match: m, pendingMs: 300 });
    const { taskId } = await sim.submit(inputs.text(`soon ${m}`, 1));
    expect((await sim.credits()).credits).toBe(50);
    await waitFor(async () => (await sim.task(taskId)).state === "SUCCESS");
    expect((await sim.credits()).credits).toBeCloseTo(49.8592, 4);
  });

  test("reset sets the balance it is given, or the starting one", async () => {
    await sim.control.reset(12.5);
    expect(await sim.credits()).toEqual({ credits: 12.5, held: 0 });
    await sim.control.reset();
    expect(await sim.credits()).toEqual({ credits: 50, held: 0 });
  });

  test("a balance set below what pending tasks hold still never goes negative", async () => {
    const m = marker("underwater");
    await sim.submit(inputs.text(`a ${m}`, 10));
    await sim.control.setCredits(0.5);
    await sim.control.settle(m);
    expect(await sim.credits()).toEqual({ credits: 0, held: 0 });
  });

  test("a negative balance cannot be set", async () => {
    const response = await fetch(`${sim.url}/__control/credits`, { method: "POST", body: JSON.stringify({ credits: -1 }) });
    expect(response.status).toBe(422);
    expect((await sim.credits()).credits).toBe(50);
  });
});
