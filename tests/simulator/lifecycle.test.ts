// Lifecycle: PENDING for the configured, jittered time, then SUCCESS or FAILURE
// at the configured failure rate or as a scenario says.
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { inputs, launchSimulator, marker, waitFor } from "./harness";

const sim = await launchSimulator({ SIMULATOR_PENDING_MS: "300", SIMULATOR_PENDING_JITTER_MS: "200", SIMULATOR_START_CREDITS: "1000" });
afterAll(() => sim.stop());
beforeEach(() => sim.control.reset());

const finished = (taskId: string) =>
  waitFor(async () => {
    const task = await sim.task(taskId);
    return task.state !== "PENDING" && task;
  });

describe("lifecycle", () => {
  test("PENDING for SIMULATOR_PENDING_MS plus up to SIMULATOR_PENDING_JITTER_MS, then SUCCESS", async () => {
    const m = marker("jitter");
    const submitted = await Promise.all(Array.from({ length: 6 }, (_, i) => sim.submit(inputs.text(`t${i} ${m}`, 1))));
    const tasks = await Promise.all(submitted.map((s) => finished(s.taskId)));
    const durations = tasks.map((t) => Date.parse(t.completeTime!) - Date.parse(t.createTime));
    for (const [i, task] of tasks.entries()) {
      expect(task.state).toBe("SUCCESS");
      expect(durations[i]).toBeGreaterThanOrEqual(300);
      expect(durations[i]).toBeLessThanOrEqual(500 + 50);
    }
    expect(new Set(durations).size).toBeGreaterThan(1); // jittered, not all the same
  });

  test("a task completes at its due time even when its timer fires late (a starved process), not when the timer ran", async () => {
    const m = marker("late-timer");
    await sim.control.scenario({ match: m, pendingMs: 300 });
    const { taskId } = await sim.submit(inputs.text(`late ${m}`, 1));
    // Nothing reads the task meanwhile: its timer, 1.5 s overdue, settles it.
    await sim.pause(1_800);
    const task = await finished(taskId);
    expect(Date.parse(task.completeTime!) - Date.parse(task.createTime)).toBe(300);
  });

  test("a task is still PENDING before its time", async () => {
    // A time no loaded machine outlasts between the submit and the read.
    const m = marker("early");
    await sim.control.scenario({ match: m, pendingMs: 60_000 });
    const { taskId } = await sim.submit(inputs.text(`early ${m}`, 1));
    expect((await sim.task(taskId)).state).toBe("PENDING");
  });

  test("SIMULATOR_FAILURE_RATE 1: every task ends in FAILURE with a code and a message", async () => {
    await sim.control.configure({ SIMULATOR_FAILURE_RATE: 1, SIMULATOR_PENDING_MS: 0, SIMULATOR_PENDING_JITTER_MS: 0 });
    const { taskId } = await sim.submit(inputs.text(`doomed ${marker("rate1")}`, 1));
    expect(await finished(taskId)).toMatchObject({
      state: "FAILURE",
      failCode: "generation_failed",
      failMsg: expect.any(String),
      resultUrls: [],
      creditsConsumed: 0,
      progress: 100,
      completeTime: expect.any(String),
    });
  });

  test("SIMULATOR_FAILURE_RATE 0.5 fails about half of the tasks", async () => {
    await sim.control.configure({ SIMULATOR_FAILURE_RATE: 0.5 });
    const m = marker("half");
    await Promise.all(Array.from({ length: 60 }, (_, i) => sim.submit(inputs.text(`coin ${i} ${m}`, 1))));
    await sim.control.settle(m);
    const failures = (await sim.control.tasks(m)).filter((t) => t.state === "FAILURE").length;
    expect(failures).toBeGreaterThan(12); // P(outside 13..47) < 1e-5
    expect(failures).toBeLessThan(48);
  });

  test("reset restores the failure rate from the environment (0)", async () => {
    await sim.control.configure({ SIMULATOR_FAILURE_RATE: 1 });
    await sim.control.reset();
    const m = marker("restored");
    await Promise.all(Array.from({ length: 10 }, (_, i) => sim.submit(inputs.text(`ok ${i} ${m}`, 1))));
    await sim.control.settle(m);
    expect((await sim.control.tasks(m)).map((t) => t.state)).toEqual(Array(10).fill("SUCCESS"));
  });
});

describe("scenarios", () => {
  test("the next task fails (times: 1), the one after succeeds", async () => {
    const m = marker("next");
    await sim.control.scenario({ match: m, times: 1, outcome: "failure", failCode: "content_policy", failMsg: "Prompt refused by the safety filter." });
    const first = await sim.submit(inputs.text(`one ${m}`, 1));
    const second = await sim.submit(inputs.text(`two ${m}`, 1));
    expect(await finished(first.taskId)).toMatchObject({ state: "FAILURE", failCode: "content_policy", failMsg: "Prompt refused by the safety filter." });
    expect(await finished(second.taskId)).toMatchObject({ state: "SUCCESS", failCode: null });
  });

  test("the next task succeeds even at a failure rate of 1", async () => {
    await sim.control.configure({ SIMULATOR_FAILURE_RATE: 1 });
    const m = marker("force-ok");
    await sim.control.scenario({ match: m, times: 1, outcome: "success" });
    const { taskId } = await sim.submit(inputs.text(`lucky ${m}`, 1));
    expect((await finished(taskId)).state).toBe("SUCCESS");
  });

  test("pendingMs sets how long this marker's tasks stay PENDING", async () => {
    const m = marker("slow");
    await sim.control.scenario({ match: m, pendingMs: 900 });
    const { taskId } = await sim.submit(inputs.text(`slow ${m}`, 1));
    const task = await finished(taskId);
    expect(Date.parse(task.completeTime!) - Date.parse(task.createTime)).toBeGreaterThanOrEqual(900);
  });

  test("settle finishes a marker's PENDING tasks now, and only those", async () => {
    const m = marker("settle");
    const other = marker("other");
    await sim.control.scenario({ match: m, pendingMs: 600_000 });
    await sim.control.scenario({ match: other, pendingMs: 600_000 });
    const mine = await sim.submit(inputs.text(`mine ${m}`, 1));
    const theirs = await sim.submit(inputs.text(`theirs ${other}`, 1));
    expect(await sim.control.settle(m)).toEqual({ settled: 1 });
    expect((await sim.task(mine.taskId)).state).toBe("SUCCESS");
    expect((await sim.task(theirs.taskId)).state).toBe("PENDING");
  });

  test("a terminal state never changes again", async () => {
    const m = marker("final");
    await sim.control.scenario({ match: m, outcome: "failure" });
    const { taskId } = await sim.submit(inputs.text(`final ${m}`, 1));
    const done = await finished(taskId);
    await sim.control.settle(m);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await sim.task(taskId)).toEqual(done);
  });
});
